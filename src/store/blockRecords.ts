/**
 * A block as the store's records (docs/architecture.md §3): the header record, one record per
 * transaction, the receipts, logs and log-address records, the storage entries and the block's
 * storage-write prefixes, encoded and ready to put. The writer puts these; generating threads
 * encode them and hand them over packed in one transferable buffer (writeBlockRecords and
 * readBlockRecords), since handing over block objects costs more than building them.
 */
import type { BlockBundle } from '../chain/types.js';
import type { ByteReader, ByteWriter } from './bytes.js';
import { encodeHeader, encodeTx } from './codec.js';
import { encodeStorageKey, STORAGE_PREFIX_BYTES } from './keys.js';
import { encodeLogs, logAddressesOfRecord } from './logsRecord.js';
import { encodeReceipts } from './receiptsRecord.js';

/** Bytes of a storage key: address ‖ slot ‖ u64 number (keys.ts). */
const STORAGE_KEY_BYTES = STORAGE_PREFIX_BYTES + 8;

/** One block's records, as the store keeps them; a record the block has none of (no transactions, logs, storage) is undefined. */
export interface BlockRecords {
  number: number;
  /** The header record; its hash and parent hash sit at recordViews' storedBlockHash and storedParentHash. */
  header: Buffer;
  /** The transaction records, in order; each starts with the transaction's hash. */
  txs: Buffer[];
  receipts: Buffer | undefined;
  logs: Buffer | undefined;
  logAddresses: Buffer | undefined;
  /** The storage entries' keys and values (leading zeros stripped), in the block's write order. */
  storageKeys: Buffer[];
  storageValues: Buffer[];
  /** The address ‖ slot prefixes of the storage keys, concatenated. */
  storageWrites: Buffer | undefined;
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

/** Encodes a block into its records. */
export function encodeBlockRecords(block: BlockBundle): BlockRecords {
  const n = block.header.number;
  const storageKeys: Buffer[] = [];
  const storageValues: Buffer[] = [];
  let storageWrites: Buffer | undefined;
  if (block.storage.length > 0) {
    storageWrites = Buffer.allocUnsafe(block.storage.length * STORAGE_PREFIX_BYTES);
    block.storage.forEach((w, i) => {
      const key = encodeStorageKey(w.address, w.slot, n);
      storageKeys.push(key);
      storageValues.push(Buffer.from(stripLeadingZeros(w.value)));
      key.copy(storageWrites!, i * STORAGE_PREFIX_BYTES, 0, STORAGE_PREFIX_BYTES);
    });
  }
  const logs = block.logs.length > 0 ? encodeLogs(block.logs) : undefined;
  return {
    number: n,
    header: encodeHeader(block.header),
    txs: block.transactions.map(encodeTx),
    receipts: block.receipts.length > 0 ? encodeReceipts(block.receipts) : undefined,
    logs,
    logAddresses: logs && logAddressesOfRecord(logs),
    storageKeys,
    storageValues,
    storageWrites,
  };
}

const EMPTY = Buffer.alloc(0);

/** Appends `r` to `w` (read back by readBlockRecords); an absent record is written empty, as no record is. */
export function writeBlockRecords(w: ByteWriter, r: BlockRecords): void {
  w.varint(r.number).bytes(r.header).varint(r.txs.length);
  for (const tx of r.txs) w.bytes(tx);
  w.bytes(r.receipts ?? EMPTY).bytes(r.logs ?? EMPTY).bytes(r.logAddresses ?? EMPTY);
  w.varint(r.storageKeys.length);
  r.storageKeys.forEach((key, i) => w.fixed(key).bytes(r.storageValues[i]!));
  w.bytes(r.storageWrites ?? EMPTY);
}

/** Reads one block's records written by writeBlockRecords, as views into the reader's buffer (nothing copied). */
export function readBlockRecords(r: ByteReader): BlockRecords {
  const number = r.varint();
  const header = r.viewBytes();
  const txs = Array.from({ length: r.varint() }, () => r.viewBytes());
  const present = (b: Buffer) => (b.length > 0 ? b : undefined);
  const receipts = present(r.viewBytes());
  const logs = present(r.viewBytes());
  const logAddresses = present(r.viewBytes());
  const storageKeys: Buffer[] = [];
  const storageValues: Buffer[] = [];
  for (let i = r.varint(); i > 0; i--) {
    storageKeys.push(r.view(STORAGE_KEY_BYTES));
    storageValues.push(r.viewBytes());
  }
  return { number, header, txs, receipts, logs, logAddresses, storageKeys, storageValues, storageWrites: present(r.viewBytes()) };
}
