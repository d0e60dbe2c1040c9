/**
 * The rate limiter's token buckets in one SharedArrayBuffer, so every thread that serves requests
 * (the HTTP threads, the gRPC front) spends from the same bucket of a key: a fixed-capacity
 * open-addressing table (linear probing) keyed by 128 bits of a key id's sha256, each slot holding
 * the bucket's tokens, the time they were counted at, and its insertion number (the age eviction
 * goes by). One SharedMutex guards the whole table: a request holds it for a lookup and a few
 * arithmetic operations (well under a microsecond), far less than the request itself costs, so
 * the threads hardly ever meet there, and plain (non-atomic) reads and writes under it are
 * ordered by its atomic operations.
 */
import { hash } from 'node:crypto';
import { SharedMutex } from './sharedMutex.js';

/**
 * 32-bit words of a slot's key: 128 bits of sha256, so two ids share a bucket only by a collision no one will ever see.
 */
export const KEY_WORDS = 4;

/** A bucket's key: KEY_WORDS words of its id's sha256. */
export type BucketKey = Int32Array;

/**
 * Most buckets per slot: at half load a linear probe's expected length stays under two slots for a
 * hit and three for a miss (Knuth), for about 40 bytes per slot.
 */
const MAX_LOAD = 0.5;

/** Int32 header cells: the lock, the buckets stored, the bucket cap, the slots. */
const LOCK = 0;
const COUNT = 1;
const MAX_BUCKETS = 2;
const SLOTS = 3;
/** Float64 header cell (after the four Int32 cells): the next insertion number (1 up; 0 marks an empty slot). */
const NEXT_SEQ = 2;
/** Bytes of the header (a multiple of 8, so the Float64 arrays after it are aligned). */
const HEADER_BYTES = 24;
/** Bytes a slot takes: its key, then tokens, time and insertion number as Float64. */
const SLOT_BYTES = KEY_WORDS * 4 + 3 * 8;

/** The key of id `id`: the first KEY_WORDS words of its sha256. */
export function bucketKey(id: string): BucketKey {
  const digest = hash('sha256', id, 'buffer');
  const key = new Int32Array(KEY_WORDS);
  for (let i = 0; i < KEY_WORDS; i++) key[i] = digest.readInt32LE(i * 4);
  return key;
}

/** The smallest power of two ≥ `n`. */
function powerOfTwoAtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** A table of token buckets in a SharedArrayBuffer; every method but `size` expects the lock held (see `locked`). */
export class BucketTable {
  /** The buffer every thread's table attaches to. */
  readonly buffer: SharedArrayBuffer;
  /** The most buckets kept. */
  readonly maxBuckets: number;
  /** Tokens of each slot's bucket as of `at`. */
  readonly tokens: Float64Array;
  /** When each slot's tokens were counted (ms on the limiter's clock). */
  readonly at: Float64Array;
  private readonly header: Int32Array;
  private readonly headerF64: Float64Array;
  private readonly keys: Int32Array;
  private readonly seq: Float64Array;
  private readonly mask: number;
  private readonly mutex: SharedMutex;

  /** A new table for up to `maxBuckets` buckets, or (given `buffer`) the table another thread created in it. */
  constructor(maxBuckets: number, buffer?: SharedArrayBuffer) {
    const slots = buffer
      ? new Int32Array(buffer, 0, HEADER_BYTES / 4)[SLOTS]!
      : powerOfTwoAtLeast(Math.ceil(maxBuckets / MAX_LOAD));
    this.buffer = buffer ?? new SharedArrayBuffer(HEADER_BYTES + slots * SLOT_BYTES);
    this.header = new Int32Array(this.buffer, 0, HEADER_BYTES / 4);
    this.headerF64 = new Float64Array(this.buffer, 0, HEADER_BYTES / 8);
    if (!buffer) {
      this.header[MAX_BUCKETS] = maxBuckets;
      this.header[SLOTS] = slots;
      this.headerF64[NEXT_SEQ] = 1;
    }
    this.maxBuckets = this.header[MAX_BUCKETS]!;
    let offset = HEADER_BYTES;
    this.keys = new Int32Array(this.buffer, offset, slots * KEY_WORDS);
    offset += slots * KEY_WORDS * 4;
    this.tokens = new Float64Array(this.buffer, offset, slots);
    offset += slots * 8;
    this.at = new Float64Array(this.buffer, offset, slots);
    offset += slots * 8;
    this.seq = new Float64Array(this.buffer, offset, slots);
    this.mask = slots - 1;
    this.mutex = new SharedMutex(this.header, LOCK);
  }

  /** Buckets stored now (read without the lock). */
  get size(): number {
    return Atomics.load(this.header, COUNT);
  }

  /** Runs `fn` with the table's lock held, released however `fn` ends. */
  locked<T>(fn: () => T): T {
    this.mutex.lock();
    try {
      return fn();
    } finally {
      this.mutex.unlock();
    }
  }

  /** The slot of `key`'s bucket, or -1 when it has none. */
  find(key: BucketKey): number {
    for (let slot = key[0]! & this.mask; ; slot = (slot + 1) & this.mask) {
      if (this.seq[slot] === 0) return -1;
      if (this.keyAt(slot, key)) return slot;
    }
  }

  /** Stores a new bucket for `key` (which has none; the table has room: size < maxBuckets) and returns its slot. */
  insert(key: BucketKey, tokens: number, at: number): number {
    const seq = this.headerF64[NEXT_SEQ]!;
    this.headerF64[NEXT_SEQ] = seq + 1;
    const slot = this.place(key, tokens, at, seq);
    Atomics.add(this.header, COUNT, 1);
    return slot;
  }

  /**
   * Drops every bucket `disposable` says may go (its slot given), then the oldest of the rest until
   * at most `keep` are left, and packs the survivors again (in O(slots); callers run it once per
   * many insertions).
   */
  evict(disposable: (slot: number) => boolean, keep: number): void {
    const survivors: number[] = [];
    for (let slot = 0; slot <= this.mask; slot++) {
      if (this.seq[slot] !== 0 && !disposable(slot)) survivors.push(slot);
    }
    if (survivors.length > keep) {
      survivors.sort((a, b) => this.seq[a]! - this.seq[b]!);
      survivors.splice(0, survivors.length - keep);
    }
    const kept = survivors.map((slot) => ({
      key: this.keys.slice(slot * KEY_WORDS, (slot + 1) * KEY_WORDS),
      tokens: this.tokens[slot]!,
      at: this.at[slot]!,
      seq: this.seq[slot]!,
    }));
    this.seq.fill(0);
    for (const bucket of kept) this.place(bucket.key, bucket.tokens, bucket.at, bucket.seq);
    Atomics.store(this.header, COUNT, kept.length);
  }

  /** Writes a bucket into the first free slot of `key`'s probe sequence; returns the slot. */
  private place(key: BucketKey, tokens: number, at: number, seq: number): number {
    let slot = key[0]! & this.mask;
    while (this.seq[slot] !== 0) slot = (slot + 1) & this.mask;
    this.keys.set(key, slot * KEY_WORDS);
    this.tokens[slot] = tokens;
    this.at[slot] = at;
    this.seq[slot] = seq;
    return slot;
  }

  /** True when `slot` holds `key`. */
  private keyAt(slot: number, key: BucketKey): boolean {
    const base = slot * KEY_WORDS;
    for (let i = 0; i < KEY_WORDS; i++) if (this.keys[base + i] !== key[i]) return false;
    return true;
  }
}
