/**
 * Scanning one candidate block for a filter: read its raw logs record, reject a bloom false
 * positive by the address table at its front, then match the record and render the matches
 * (recordScan.ts). The step both the pool's workers and the inline path run, so both render
 * byte-identical answers.
 */

import type { RecordBlock, RecordRenderer } from '../render/recordLog.js';
import { writeBlockKey } from '../store/keys.js';
import { addressTableHas, logAddressTable } from '../store/logsRecord.js';
import type { StoreReader } from '../store/reader.js';
import { headerTimestamp, storedBlockHash } from '../store/recordViews.js';
import type { JsonSink } from './jsonSink.js';
import { type HeaderFacts, type RecentBlocks, recentBlocks } from './recentBlocks.js';
import { prepareRecordQuery, scanRecord } from './recordScan.js';

/**
 * A growable buffer the scans copy each matching block's record into: its matches are rendered before the next block is
 * read, and scans on a thread run one at a time.
 */
class RecordCopy {
  private buf = Buffer.allocUnsafe(16 * 1024);

  /**
   * `raw` copied (by raw.length: lmdb's read buffer is larger than the value it holds, and Buffer.copy fails on it).
   */
  of(raw: Buffer): Buffer {
    if (raw.length > this.buf.length) this.buf = Buffer.allocUnsafe(Math.max(raw.length, 2 * this.buf.length));
    this.buf.set(new Uint8Array(raw.buffer, raw.byteOffset, raw.length));
    return this.buf.subarray(0, raw.length);
  }
}

/** This thread's record copy. */
const copy = new RecordCopy();

/** Bytes of a transaction hash. */
const TX_HASH = 32;

/**
 * Transaction `i`'s hash from the block's hashes record, read (one get, copied: the reads after it
 * reuse lmdb's read buffer) at the first call, which a block without a match never makes.
 */
function blockTxHashes(reader: StoreReader, n: number): (i: number) => Uint8Array {
  let hashes: Uint8Array | undefined;
  return (i) => {
    if (hashes === undefined) {
      const raw = reader.txHashesRecord(n)!;
      hashes = new Uint8Array(raw.subarray(0, raw.length));
    }
    return hashes.subarray(i * TX_HASH, (i + 1) * TX_HASH);
  };
}

/** The per-block values of rendered logs, read only when the block has a match (the header remembered by `recent`). */
function blockContext(reader: StoreReader, recent: RecentBlocks, n: number): RecordBlock {
  let header: HeaderFacts | undefined;
  return {
    number: n,
    hash: () => (header ??= recent.header(n)!).hash,
    timestamp: () => (header ??= recent.header(n)!).timestamp,
    keep: (raw) => copy.of(raw),
    txHash: blockTxHashes(reader, n),
  };
}

/**
 * The per-block values of one pass over many blocks, each read once (an export). No thread memory
 * is filled: a bulk pass would only evict what realtime queries keep there.
 */
function bulkContext(reader: StoreReader, n: number): RecordBlock {
  let header: { hash: Uint8Array; timestamp: number } | undefined;
  const facts = () => {
    if (header) return header;
    const raw = reader.headerRecord(n)!;
    return (header = { hash: new Uint8Array(storedBlockHash(raw)), timestamp: headerTimestamp(raw) });
  };
  return {
    number: n,
    hash: () => facts().hash,
    timestamp: () => facts().timestamp,
    keep: (raw) => copy.of(raw),
    txHash: blockTxHashes(reader, n),
  };
}

/**
 * Renders the matches of one candidate block into an output and returns how many there were, or
 * SCAN_REFUSED when its reads' admit() refused the block's record before anything was rendered.
 */
export type BlockScan = (n: number, out: JsonSink | RecordRenderer) => number;

/** What a BlockScan returns for a block whose record its reads' admit() refused. */
export const SCAN_REFUSED = -1;

/** What the scans of a BlockScan read so far, and whether to scan the next record. */
export interface ScanReads {
  /** Bytes of the logs records scanned (those whose address table passed). */
  recordBytes: number;
  /** Asked with a record's size before it is scanned: false refuses it (the scan returns SCAN_REFUSED). */
  admit?(recordBytes: number): boolean;
}

/**
 * Prepares the scan of candidate blocks for a filter's `addresses` and `topics` over `reader`'s
 * store; with `reads`, the bytes of every logs record it scans are added to it.
 */
export function blockScanner(
  reader: StoreReader,
  addresses: Uint8Array[],
  topics: (Uint8Array[] | null)[],
  reads?: ScanReads,
): BlockScan {
  const recent = recentBlocks(reader.store, reader.rollbacks());
  return scanner(reader, addresses, topics, (n) => blockContext(reader, recent, n), reads);
}

/**
 * A BlockScan for one pass over many blocks (an export), reading each block's values once, without the thread's memory
 * of recent blocks.
 */
export function bulkBlockScanner(
  reader: StoreReader,
  addresses: Uint8Array[],
  topics: (Uint8Array[] | null)[],
): BlockScan {
  return scanner(reader, addresses, topics, (n) => bulkContext(reader, n));
}

/** The scan of candidate blocks whose rendered logs take their block's values from `context`. */
function scanner(
  reader: StoreReader,
  addresses: Uint8Array[],
  topics: (Uint8Array[] | null)[],
  context: (n: number) => RecordBlock,
  reads?: ScanReads,
): BlockScan {
  const { store } = reader;
  const query = prepareRecordQuery(addresses, topics);
  const key = Buffer.alloc(8);
  return (n, out) => {
    writeBlockKey(key, n);
    // Scanned in place; copied at its first match (keep), since rendering reads header and transaction records into the
    // same buffer.
    const raw = store.logs.getBinaryFast(key);
    if (raw === undefined) return 0;
    if (addresses.length > 0 && !addressTableHas(logAddressTable(raw), addresses)) return 0;
    if (reads) {
      if (reads.admit !== undefined && !reads.admit(raw.length)) return SCAN_REFUSED;
      reads.recordBytes += raw.length;
    }
    return scanRecord(raw, query, context(n), out);
  };
}
