/**
 * The record holding all transaction records of one block (the txs database's value), as an
 * encode/decode pair. One value a block, not one entry a transaction: an entry costs LMDB about
 * 37 bytes beyond its record (node header, key, page slack), a block's record one overflow page's
 * slack; and a transaction's sender or recipient that an earlier transaction of the block named
 * (a third of senders, two fifths of recipients at mainnet density) is kept as a reference.
 *
 * Layout: varint count; then per transaction a varint length and that many bytes: the record of
 * TxForm.Stored (codec.ts) with its `from` and `to` (when TxFlag.To) each replaced by a varint
 * reference: 0 and the 20 bytes, or the offset in this value of an earlier such 20 bytes, plus 1.
 * A reader expands a transaction back into its TxForm.Stored record (BlockTxsReader).
 */
import { readVarintWithin, varintEnd, varintSize } from '../chain/varint.js';
import { ByteWriter } from './bytes.js';
import { TxFlag } from './codec.js';

/** Bytes of an address. */
const ADDRESS_BYTES = 20;
/** Where `from` starts in a TxForm.Stored record: after its type and flags bytes. */
const FROM_AT = 2;
/** Where `to` starts in a TxForm.Stored record that has one. */
const TO_AT = FROM_AT + ADDRESS_BYTES;
/** A reference that says the address's 20 bytes follow it. */
const LITERAL = 0;

/**
 * The literal addresses of the value being written: an address's hash → k, and the k-th literal's offset in the value
 * and in the records' bytes (reused from block to block).
 */
const seen = new Map<number, number>();
const literalOffsets: number[] = [];
const literalSources: number[] = [];

/** A hash of the 20 bytes at `bytes[at]` (a Map key; equal hashes are confirmed byte by byte). */
function addressHash(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 18]! << 8) | bytes[at + 19]!) ^
    ((bytes[at + 8]! << 16) | (bytes[at + 9]! << 8) | bytes[at + 10]!)
  );
}

function sameAddress(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): boolean {
  for (let i = 0; i < ADDRESS_BYTES; i++) if (a[aAt + i] !== b[bAt + i]) return false;
  return true;
}

/**
 * Writes a block's transaction records (TxForm.Stored, in order; record i is `bytes[ends[i−1], ends[i])`, the first
 * from 0) to `w` as one block record.
 */
export function writeBlockTxs(w: ByteWriter, bytes: Uint8Array, ends: readonly number[]): void {
  const base = w.length;
  seen.clear();
  literalOffsets.length = 0;
  literalSources.length = 0;
  w.varint(ends.length);
  let start = 0;
  for (const end of ends) {
    const hasTo = (bytes[start + 1]! & TxFlag.To) !== 0;
    const restAt = start + (hasTo ? TO_AT + ADDRESS_BYTES : TO_AT);
    const fromRef = reference(bytes, start + FROM_AT);
    const toRef = hasTo ? reference(bytes, start + TO_AT) : LITERAL;
    const refBytes = refSize(fromRef) + (hasTo ? refSize(toRef) : 0);
    const length = FROM_AT + refBytes + (end - restAt);
    w.varint(length).range(bytes, start, start + FROM_AT);
    writeRef(w, base, bytes, start + FROM_AT, fromRef);
    if (hasTo) writeRef(w, base, bytes, start + TO_AT, toRef);
    w.range(bytes, restAt, end);
    start = end;
  }
}

/** The reference for the address at `bytes[at]`: an earlier one's value offset + 1, or LITERAL. */
function reference(bytes: Uint8Array, at: number): number {
  const k = seen.get(addressHash(bytes, at));
  return k !== undefined && sameAddress(bytes, literalSources[k]!, bytes, at) ? literalOffsets[k]! + 1 : LITERAL;
}

function refSize(ref: number): number {
  return ref === LITERAL ? 1 + ADDRESS_BYTES : varintSize(ref);
}

function writeRef(w: ByteWriter, base: number, bytes: Uint8Array, at: number, ref: number): void {
  w.varint(ref);
  if (ref !== LITERAL) return;
  seen.set(addressHash(bytes, at), literalOffsets.length);
  literalOffsets.push(w.length - base);
  literalSources.push(at);
  w.range(bytes, at, at + ADDRESS_BYTES);
}

/** Encodes a block's transaction records (TxForm.Stored, in order) as one block record. */
export function encodeBlockTxs(records: readonly Uint8Array[]): Buffer {
  const all = Buffer.concat(records);
  const ends: number[] = [];
  let end = 0;
  for (const r of records) ends.push((end += r.length));
  const w = new ByteWriter(64 + all.length);
  writeBlockTxs(w, all, ends);
  return w.finish();
}

/**
 * Reads transaction records out of a block record, expanded into their TxForm.Stored bytes: load
 * a record, then ask for transactions by index (in order, each costs a step; out of order, the
 * walk starts again). A record returned is a view of the reader's own buffer, valid until its next
 * record() call; the loaded bytes must stay as they are meanwhile. Its reads stay within the
 * value, so a damaged record gives undefined, not a hang; decodeBlockTxs checks a record whole.
 */
export class BlockTxsReader {
  private raw: Uint8Array = new Uint8Array(0);
  /** Transactions in the loaded record. */
  count = 0;
  private first = 0;
  /** The index of the transaction at `at`. */
  private index = 0;
  private at = 0;
  private out = new Uint8Array(512);

  /** Where the transaction after the last one read starts (the record's length once all are read). */
  get end(): number {
    return this.at;
  }

  /** Loads a block record (kept as a view: the caller keeps the bytes). */
  load(raw: Uint8Array): this {
    this.raw = raw;
    const count = readVarintWithin(raw, 0, raw.length);
    this.count = Math.max(0, count);
    this.first = count < 0 ? 0 : varintEnd;
    this.index = 0;
    this.at = this.first;
    return this;
  }

  /** Transaction `i`'s TxForm.Stored record (a view, see the class); undefined when the block has no such index. */
  record(i: number): Uint8Array | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.count) return undefined;
    const raw = this.raw;
    if (i < this.index) {
      this.index = 0;
      this.at = this.first;
    }
    // Bounded reads: a damaged record ends the walk (undefined) instead of reading past the value.
    while (this.index < i) {
      const length = readVarintWithin(raw, this.at, raw.length);
      if (length < 0) return undefined;
      this.at = varintEnd + length;
      this.index++;
    }
    const length = readVarintWithin(raw, this.at, raw.length);
    const start = varintEnd;
    const end = start + length;
    if (length < FROM_AT + 1 || end > raw.length) return undefined;
    this.index = i + 1;
    this.at = end;
    return this.expand(start, end);
  }

  /** Expands the stored transaction at `raw[start, end)` into `out` (undefined when its addresses are damaged). */
  private expand(start: number, end: number): Uint8Array | undefined {
    const raw = this.raw;
    if (this.out.length < end - start + 2 * ADDRESS_BYTES) this.out = new Uint8Array(2 * (end - start) + 64);
    const out = this.out;
    out[0] = raw[start]!;
    out[1] = raw[start + 1]!;
    const hasTo = (raw[start + 1]! & TxFlag.To) !== 0;
    let p = this.address(start + FROM_AT, FROM_AT, end);
    let o = TO_AT;
    if (hasTo && p >= 0) {
      p = this.address(p, TO_AT, end);
      o += ADDRESS_BYTES;
    }
    if (p < 0) return undefined;
    out.set(raw.subarray(p, end), o);
    return out.subarray(0, o + end - p);
  }

  /**
   * Copies the address the reference at `raw[p]` names to `out[o]`; returns where the reference ends (−1 when it or
   * its address runs past `end`).
   */
  private address(p: number, o: number, end: number): number {
    const raw = this.raw;
    const ref = readVarintWithin(raw, p, end);
    const after = varintEnd;
    const at = ref === LITERAL ? after : ref - 1;
    // A reference names bytes before it (as the writer makes them), a literal lies within its transaction.
    if (ref < 0 || at + ADDRESS_BYTES > (ref === LITERAL ? end : p)) return -1;
    this.out.set(raw.subarray(at, at + ADDRESS_BYTES), o);
    return ref === LITERAL ? after + ADDRESS_BYTES : after;
  }
}

/**
 * Decodes a block record into its transactions' TxForm.Stored records (copies), checking it as
 * untrusted bytes: throws RangeError on a damaged record.
 */
export function decodeBlockTxs(raw: Uint8Array): Uint8Array[] {
  if (readVarintWithin(raw, 0, raw.length) < 0) throw new RangeError('the transaction count is damaged');
  const reader = new BlockTxsReader().load(raw);
  const out: Uint8Array[] = [];
  for (let i = 0; i < reader.count; i++) {
    const record = reader.record(i);
    if (record === undefined) throw new RangeError(`transaction ${i} is damaged or runs past its record`);
    out.push(Uint8Array.from(record));
  }
  if (reader.end !== raw.length) throw new RangeError('bytes after the last transaction');
  return out;
}
