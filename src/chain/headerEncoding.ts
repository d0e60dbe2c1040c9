/**
 * The consensus encoding of block headers and blocks: the header RLP in mainnet field order (the
 * fork fields appended as each fork adds them), the block hash keccak256(rlp(header)), and the block
 * size, the byte length of rlp([header, transactions, uncles, withdrawals?]).
 */
import { keccak256 } from './keccak.js';
import { type RlpItem, rlpEncode, rlpEncodedLength, rlpPrefixLength, rlpUint } from './rlp.js';
import type { BlockHeader, Withdrawal } from './types.js';

/** The header fields as RLP items, in consensus order; a fork field is present when the header has it. */
export function headerFields(h: BlockHeader): RlpItem[] {
  const fields: RlpItem[] = [
    h.parentHash,
    h.sha3Uncles,
    h.miner,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    rlpUint(h.difficulty),
    rlpUint(h.number),
    rlpUint(h.gasLimit),
    rlpUint(h.gasUsed),
    rlpUint(h.timestamp),
    h.extraData,
    h.mixHash,
    h.nonce,
  ];
  if (h.baseFeePerGas !== undefined) fields.push(rlpUint(h.baseFeePerGas));
  if (h.withdrawalsRoot !== undefined) fields.push(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) fields.push(rlpUint(h.blobGasUsed), rlpUint(h.excessBlobGas ?? 0n));
  if (h.parentBeaconBlockRoot !== undefined) fields.push(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) fields.push(h.requestsHash);
  return fields;
}

/** rlp(header). */
export function encodeHeaderRlp(h: BlockHeader): Uint8Array {
  return rlpEncode(headerFields(h));
}

/** The block hash: keccak256(rlp(header)). */
export function computeBlockHash(h: BlockHeader): Uint8Array {
  return keccak256(encodeHeaderRlp(h));
}

/** The RLP items of a withdrawals list. */
export function withdrawalsItem(withdrawals: Withdrawal[]): RlpItem {
  return withdrawals.map((w) => [rlpUint(w.index), rlpUint(w.validatorIndex), w.address, rlpUint(w.amount)]);
}

/**
 * Encoded length of one transaction inside a block body: a legacy one is inlined, a typed envelope is a byte string.
 */
function bodyTxLength(encoded: Uint8Array): number {
  const legacy = encoded.length > 0 && encoded[0]! >= 0xc0;
  return legacy ? encoded.length : rlpPrefixLength(encoded.length) + encoded.length;
}

/**
 * The block size: the byte length of rlp([header, transactions, uncles, withdrawals?]), from the
 * header, the consensus encodings of its transactions and its uncle headers' encodings.
 */
export function blockSize(h: BlockHeader, encodedTxs: Uint8Array[], encodedUncles: Uint8Array[] = []): number {
  let txs = 0;
  for (const t of encodedTxs) txs += bodyTxLength(t);
  let uncles = 0;
  for (const u of encodedUncles) uncles += u.length;
  let body = rlpEncodedLength(headerFields(h)) + rlpPrefixLength(txs) + txs + rlpPrefixLength(uncles) + uncles;
  if (h.withdrawals !== undefined) body += rlpEncodedLength(withdrawalsItem(h.withdrawals));
  return rlpPrefixLength(body) + body;
}
