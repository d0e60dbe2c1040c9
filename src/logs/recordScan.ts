/**
 * The worker's fast path: matches a filter against a block's raw logs record (store/logsRecord.ts
 * layout) and renders each match, from offsets into the record, without decoding logs into
 * objects. Addresses match by table index, topics by dictionary index (memoised per block). Matches
 * render as JSON text into a JsonSink (render/logJson.ts), or go to a RecordRenderer
 * (render/logProto.ts: protobuf).
 */
import { JsonSink } from './jsonSink.js';
import { writeLogJson } from '../render/logJson.js';
import type { RecordBlock, RecordLog, RecordRenderer } from '../render/recordLog.js';
import { readVarint, varintEnd } from '../chain/varint.js';

/** A filter prepared for raw-record scanning. */
export interface RecordQuery {
  /** Sorted-or-not 20-byte addresses; empty: any. */
  addresses: Uint8Array[];
  /** Per position: null is a wildcard, else the alternatives with leading zeros stripped. */
  topics: (Buffer[] | null)[];
}

/** The character between two logs of a comma-separated answer. */
const COMMA = 0x2c;

function strip(bytes: Uint8Array): Buffer {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return Buffer.from(bytes.subarray(i));
}

/** Prepares a filter's addresses and topics for scanRecord. */
export function prepareRecordQuery(addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): RecordQuery {
  return { addresses, topics: topics.map((p) => (p ? p.map(strip) : null)) };
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
    if (out instanceof JsonSink) {
      if (out.length > 0 && !out.lines) out.byte(COMMA);
      writeLogJson(out, raw, log, block, blockHash, timestamp);
      if (out.lines) out.endLine(block.number, log.logIndex);
    }
    else out.render(raw, log, block, blockHash, timestamp);
    matched++;
  }
  return matched;
}

