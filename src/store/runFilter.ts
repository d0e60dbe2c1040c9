/**
 * A run's filter: a bloom filter over its keys (a transaction hash's prefix; a storage key's
 * address ‖ slot), kept in LMDB beside the run and in a reader's memory, so that a lookup skips the
 * runs that cannot hold its key instead of reading a chunk of each.
 */

/** Filter bits per key: with FILTER_PROBES probes about 2% of absent keys pass (a chunk read each). */
export const FILTER_BITS_PER_KEY = 8;
/** Bits probed per key: the best count for FILTER_BITS_PER_KEY (8 · ln 2 ≈ 5.5). */
const FILTER_PROBES = 6;
/** Fewest bytes of a filter (a run of few keys). */
const MIN_FILTER_BYTES = 8;

/** The filter's two base hashes of a key (double hashing derives the probes from them). */
export interface KeyHash {
  h1: number;
  h2: number;
}

/** The hashes of a transaction-hash prefix: its bytes are uniformly random already. */
export function txKeyHash(prefix: Uint8Array): KeyHash {
  const h1 = ((prefix[0]! << 24) | (prefix[1]! << 16) | (prefix[2]! << 8) | prefix[3]!) >>> 0;
  const h2 = ((prefix[4]! << 24) | (prefix[5]! << 16) | (prefix[6]! << 8) | prefix[7]!) >>> 0;
  return { h1, h2: h2 | 1 };
}

/**
 * The hashes of a storage key's first 52 bytes (address ‖ slot): two multiply-xor hashes, since slots are often small
 * integers.
 */
export function storageKeyHash(key: Uint8Array): KeyHash {
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  for (let i = 0; i < 52; i++) {
    a = Math.imul(a ^ key[i]!, 0x01000193);
    b = Math.imul(b + key[i]!, 0xc2b2ae35) ^ (b >>> 15);
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x7feb352d);
  a ^= a >>> 15;
  b ^= b >>> 13;
  b = Math.imul(b, 0x846ca68b);
  b ^= b >>> 16;
  return { h1: a >>> 0, h2: (b | 1) >>> 0 };
}

/** Bytes of the filter of a run of `keys` keys. */
export function filterBytes(keys: number): number {
  return Math.max(MIN_FILTER_BYTES, Math.ceil((keys * FILTER_BITS_PER_KEY) / 8));
}

/** Sets a key's bits in `filter`. */
export function filterAdd(filter: Uint8Array, hash: KeyHash): void {
  filterAddHashes(filter, hash.h1, hash.h2);
}

/** filterAdd with the key's two hashes as numbers (a merge's loop, with no hash object per key). */
export function filterAddHashes(filter: Uint8Array, h1: number, h2: number): void {
  const bits = filter.length * 8;
  const inverse = 1 / bits;
  let h = h1;
  for (let i = 0; i < FILTER_PROBES; i++) {
    const bit = remainder(h, bits, inverse);
    filter[bit >>> 3]! |= 1 << (bit & 7);
    h = (h + h2) >>> 0;
  }
}

/**
 * h % bits for a u32 `h`, through a multiplication by `inverse` (1 / bits) rather than the floating-point remainder
 * the engine computes for numbers past 2^31: the quotient is off by at most one, which the comparisons mend.
 */
function remainder(h: number, bits: number, inverse: number): number {
  const r = h - Math.floor(h * inverse) * bits;
  return r < 0 ? r + bits : r >= bits ? r - bits : r;
}

/** Sets the bits of the transaction-run entry at `bytes[offset]` (its hash prefix: txKeyHash's hashes) in `filter`. */
export function filterAddTxEntry(filter: Uint8Array, bytes: Uint8Array, offset: number): void {
  const h1 =
    ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
  const h2 =
    (bytes[offset + 4]! << 24) | (bytes[offset + 5]! << 16) | (bytes[offset + 6]! << 8) | bytes[offset + 7]! | 1;
  filterAddHashes(filter, h1, h2);
}

/** Whether `filter` may hold the key (false: it certainly does not). */
export function filterMayHold(filter: Uint8Array, hash: KeyHash): boolean {
  const bits = filter.length * 8;
  const inverse = 1 / bits;
  let h = hash.h1;
  for (let i = 0; i < FILTER_PROBES; i++) {
    const bit = remainder(h, bits, inverse);
    if ((filter[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
    h = (h + hash.h2) >>> 0;
  }
  return true;
}
