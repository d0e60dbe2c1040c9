/**
 * The ascending byte order of a set of keys of one length, found with the engine's native sort of
 * 64-bit integers rather than with a comparison callback per pair (which, over a write
 * transaction's 100,000 random keys, costs more than ordering the puts saves). A pass orders keys
 * by five of their bytes; keys that tie there are ordered by the next five, and so on. Most keys
 * are hashes, which the first pass sets apart; the storage keys of one contract share its 20-byte
 * address, and the passes over it only find that they do.
 */
import { endianness } from 'node:os';

/** Key bytes one pass orders by: five (40 bits), leaving a sort word's low 24 bits for the key's place in its run. */
const BYTES_PER_PASS = 5;
/** Bits of a sort word below the key bytes: the key's place in its run, which keeps equal keys in the order given. */
const PLACE_BITS = 24;
/** Most keys ordered at once: a key's place must fit in PLACE_BITS. */
export const MAX_ORDERED_KEYS = 2 ** PLACE_BITS;
/** Runs this short are ordered by insertion (comparing the bytes after those they share): a pass costs more. */
const INSERTION_RUN = 8;
/** Which half of a 64-bit sort word, seen as two u32 words, holds its low 32 bits. */
const LOW = endianness() === 'LE' ? 0 : 1;
const HIGH = 1 - LOW;

/**
 * The indexes of `keys`, all of one length, in the keys' ascending byte order (LMDB's order);
 * equal keys keep their order in `keys`. At most MAX_ORDERED_KEYS keys.
 */
export function keyOrder(keys: readonly Uint8Array[]): Uint32Array {
  if (keys.length > MAX_ORDERED_KEYS) throw new RangeError(`cannot order ${keys.length} keys, at most ${MAX_ORDERED_KEYS}`);
  const ordering = new Ordering(keys);
  ordering.orderRun(0, keys.length, 0);
  return ordering.order;
}

/** One keyOrder call: the keys, the order being found, and the arrays its passes share (a run's pass uses the run's slice of them). */
class Ordering {
  /** The indexes of the keys, ordered run by run. */
  readonly order: Uint32Array;
  /** Every key's length. */
  private readonly width: number;
  /** One sort word per key: BYTES_PER_PASS key bytes above the key's place in its run. */
  private readonly words: BigUint64Array;
  /** The sort words as u32 halves (HIGH and LOW of each). */
  private readonly halves: Uint32Array;
  /** A run's order before its pass, read back through the places the sorted words hold. */
  private readonly given: Uint32Array;

  constructor(private readonly keys: readonly Uint8Array[]) {
    const count = keys.length;
    this.width = count > 0 ? keys[0]!.length : 0;
    this.order = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      if (keys[i]!.length !== this.width) throw new RangeError(`keys of ${this.width} and ${keys[i]!.length} bytes: keyOrder orders keys of one length`);
      this.order[i] = i;
    }
    this.words = new BigUint64Array(count);
    this.halves = new Uint32Array(this.words.buffer);
    this.given = new Uint32Array(count);
  }

  /** Orders order[from, to), whose keys agree on their first `offset` bytes, by the bytes after. */
  orderRun(from: number, to: number, offset: number): void {
    const { keys, order, width, halves, given } = this;
    if (to - from <= INSERTION_RUN) return this.insertionOrder(from, to, offset);
    for (; offset < width; offset += BYTES_PER_PASS) {
      const first = keys[order[from]!]!;
      const firstHigh = high(first, offset);
      const firstLow = byteAt(first, offset + 4);
      let tied = true;
      for (let i = from; i < to; i++) {
        const key = keys[order[i]!]!;
        const h = high(key, offset);
        const l = byteAt(key, offset + 4);
        halves[2 * i + HIGH] = h;
        halves[2 * i + LOW] = ((l << PLACE_BITS) | (i - from)) >>> 0;
        tied &&= h === firstHigh && l === firstLow;
      }
      // Bytes every key of the run shares (the rest of a contract's address) need no sorting.
      if (tied) continue;
      this.words.subarray(from, to).sort();
      given.set(order.subarray(from, to), from);
      for (let i = from; i < to; i++) order[i] = given[from + (halves[2 * i + LOW]! & (MAX_ORDERED_KEYS - 1))]!;
      if (offset + BYTES_PER_PASS >= width) return;
      // A tie run's own passes rewrite only its slice of the words, which this scan has passed.
      let start = from;
      for (let i = from + 1; i <= to; i++) {
        const tie = i < to && halves[2 * i + HIGH] === halves[2 * i - 2 + HIGH] && halves[2 * i + LOW]! >>> PLACE_BITS === halves[2 * i - 2 + LOW]! >>> PLACE_BITS;
        if (tie) continue;
        if (i - start > 1) this.orderRun(start, i, offset + BYTES_PER_PASS);
        start = i;
      }
      return;
    }
  }

  /** Orders order[from, to), whose keys agree on their first `offset` bytes, by the bytes after, by insertion (stable: a key moves only past greater ones). */
  private insertionOrder(from: number, to: number, offset: number): void {
    const { keys, order, width } = this;
    for (let i = from + 1; i < to; i++) {
      const index = order[i]!;
      const key = keys[index]!;
      let j = i;
      for (; j > from; j--) {
        const other = keys[order[j - 1]!]!;
        let b = offset;
        while (b < width && other[b] === key[b]) b++;
        if (b === width || other[b]! < key[b]!) break;
        order[j] = order[j - 1]!;
      }
      order[j] = index;
    }
  }
}

/** Bytes at..at+3 of a key as a big-endian u32, bytes past its end read as zeros. */
function high(key: Uint8Array, at: number): number {
  return ((byteAt(key, at) << 24) | (byteAt(key, at + 1) << 16) | (byteAt(key, at + 2) << 8) | byteAt(key, at + 3)) >>> 0;
}

/** A key's byte at `i`, or 0 past its end. */
function byteAt(key: Uint8Array, i: number): number {
  return i < key.length ? key[i]! : 0;
}
