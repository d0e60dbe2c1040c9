/**
 * A block as the store's records (docs/architecture.md §3): the header record, one record per
 * transaction, the receipts, logs and log-address records, the storage entries and the block's
 * storage-write prefixes, ready to put. They are written one after the other into one buffer
 * (writeBlockRecords) and read back as views into it (readBlockRecords), so a block costs one
 * buffer, not one per record; generating threads hand such buffers over (a block object would
 * cost more to clone than to build).
 *
 * Layout per block: varint number; the header record; varint transaction count and each
 * transaction record; the transactions' hashes, concatenated (the txHashes value); the receipts record; the logs record
 * (the logAddresses value is the address
 * table at its front); varint storage-write count, the address ‖ slot prefixes of the writes (the
 * storageWrites value), then each write's key and value. Records are u32-length-prefixed; an
 * absent one (no transactions, logs or storage) is empty.
 */
import { stripLeadingZeros } from '../chain/hex.js';
import type { BlockBundle } from '../chain/types.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { writeHeader, writeTx } from './codec.js';
import { STORAGE_PREFIX_BYTES, storageKeySuffix } from './keys.js';
import { writeLogs } from './logsRecord.js';
import { writeReceipts } from './receiptsRecord.js';

/** Bytes of a storage key: address ‖ slot ‖ u64 number (keys.ts). */
const STORAGE_KEY_BYTES = STORAGE_PREFIX_BYTES + 8;
/** Bytes of an address in a logs record's address table. */
const ADDRESS_BYTES = 20;
/**
 * Room a block's records take per transaction at first (the buffer grows as needed): a mainnet-density block's take
 * 610-740 bytes a transaction.
 */
export const RECORD_BYTES_PER_TX_HINT = 800;

/**
 * One block's records, as the store keeps them; a record the block has none of (no transactions, logs, storage) is
 * undefined.
 */
export interface BlockRecords {
  number: number;
  /** The header record; its hash and parent hash sit at recordViews' storedBlockHash and storedParentHash. */
  header: Buffer;
  /** The transaction records, in order (without their hashes: txHashes holds them). */
  txs: Buffer[];
  /** The transactions' hashes in order, concatenated. */
  txHashes: Buffer | undefined;
  receipts: Buffer | undefined;
  logs: Buffer | undefined;
  logAddresses: Buffer | undefined;
  /** The storage entries' keys and values (leading zeros stripped), in the block's write order. */
  storageKeys: Buffer[];
  storageValues: Buffer[];
  /** The address ‖ slot prefixes of the storage keys, concatenated. */
  storageWrites: Buffer | undefined;
}

/** The bytes of a block's records (what a batch of them holds in memory until it is written). */
export function blockRecordsBytes(r: BlockRecords): number {
  let bytes =
    r.header.length +
    (r.txHashes?.length ?? 0) +
    (r.receipts?.length ?? 0) +
    (r.logs?.length ?? 0) +
    (r.storageWrites?.length ?? 0);
  for (const tx of r.txs) bytes += tx.length;
  for (let i = 0; i < r.storageKeys.length; i++) bytes += r.storageKeys[i]!.length + r.storageValues[i]!.length;
  return bytes;
}

/** Encodes a block into its records (views into one buffer of their own). */
export function encodeBlockRecords(block: BlockBundle): BlockRecords {
  const w = new ByteWriter(4096 + block.transactions.length * RECORD_BYTES_PER_TX_HINT);
  writeBlockRecords(w, block);
  // The writer's own buffer, not a copy: nothing else writes to it (its room beyond the records is kept with them).
  return readBlockRecords(new ByteReader(w.written()));
}

/** Writes a block's records to `w` (read back by readBlockRecords). */
export function writeBlockRecords(w: ByteWriter, block: BlockBundle): void {
  const n = block.header.number;
  w.varint(n).u32Prefixed((w) => writeHeader(w, block.header));
  w.varint(block.transactions.length);
  for (const tx of block.transactions) w.u32Prefixed((w) => writeTx(w, tx));
  w.u32Prefixed((w) => {
    for (const tx of block.transactions) w.fixed(tx.hash);
  });
  w.u32Prefixed((w) => {
    if (block.receipts.length > 0) writeReceipts(w, block.receipts);
  });
  w.u32Prefixed((w) => {
    if (block.logs.length > 0) writeLogs(w, block.logs);
  });
  w.varint(block.storage.length);
  w.u32Prefixed((w) => {
    for (const s of block.storage) w.fixed(s.address).fixed(s.slot);
  });
  const suffix = storageKeySuffix(n);
  for (const s of block.storage)
    w.fixed(s.address)
      .fixed(s.slot)
      .fixed(suffix)
      .u32Prefixed((w) => w.fixed(stripLeadingZeros(s.value)));
}

/** Reads one block's records written by writeBlockRecords, as views into the reader's buffer (nothing copied). */
export function readBlockRecords(r: ByteReader): BlockRecords {
  const present = (b: Buffer) => (b.length > 0 ? b : undefined);
  const number = r.varint();
  const header = r.u32PrefixedView();
  const txs = Array.from({ length: r.varint() }, () => r.u32PrefixedView());
  const txHashes = present(r.u32PrefixedView());
  const receipts = present(r.u32PrefixedView());
  const logs = present(r.u32PrefixedView());
  let logAddresses: Buffer | undefined;
  if (logs) {
    const table = new ByteReader(logs);
    logAddresses = table.view(table.varint() * ADDRESS_BYTES);
  }
  const writes = r.varint();
  const storageWrites = present(r.u32PrefixedView());
  const storageKeys: Buffer[] = [];
  const storageValues: Buffer[] = [];
  for (let i = 0; i < writes; i++) {
    storageKeys.push(r.view(STORAGE_KEY_BYTES));
    storageValues.push(r.u32PrefixedView());
  }
  return { number, header, txs, txHashes, receipts, logs, logAddresses, storageKeys, storageValues, storageWrites };
}
