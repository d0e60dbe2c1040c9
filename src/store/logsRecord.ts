/**
 * The compact record holding all logs of one block, as an encode/decode pair.
 *
 * Layout: the block's distinct addresses, sorted (so an address filter rejects a block with a
 * binary search); a dictionary of the distinct topics, sorted, each with leading zero bytes
 * stripped; then each log as (tx index, address index, topic indexes, data). Data whose length is
 * a multiple of 32 is stored word by word with leading zeros stripped (ABI words are mostly zeros).
 */
import { compareBytes, stripLeadingZeros } from '../chain/hex.js';
import type { Log } from '../chain/types.js';
import { readVarint, varintEnd } from '../chain/varint.js';
import { ByteReader, ByteWriter } from './bytes.js';

/** Bytes of an address in the record's address table. */
const ADDRESS_BYTES = 20;

/** A log's data, in the word form when it is whole words (the scans and renderers read such data word by word). */
function writeData(w: ByteWriter, data: Uint8Array): void {
  w.words(data, data.length > 0 && data.length % 32 === 0);
}

function readData(r: ByteReader): Uint8Array {
  return r.words();
}

/**
 * The distinct values (by bytes) among `arrays`, sorted, and the index of each array in that order.
 * The arrays are distinct by identity (a block's logs share their contracts' and events' arrays),
 * sorted by bytes, and equal neighbours merged: no text keys.
 */
function dictionary(arrays: Set<Uint8Array>): { sorted: Uint8Array[]; index: Map<Uint8Array, number> } {
  const byBytes = [...arrays].sort(compareBytes);
  const sorted: Uint8Array[] = [];
  const index = new Map<Uint8Array, number>();
  for (const a of byBytes) {
    const last = sorted[sorted.length - 1];
    if (last === undefined || compareBytes(last, a) !== 0) sorted.push(a);
    index.set(a, sorted.length - 1);
  }
  return { sorted, index };
}

/** Encodes a block's logs (in log-index order) into one record. */
export function encodeLogs(logs: Log[]): Buffer {
  const w = new ByteWriter(256 + logs.length * 96);
  writeLogs(w, logs);
  return w.finish();
}

/** Writes a block's logs record (encodeLogs's bytes) to `w`. */
export function writeLogs(w: ByteWriter, logs: Log[]): void {
  const addressArrays = new Set<Uint8Array>();
  const topicArrays = new Set<Uint8Array>();
  for (const log of logs) {
    addressArrays.add(log.address);
    for (const t of log.topics) topicArrays.add(t);
  }
  const { sorted: addresses, index: addressIndex } = dictionary(addressArrays);
  const { sorted: topics, index: topicIndex } = dictionary(topicArrays);
  w.varint(addresses.length);
  for (const a of addresses) w.fixed(a);
  w.varint(topics.length);
  for (const t of topics) {
    const s = stripLeadingZeros(t);
    w.u8(s.length).fixed(s);
  }
  w.varint(logs.length);
  for (const log of logs) {
    w.varint(log.txIndex).varint(addressIndex.get(log.address)!).u8(log.topics.length);
    for (const t of log.topics) w.varint(topicIndex.get(t)!);
    writeData(w, log.data);
  }
}

/** Decodes a logs record back into the block's logs, in log-index order. */
export function decodeLogs(bytes: Uint8Array): Log[] {
  const r = new ByteReader(bytes);
  const addresses = Array.from({ length: r.varint() }, () => r.fixed(20));
  const topics = Array.from({ length: r.varint() }, () => {
    const n = r.u8();
    const t = new Uint8Array(32);
    t.set(r.fixed(n), 32 - n);
    return t;
  });
  return Array.from({ length: r.varint() }, (): Log => {
    const txIndex = r.varint();
    const address = addresses[r.varint()]!;
    const logTopics = Array.from({ length: r.u8() }, () => topics[r.varint()]!);
    return { address, topics: logTopics, data: readData(r), txIndex };
  });
}

/**
 * The sorted distinct-address table at the front of a logs record, the 20-byte addresses
 * concatenated: a view of the record, nothing decoded.
 */
export function logAddressTable(record: Uint8Array): Uint8Array {
  const count = readVarint(record, 0);
  return record.subarray(varintEnd, varintEnd + count * ADDRESS_BYTES);
}

/**
 * Whether a sorted table of 20-byte addresses (logAddressTable) holds any of `addresses`, by
 * binary search: the cheap rejection of a block before its logs are scanned.
 */
export function addressTableHas(table: Uint8Array, addresses: Uint8Array[]): boolean {
  const count = Math.floor(table.length / ADDRESS_BYTES);
  const buf = Buffer.from(table.buffer, table.byteOffset, table.byteLength);
  for (const address of addresses) {
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const off = mid * ADDRESS_BYTES;
      const c = buf.compare(address, 0, ADDRESS_BYTES, off, off + ADDRESS_BYTES);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return false;
}
