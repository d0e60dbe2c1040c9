/**
 * A block as the store's records (docs/architecture.md §3): the header record, the transactions
 * record, the receipts and logs records, the storage entries and the block's storage-write
 * prefixes, ready to put. They are written one after the other into one buffer
 * (writeBlockRecords) and read back as views into it (readBlockRecords), so a block costs one
 * buffer, not one per record; generating threads hand such buffers over (a block object would
 * cost more to clone than to build).
 *
 * Layout per block: varint number; the header record; the transactions record (blockTxsRecord.ts);
 * the transactions' hashes, concatenated (the txHashes value); the receipts record; the logs
 * record; varint storage-write count, the address ‖ slot prefixes of the writes (the
 * storageWrites value), then each write's key and value. Records are u32-length-prefixed; an
 * absent one (no transactions, logs or storage) is empty.
 */
import { stripLeadingZeros } from '../chain/hex.js';
import type { BlockBundle } from '../chain/types.js';
import { writeBlockTxs } from './blockTxsRecord.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { writeHeader, writeTx } from './codec.js';
import { HASH_BYTES, STORAGE_PREFIX_BYTES, storageKeySuffix } from './keys.js';
import { writeLogs } from './logsRecord.js';
import { writeReceipts } from './receiptsRecord.js';

/** Bytes of a storage key: address ‖ slot ‖ u64 number (keys.ts). */
const STORAGE_KEY_BYTES = STORAGE_PREFIX_BYTES + 8;
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
  /** The block's transactions. */
  txCount: number;
  /** The block's transactions record (blockTxsRecord.ts; without their hashes: txHashes holds them). */
  txs: Buffer | undefined;
  /** The transactions' hashes in order, concatenated. */
  txHashes: Buffer | undefined;
  receipts: Buffer | undefined;
  logs: Buffer | undefined;
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
    (r.txs?.length ?? 0) +
    (r.txHashes?.length ?? 0) +
    (r.receipts?.length ?? 0) +
    (r.logs?.length ?? 0) +
    (r.storageWrites?.length ?? 0);
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

/** The transaction records of the block being written, one after the other, and where each ends. */
const txRecords = new ByteWriter(64 * 1024);
const txEnds: number[] = [];

/** Writes a block's records to `w` (read back by readBlockRecords). */
export function writeBlockRecords(w: ByteWriter, block: BlockBundle): void {
  const n = block.header.number;
  w.varint(n).u32Prefixed((w) => writeHeader(w, block.header));
  txRecords.clear();
  txEnds.length = 0;
  for (const tx of block.transactions) {
    writeTx(txRecords, tx);
    txEnds.push(txRecords.length);
  }
  w.u32Prefixed((w) => {
    if (txEnds.length > 0) writeBlockTxs(w, txRecords.written(), txEnds);
  });
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
  const txs = present(r.u32PrefixedView());
  const txHashes = present(r.u32PrefixedView());
  const txCount = (txHashes?.length ?? 0) / HASH_BYTES;
  const receipts = present(r.u32PrefixedView());
  const logs = present(r.u32PrefixedView());
  const writes = r.varint();
  const storageWrites = present(r.u32PrefixedView());
  const storageKeys: Buffer[] = [];
  const storageValues: Buffer[] = [];
  for (let i = 0; i < writes; i++) {
    storageKeys.push(r.view(STORAGE_KEY_BYTES));
    storageValues.push(r.u32PrefixedView());
  }
  return { number, header, txCount, txs, txHashes, receipts, logs, storageKeys, storageValues, storageWrites };
}
