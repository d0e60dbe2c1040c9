/**
 * Scanning one candidate block for a filter: reject a bloom false positive by the block's address
 * table, then match its raw logs record and render the matches (recordScan.ts). The step both the
 * pool's workers and the inline path run, so both render byte-identical answers.
 */
import { headerHash, headerTimestamp } from '../store/codec.js';
import { encodeBlockKey } from '../store/keys.js';
import { addressTableHas } from '../store/logsRecord.js';
import type { StoreReader } from '../store/reader.js';
import type { JsonSink } from './jsonSink.js';
import { prepareRecordQuery, scanRecord, type RecordBlock, type RecordRenderer } from './recordScan.js';

/** The hash and timestamp of block `n`, read from its header record without decoding the rest. */
function headerFields(reader: StoreReader, n: number): { hash: Uint8Array; timestamp: number } {
  const raw = reader.headerRecord(n)!;
  return { hash: new Uint8Array(headerHash(raw)), timestamp: headerTimestamp(raw) };
}

/** The per-block values of rendered logs, read only when the block has a match. */
function blockContext(reader: StoreReader, n: number): RecordBlock {
  let header: { hash: Uint8Array; timestamp: number } | undefined;
  const txs = new Map<number, Uint8Array>();
  return {
    number: n,
    hash: () => (header ??= headerFields(reader, n)).hash,
    timestamp: () => (header ??= headerFields(reader, n)).timestamp,
    txHash: (i) => {
      let h = txs.get(i);
      if (h === undefined) {
        h = reader.txHash(n, i)!;
        txs.set(i, h);
      }
      return h;
    },
  };
}

/** Renders the matches of one candidate block into an output and returns how many there were. */
export type BlockScan = (n: number, out: JsonSink | RecordRenderer) => number;

/** What the scans of a BlockScan read so far. */
export interface ScanReads {
  /** Bytes of the logs records scanned (those whose address table passed). */
  recordBytes: number;
}

/**
 * Prepares the scan of candidate blocks for a filter's `addresses` and `topics` over `reader`'s
 * store; with `reads`, the bytes of every logs record it scans are added to it.
 */
export function blockScanner(reader: StoreReader, addresses: Uint8Array[], topics: (Uint8Array[] | null)[], reads?: ScanReads): BlockScan {
  const { store } = reader;
  const query = prepareRecordQuery(addresses, topics);
  return (n, out) => {
    const key = encodeBlockKey(n);
    if (addresses.length > 0) {
      const table = store.logAddresses.getBinaryFast(key);
      if (table === undefined || !addressTableHas(table, addresses)) return 0;
    }
    // A copy: rendering reads header and transaction records, which reuse getBinaryFast's buffer.
    const raw = store.logs.getBinary(key);
    if (raw === undefined) return 0;
    if (reads) reads.recordBytes += raw.length;
    return scanRecord(raw, query, blockContext(reader, n), out);
  };
}
