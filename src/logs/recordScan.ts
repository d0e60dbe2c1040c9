/**
 * The worker's fast path: matches a filter against a block's raw logs record (store/logsRecord.ts
 * layout) and renders each match, from offsets into the record, without decoding logs into
 * objects. Addresses match by table index, topics by dictionary index (memoised per block). Matches
 * render as JSON text into a JsonSink (render/logJson.ts), or go to a RecordRenderer
 * (render/logProto.ts: protobuf).
 */

import { stripLeadingZeros } from '../chain/hex.js';
import { readVarint, varintEnd } from '../chain/varint.js';
import { LogJsonBlock } from '../render/logJson.js';
import type { RecordBlock, RecordLog, RecordRenderer } from '../render/recordLog.js';
import { JsonSink } from './jsonSink.js';

/** A filter prepared for raw-record scanning. */
export interface RecordQuery {
  /** Sorted-or-not 20-byte addresses; empty: any. */
  addresses: Uint8Array[];
  /** Per position: null is a wildcard, else the alternatives with leading zeros stripped. */
  topics: (Buffer[] | null)[];
}

/** The JSON writer of the block a scan on this thread renders (scans run one at a time). */
const jsonLogs = new LogJsonBlock();

/** The character between two logs of a comma-separated answer. */
const COMMA = 0x2c;

function strip(bytes: Uint8Array): Buffer {
  return Buffer.from(stripLeadingZeros(bytes));
}

/** Prepares a filter's addresses and topics for scanRecord. */
export function prepareRecordQuery(addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): RecordQuery {
  return { addresses, topics: topics.map((p) => (p ? p.map(strip) : null)) };
}

/**
 * Arrays scanRecord reuses from call to call, grown as a record needs: the scans of a thread run one
 * at a time and synchronously, and a typed array allocated per block costs more than the walk of a
 * small block's record.
 */
const scratch = {
  /** Per address of the record's table: 1 when the filter names it. */
  addressNamed: new Uint8Array(64),
  /** Where each topic of the record's dictionary starts. */
  topicOffsets: new Int32Array(256),
  /** Per (dictionary topic, filter position): 0 unknown, 1 matches, -1 does not. */
  topicMemo: new Int8Array(1024),
};

/** `array`, or a larger one of the same kind when it holds fewer than `size` elements. */
function atLeast<T extends Uint8Array | Int8Array | Int32Array>(array: T, size: number, make: (size: number) => T): T {
  return array.length >= size ? array : make(Math.max(size, 2 * array.length));
}

const newUint8Array = (size: number) => new Uint8Array(size);
const newInt32Array = (size: number) => new Int32Array(size);
const newInt8Array = (size: number) => new Int8Array(size);

/**
 * The order of `raw[off, off + 20)` against the 20-byte `address`: negative, zero or positive (a loop: a native compare
 * costs more for 20 bytes).
 */
function compareAddressAt(raw: Uint8Array, off: number, address: Uint8Array): number {
  for (let i = 0; i < 20; i++) {
    const d = raw[off + i]! - address[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Whether `raw[off, off + value.length)` equals `value`. */
function equalAt(raw: Uint8Array, off: number, value: Uint8Array): boolean {
  for (let i = 0; i < value.length; i++) if (raw[off + i] !== value[i]) return false;
  return true;
}

/**
 * Marks in `named` the entries of the record's sorted address table (`count` at `base`) that `addresses` name; whether
 * any is.
 */
function markNamedAddresses(
  raw: Uint8Array,
  base: number,
  count: number,
  addresses: Uint8Array[],
  named: Uint8Array,
): boolean {
  let any = false;
  for (const a of addresses) {
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = compareAddressAt(raw, base + mid * 20, a);
      if (c === 0) {
        named[mid] = 1;
        any = true;
        break;
      }
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return any;
}

/**
 * Whether dictionary topic `index` (at `offset`: a length byte, then the stripped bytes) is one of
 * `alternatives`, remembered in `memo` at `cell`.
 */
function topicIs(raw: Uint8Array, offset: number, alternatives: Buffer[], memo: Int8Array, cell: number): boolean {
  const known = memo[cell]!;
  if (known !== 0) return known > 0;
  const len = raw[offset]!;
  let ok = false;
  for (const alt of alternatives) {
    if (alt.length === len && equalAt(raw, offset + 1, alt)) {
      ok = true;
      break;
    }
  }
  memo[cell] = ok ? 1 : -1;
  return ok;
}

/**
 * Marks in scratch.addressNamed the entries of the record's address table (`count` at `base`) that
 * `addresses` name; whether any is.
 */
function markAddressTable(raw: Uint8Array, base: number, count: number, addresses: Uint8Array[]): boolean {
  const named = (scratch.addressNamed = atLeast(scratch.addressNamed, count, newUint8Array));
  named.fill(0, 0, count);
  return markNamedAddresses(raw, base, count, addresses, named);
}

/** Records in scratch.topicOffsets where each of the `count` dictionary topics at `pos` starts; returns the end. */
function indexTopicDictionary(raw: Uint8Array, pos: number, count: number): number {
  const topicOffsets = (scratch.topicOffsets = atLeast(scratch.topicOffsets, count, newInt32Array));
  for (let i = 0; i < count; i++) {
    topicOffsets[i] = pos;
    pos += 1 + raw[pos]!;
  }
  return pos;
}

/** Clears scratch.topicMemo for `cells` (dictionary topic, filter position) pairs. */
function clearTopicMemo(cells: number): Int8Array {
  const memo = (scratch.topicMemo = atLeast(scratch.topicMemo, cells, newInt8Array));
  memo.fill(0, 0, cells);
  return memo;
}

/** The RecordLog a scan fills in for each match (one per scan, reused from match to match). */
function emptyRecordLog(): RecordLog {
  return {
    logIndex: 0,
    txIndex: 0,
    addressOffset: 0,
    addressIndex: 0,
    topicCount: 0,
    topicOffsets: new Int32Array(4),
    topicIndices: new Int32Array(4),
    dataStart: 0,
    dataLength: 0,
    dataWords: false,
  };
}

/** The offset after a log's data at `pos`, whose varint tag is `tag` (even: raw bytes, odd: stripped 32-byte words). */
function skipLogData(raw: Uint8Array, pos: number, tag: number): number {
  const length = Math.floor(tag / 2);
  if (tag % 2 === 0) return pos + length;
  for (let w = 0; w < length; w += 32) pos += 1 + raw[pos]!;
  return pos;
}

/**
 * Renders every log in `raw` that matches `q` into `out`, in order: as JSON into a JsonSink
 * (comma-separated, a comma before each log when the sink is not empty), or through a
 * RecordRenderer; returns how many matched. Returns 0 at once when the block's address table holds
 * none of the filter's addresses. (Each output has its own call site, so both stay monomorphic.)
 * The position in the record is a plain local, read and advanced in place (a closure over it would
 * keep it in memory, not in a register).
 */
export function scanRecord(raw: Buffer, q: RecordQuery, block: RecordBlock, out: JsonSink | RecordRenderer): number {
  const addressCount = readVarint(raw, 0);
  let pos = varintEnd;
  const addressBase = pos;
  pos += addressCount * 20;
  let addressNamed: Uint8Array | undefined;
  if (q.addresses.length > 0) {
    if (!markAddressTable(raw, addressBase, addressCount, q.addresses)) return 0;
    addressNamed = scratch.addressNamed;
  }

  const topicCount = readVarint(raw, pos);
  pos = indexTopicDictionary(raw, varintEnd, topicCount);
  const topicOffsets = scratch.topicOffsets;
  const positions = q.topics.length;
  const memo = clearTopicMemo(topicCount * positions);

  let blockHash: Uint8Array | undefined;
  let timestamp = 0;
  const log = emptyRecordLog();
  const logTopics = log.topicOffsets;
  const logTopicIndices = log.topicIndices;
  const logCount = readVarint(raw, pos);
  pos = varintEnd;
  let matched = 0;
  for (let logIndex = 0; logIndex < logCount; logIndex++) {
    const txIndex = readVarint(raw, pos);
    const addressIndex = readVarint(raw, varintEnd);
    pos = varintEnd;
    const n = raw[pos++]!;
    let ok = (addressNamed === undefined || addressNamed[addressIndex] === 1) && n >= positions;
    for (let t = 0; t < n; t++) {
      const index = readVarint(raw, pos);
      pos = varintEnd;
      if (t < 4) {
        logTopics[t] = topicOffsets[index]!;
        logTopicIndices[t] = index;
      }
      if (ok && t < positions) {
        const alternatives = q.topics[t];
        if (alternatives !== null && !topicIs(raw, topicOffsets[index]!, alternatives!, memo, index * positions + t)) {
          ok = false;
        }
      }
    }
    const tag = readVarint(raw, pos);
    const dataStart = varintEnd;
    pos = skipLogData(raw, dataStart, tag);
    if (!ok) continue;

    if (blockHash === undefined) {
      if (block.keep) raw = block.keep(raw);
      blockHash = block.hash();
      timestamp = block.timestamp();
      if (out instanceof JsonSink) jsonLogs.begin(block, blockHash, timestamp, addressCount, topicCount);
    }
    log.logIndex = logIndex;
    log.txIndex = txIndex;
    log.addressOffset = addressBase + addressIndex * 20;
    log.addressIndex = addressIndex;
    log.topicCount = n;
    log.dataStart = dataStart;
    log.dataLength = Math.floor(tag / 2);
    log.dataWords = tag % 2 === 1;
    if (out instanceof JsonSink) {
      if (out.length > 0 && !out.lines) out.byte(COMMA);
      jsonLogs.write(out, raw, log);
      if (out.lines) out.endLine(block.number, log.logIndex);
    } else out.render(raw, log, block, blockHash, timestamp);
    matched++;
  }
  return matched;
}
