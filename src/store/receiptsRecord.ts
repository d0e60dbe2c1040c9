/**
 * The record holding the receipts of one block's transactions, as an encode/decode pair.
 *
 * Layout: the receipt count, then per receipt a flags byte (bit 0 status, bit 1 a pre-Byzantium
 * state root instead of a status, bit 2 a created contract, bit 3 blob gas fields), gasUsed and
 * effectiveGasPrice as minimal big-endian bigints, then the root (32 bytes), the contract address
 * (20 bytes), blobGasUsed and blobGasPrice, and (bit 4) the members kept as the node gave them
 * (Receipt.extra, UTF-8 JSON text, length-prefixed), each when its flag is set. About 10 bytes a
 * receipt of Ethereum; an OP-stack receipt's L1 fee fields add about 150.
 */
import type { Receipt } from '../chain/types.js';
import { ByteReader, ByteWriter, extraBytes, extraText } from './bytes.js';

const STATUS = 1;
const ROOT = 2;
const CONTRACT = 4;
const BLOB = 8;
const EXTRA = 16;

/** Encodes a block's receipts, in transaction order. */
export function encodeReceipts(receipts: readonly Receipt[]): Buffer {
  const w = new ByteWriter(16 + receipts.length * 16);
  writeReceipts(w, receipts);
  return w.finish();
}

/** Writes a block's receipts record (encodeReceipts's bytes) to `w`. */
export function writeReceipts(w: ByteWriter, receipts: readonly Receipt[]): void {
  w.varint(receipts.length);
  for (const r of receipts) {
    const blob = r.blobGasUsed !== undefined;
    if ((r.root === undefined) === (r.status === undefined))
      throw new RangeError('a receipt has either a status or a root');
    if (blob !== (r.blobGasPrice !== undefined))
      throw new RangeError('a blob receipt has both blobGasUsed and blobGasPrice');
    const extra = r.extra !== undefined ? EXTRA : 0;
    w.u8(
      (r.status === 1 ? STATUS : 0) |
        (r.root !== undefined ? ROOT : 0) |
        (r.contractAddress !== null ? CONTRACT : 0) |
        (blob ? BLOB : 0) |
        extra,
    );
    w.bigint(r.gasUsed).bigint(r.effectiveGasPrice);
    if (r.root !== undefined) w.fixed(r.root);
    if (r.contractAddress !== null) w.fixed(r.contractAddress);
    if (blob) w.bigint(r.blobGasUsed!).bigint(r.blobGasPrice!);
    if (extra) w.bytes(extraBytes(r.extra!));
  }
}

/** Decodes a record written by encodeReceipts. */
export function decodeReceipts(bytes: Uint8Array): Receipt[] {
  const r = new ByteReader(bytes);
  return Array.from({ length: r.varint() }, (): Receipt => {
    const flags = r.u8();
    const gasUsed = r.bigint();
    const effectiveGasPrice = r.bigint();
    const receipt: Receipt = { gasUsed, effectiveGasPrice, contractAddress: null };
    if (flags & ROOT) receipt.root = r.fixed(32);
    else receipt.status = flags & STATUS ? 1 : 0;
    if (flags & CONTRACT) receipt.contractAddress = r.fixed(20);
    if (flags & BLOB) {
      receipt.blobGasUsed = r.bigint();
      receipt.blobGasPrice = r.bigint();
    }
    if (flags & EXTRA) receipt.extra = extraText(r.bytes());
    return receipt;
  });
}
