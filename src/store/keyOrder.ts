/**
 * The ascending byte order of a set of keys of one length, found with the engine's native sort of
 * 64-bit integers rather than with a comparison callback per pair (which, over a write
 * transaction's 100,000 random keys, costs more than ordering the puts saves). A pass orders keys
 * by five of their bytes; keys that tie there are ordered by the next bytes they do not all share,
 * and so on. Most keys are hashes, which the first pass sets apart; the storage keys of one
 * contract share its 20-byte address, and a second pass orders them by slot.
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
  if (keys.length > MAX_ORDERED_KEYS)
    throw new RangeError(`cannot order ${keys.length} keys, at most ${MAX_ORDERED_KEYS}`);
  const width = keys.length > 0 ? keys[0]!.length : 0;
  const ordering = new Ordering(keys.length, width);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.length !== width)
      throw new RangeError(`keys of ${width} and ${key.length} bytes: keyOrder orders keys of one length`);
    ordering.packed.set(key, i * ordering.stride);
  }
  ordering.orderRun(0, keys.length, 0);
  return ordering.order;
}

/**
 * keyOrder of `count` keys of `width` bytes lying side by side in `bytes` (key i at i · width): fixed-width entries
 * kept in one buffer, with no object per key.
 */
export function packedKeyOrder(bytes: Uint8Array, width: number, count: number): Uint32Array {
  if (count > MAX_ORDERED_KEYS) throw new RangeError(`cannot order ${count} keys, at most ${MAX_ORDERED_KEYS}`);
  if (bytes.length < count * width) throw new RangeError(`${bytes.length} bytes cannot hold ${count} keys of ${width}`);
  const ordering = new Ordering(count, width);
  const { packed, stride } = ordering;
  for (let i = 0; i < count; i++) {
    const from = i * width;
    const to = i * stride;
    for (let b = 0; b < width; b++) packed[to + b] = bytes[from + b]!;
  }
  ordering.orderRun(0, count, 0);
  return ordering.order;
}

/**
 * One keyOrder call: the keys side by side, the order being found, and the arrays its passes share (a run's pass uses
 * the run's slice of them).
 */
class Ordering {
  /** The indexes of the keys, ordered run by run. */
  readonly order: Uint32Array;
  /**
   * Bytes from one key to the next in `packed`: the key and BYTES_PER_PASS zero bytes, so a pass near a key's end reads
   * zeros, not the next key.
   */
  readonly stride: number;
  /** The keys, copied side by side by the caller: a pass reads a key in one place, not through its buffer object. */
  readonly packed: Uint8Array;
  /** One sort word per key: BYTES_PER_PASS key bytes above the key's place in its run. */
  private readonly words: BigUint64Array;
  /** The sort words as u32 halves (HIGH and LOW of each). */
  private readonly halves: Uint32Array;
  /** A run's order before its pass, read back through the places the sorted words hold. */
  private readonly given: Uint32Array;

  /** An ordering of `count` keys of `width` bytes, to be copied into `packed` (key i at i · stride). */
  constructor(
    count: number,
    private readonly width: number,
  ) {
    this.stride = width + BYTES_PER_PASS;
    this.packed = new Uint8Array(count * this.stride);
    this.order = new Uint32Array(count);
    for (let i = 0; i < count; i++) this.order[i] = i;
    this.words = new BigUint64Array(count);
    this.halves = new Uint32Array(this.words.buffer);
    this.given = new Uint32Array(count);
  }

  /** Orders order[from, to), whose keys agree on their first `offset` bytes, by the bytes after. */
  orderRun(from: number, to: number, offset: number): void {
    const { order, packed, stride, width, halves, given } = this;
    if (to - from <= INSERTION_RUN) return this.insertionOrder(from, to, offset);
    offset = this.sharedPrefix(from, to, offset);
    if (offset === width) return;
    for (let i = from; i < to; i++) {
      const at = order[i]! * stride + offset;
      halves[2 * i + HIGH] =
        ((packed[at]! << 24) | (packed[at + 1]! << 16) | (packed[at + 2]! << 8) | packed[at + 3]!) >>> 0;
      halves[2 * i + LOW] = ((packed[at + 4]! << PLACE_BITS) | (i - from)) >>> 0;
    }
    this.words.subarray(from, to).sort();
    given.set(order.subarray(from, to), from);
    for (let i = from; i < to; i++) order[i] = given[from + (halves[2 * i + LOW]! & (MAX_ORDERED_KEYS - 1))]!;
    if (offset + BYTES_PER_PASS >= width) return;
    // A tie run's own pass rewrites only its slice of the words, which this scan has passed.
    let start = from;
    for (let i = from + 1; i <= to; i++) {
      const tie =
        i < to &&
        halves[2 * i + HIGH] === halves[2 * i - 2 + HIGH] &&
        halves[2 * i + LOW]! >>> PLACE_BITS === halves[2 * i - 2 + LOW]! >>> PLACE_BITS;
      if (tie) continue;
      if (i - start > 1) this.orderRun(start, i, offset + BYTES_PER_PASS);
      start = i;
    }
  }

  /**
   * The length of the prefix every key of order[from, to) shares, given they share `offset` bytes:
   * no pass goes over bytes all a run's keys share (the rest of one contract's address).
   */
  private sharedPrefix(from: number, to: number, offset: number): number {
    const { order, packed, stride } = this;
    const first = order[from]! * stride;
    let shared = this.width;
    for (let i = from + 1; i < to && shared > offset; i++) {
      const at = order[i]! * stride;
      let j = offset;
      while (j < shared && packed[at + j] === packed[first + j]) j++;
      shared = j;
    }
    return shared;
  }

  /**
   * Orders order[from, to), whose keys agree on their first `offset` bytes, by the bytes after, by insertion (stable: a
   * key moves only past greater ones).
   */
  private insertionOrder(from: number, to: number, offset: number): void {
    const { order, packed, stride, width } = this;
    for (let i = from + 1; i < to; i++) {
      const index = order[i]!;
      const at = index * stride;
      let j = i;
      for (; j > from; j--) {
        const other = order[j - 1]! * stride;
        let b = offset;
        while (b < width && packed[other + b] === packed[at + b]) b++;
        if (b === width || packed[other + b]! < packed[at + b]!) break;
        order[j] = order[j - 1]!;
      }
      order[j] = index;
    }
  }
}
