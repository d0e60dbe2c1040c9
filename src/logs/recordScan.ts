/**
 * The worker's fast path: matches a filter against a block's raw logs record (store/logsRecord.ts
 * layout) and renders each match, from offsets into the record, without decoding logs into
 * objects. Addresses match by table index, topics by dictionary index (memoised per block). Matches
 * render as JSON text into a JsonSink, or go to a RecordRenderer (logProto.ts: protobuf). The JSON
 * output is byte-identical to renderLogJson's (the oracle's path), which the differential test
 * checks.
 */
import { ascii } from '../chain/asciiHex.js';
import { JsonSink } from './jsonSink.js';
import { readVarint, varintEnd } from '../chain/varint.js';

/** A filter prepared for raw-record scanning. */
export interface RecordQuery {
  /** Sorted-or-not 20-byte addresses; empty: any. */
  addresses: Uint8Array[];
  /** Per position: null is a wildcard, else the alternatives with leading zeros stripped. */
  topics: (Buffer[] | null)[];
}

/** The per-block values a rendered log carries (read lazily: only blocks with a match pay for them). */
export interface RecordBlock {
  number: number;
  /** The block's 32-byte hash. */
  hash(): Uint8Array;
  timestamp(): number;
  /** Transaction `i`'s 32-byte hash. */
  txHash(i: number): Uint8Array;
  /**
   * The record as a buffer the reads of hash(), timestamp() and txHash() leave intact, asked for at
   * the first match (a copy when the record is a view of the store's reusable read buffer, so a
   * block without a match is scanned in place); absent when the record is stable already.
   */
  keep?(raw: Buffer): Buffer;
}

function strip(bytes: Uint8Array): Buffer {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return Buffer.from(bytes.subarray(i));
}

/** Prepares a filter's addresses and topics for scanRecord. */
export function prepareRecordQuery(addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): RecordQuery {
  return { addresses, topics: topics.map((p) => (p ? p.map(strip) : null)) };
}

const OPEN = ascii('{"address":"0x');
const TOPICS = ascii('","topics":[');
const DATA = ascii('],"data":"0x');
const NUMBER = ascii('","blockNumber":"0x');
const TX_HASH = ascii('","transactionHash":"0x');
const TX_INDEX = ascii('","transactionIndex":"0x');
const BLOCK_HASH = ascii('","blockHash":"0x');
const TIMESTAMP = ascii('","blockTimestamp":"0x');
const LOG_INDEX = ascii('","logIndex":"0x');
const CLOSE = ascii('","removed":false}');
const QUOTE_0X = ascii('"0x');
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * A matched log, as offsets into its raw record. scanRecord reuses one object from log to log: a
 * renderer reads it during render() and keeps nothing.
 */
export interface RecordLog {
  /** Position in the block. */
  logIndex: number;
  txIndex: number;
  /** Offset of the 20-byte address. */
  addressOffset: number;
  /** How many topics the log has (at most 4). */
  topicCount: number;
  /** Per topic, the offset of its dictionary entry: a length byte, then the topic without leading zeros. */
  topicOffsets: Int32Array;
  /** Offset of the stored data. */
  dataStart: number;
  /** Length of the data once decoded. */
  dataLength: number;
  /** Whether the data is stored as 32-byte words, each a length byte then the word without leading zeros. */
  dataWords: boolean;
}

/** Renders the matches of a record scan into an output other than JSON text (protobuf messages). */
export interface RecordRenderer {
  /** Renders one matched log of `block`, whose hash and timestamp are read once per block. */
  render(raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void;
}

/**
 * Renders every log in `raw` that matches `q` into `out`, in order: as JSON into a JsonSink
 * (comma-separated, a comma before each log when the sink is not empty), or through a
 * RecordRenderer; returns how many matched. Returns 0 at once when the block's address table holds
 * none of the filter's addresses. (Each output has its own call site, so both stay monomorphic.)
 */
export function scanRecord(raw: Buffer, q: RecordQuery, block: RecordBlock, out: JsonSink | RecordRenderer): number {
  let pos = 0;
  const varint = (): number => {
    const value = readVarint(raw, pos);
    pos = varintEnd;
    return value;
  };

  const addressCount = varint();
  const addressBase = pos;
  pos += addressCount * 20;
  let addressOk: Uint8Array | undefined;
  if (q.addresses.length > 0) {
    addressOk = new Uint8Array(addressCount);
    let any = false;
    for (const a of q.addresses) {
      let lo = 0;
      let hi = addressCount - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const off = addressBase + mid * 20;
        const c = raw.compare(a, 0, 20, off, off + 20);
        if (c === 0) {
          addressOk[mid] = 1;
          any = true;
          break;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    if (!any) return 0;
  }

  const topicCount = varint();
  const topicOffsets = new Int32Array(topicCount);
  for (let i = 0; i < topicCount; i++) {
    topicOffsets[i] = pos;
    pos += 1 + raw[pos]!;
  }
  const positions = q.topics.length;
  const memo = positions > 0 ? new Int8Array(topicCount * positions) : undefined;
  const topicMatches = (position: number, index: number): boolean => {
    const cell = index * positions + position;
    const known = memo![cell]!;
    if (known !== 0) return known > 0;
    const off = topicOffsets[index]!;
    const len = raw[off]!;
    let ok = false;
    for (const alt of q.topics[position]!) {
      if (alt.length === len && raw.compare(alt, 0, len, off + 1, off + 1 + len) === 0) {
        ok = true;
        break;
      }
    }
    memo![cell] = ok ? 1 : -1;
    return ok;
  };

  let blockHash: Uint8Array | undefined;
  let timestamp = 0;
  const log: RecordLog = {
    logIndex: 0,
    txIndex: 0,
    addressOffset: 0,
    topicCount: 0,
    topicOffsets: new Int32Array(4),
    dataStart: 0,
    dataLength: 0,
    dataWords: false,
  };
  const logTopics = log.topicOffsets;
  const logCount = varint();
  let matched = 0;
  for (let logIndex = 0; logIndex < logCount; logIndex++) {
    const txIndex = varint();
    const addressIndex = varint();
    const n = raw[pos++]!;
    let ok = addressOk === undefined || addressOk[addressIndex] === 1;
    if (ok && n < positions) ok = false;
    for (let t = 0; t < n; t++) {
      const index = varint();
      if (t < 4) logTopics[t] = topicOffsets[index]!;
      if (ok && t < positions && q.topics[t] !== null && !topicMatches(t, index)) ok = false;
    }
    const tag = varint();
    const length = Math.floor(tag / 2);
    const dataStart = pos;
    if (tag % 2 === 0) pos += length;
    else for (let w = 0; w < length; w += 32) pos += 1 + raw[pos]!;
    if (!ok) continue;

    if (blockHash === undefined) {
      if (block.keep) raw = block.keep(raw);
      blockHash = block.hash();
      timestamp = block.timestamp();
    }
    log.logIndex = logIndex;
    log.txIndex = txIndex;
    log.addressOffset = addressBase + addressIndex * 20;
    log.topicCount = n;
    log.dataStart = dataStart;
    log.dataLength = length;
    log.dataWords = tag % 2 === 1;
    if (out instanceof JsonSink) renderJson(out, raw, log, block, blockHash, timestamp);
    else out.render(raw, log, block, blockHash, timestamp);
    matched++;
  }
  return matched;
}

/** Writes one log object, in geth's field order plus blockTimestamp. */
function renderJson(out: JsonSink, raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void {
  if (out.length > 0 && !out.lines) out.byte(COMMA);
  out.bytes(OPEN);
  out.hex(raw, log.addressOffset, log.addressOffset + 20);
  out.bytes(TOPICS);
  for (let t = 0; t < log.topicCount; t++) {
    if (t > 0) out.byte(COMMA);
    const off = log.topicOffsets[t]!;
    const len = raw[off]!;
    out.bytes(QUOTE_0X);
    out.zeros(64 - 2 * len);
    out.hex(raw, off + 1, off + 1 + len);
    out.byte(QUOTE);
  }
  out.bytes(DATA);
  if (!log.dataWords) {
    out.hex(raw, log.dataStart, log.dataStart + log.dataLength);
  } else {
    for (let p = log.dataStart, w = 0; w < log.dataLength; w += 32) {
      const len = raw[p]!;
      out.zeros(64 - 2 * len);
      out.hex(raw, p + 1, p + 1 + len);
      p += 1 + len;
    }
  }
  out.bytes(NUMBER);
  out.number(block.number);
  out.bytes(TX_HASH);
  const tx = block.txHash(log.txIndex);
  out.hex(tx, 0, 32);
  out.bytes(TX_INDEX);
  out.number(log.txIndex);
  out.bytes(BLOCK_HASH);
  out.hex(blockHash, 0, 32);
  out.bytes(TIMESTAMP);
  out.number(timestamp);
  out.bytes(LOG_INDEX);
  out.number(log.logIndex);
  out.bytes(CLOSE);
  if (out.lines) out.endLine(block.number, log.logIndex);
}
