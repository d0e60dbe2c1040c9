/**
 * A small, fast, seeded pseudo-random generator (sfc32, 128-bit state) and the draws the synthetic
 * chain needs. Streams are derived from a string seed and a domain by keccak256, so the same seed
 * always yields the same numbers and independent domains (one per block, one per purpose) never
 * depend on how much another stream was consumed.
 */
import { keccak256 } from '../chain/keccak.js';

const TWO_POW_32 = 4294967296;

/** A seeded sfc32 generator with helpers for integers, floats, bytes, bigints and picks. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Starts from four 32-bit words of state (prefer Random.derive). */
  constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A generator for (seed, domain, index): keccak256 of their UTF-8 text seeds the state. */
  static derive(seed: string, domain: string, index = 0): Random {
    const h = keccak256(new Uint8Array(Buffer.from(`${seed}\u0000${domain}\u0000${index}`, 'utf8')));
    const w = (i: number) => h[i]! | (h[i + 1]! << 8) | (h[i + 2]! << 16) | (h[i + 3]! << 24);
    return new Random(w(0), w(4), w(8), w(12));
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1) with 32 bits of randomness. */
  float(): number {
    return this.u32() / TWO_POW_32;
  }

  /** A uniform integer in [min, max] (inclusive; the span must stay below 2^32). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** A standard normal draw (Box-Muller). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** One element of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** Fills `out[offset, offset + length)` with random bytes. */
  fill(out: Uint8Array, offset = 0, length = out.length - offset): Uint8Array {
    let i = offset;
    const end = offset + length;
    for (; i + 4 <= end; i += 4) {
      const v = this.u32();
      out[i] = v;
      out[i + 1] = v >>> 8;
      out[i + 2] = v >>> 16;
      out[i + 3] = v >>> 24;
    }
    if (i < end) {
      let v = this.u32();
      for (; i < end; i++, v >>>= 8) out[i] = v;
    }
    return out;
  }

  /** `length` random bytes. */
  bytes(length: number): Uint8Array {
    return this.fill(new Uint8Array(length));
  }

  /** A uniform bigint of `bits` random bits (0 ≤ value < 2^bits). */
  bigBits(bits: number): bigint {
    if (bits <= 0) return 0n;
    const words = Math.ceil(bits / 32);
    const top = bits - 32 * (words - 1);
    // Shifting words in is about 8× faster than building and parsing hex text, for the same value.
    let value = BigInt(top === 32 ? this.u32() : this.u32() >>> (32 - top));
    for (let i = 1; i < words; i++) value = (value << 32n) | BigInt(this.u32());
    return value;
  }

  /** A uniform bigint in [min, max) (rejection sampling over the span's bit length). */
  bigint(min: bigint, max: bigint): bigint {
    const span = max - min;
    if (span <= 0n) throw new RangeError('empty bigint range');
    const bits = span.toString(2).length;
    for (;;) {
      const v = this.bigBits(bits);
      if (v < span) return min + v;
    }
  }
}

/**
 * Zipf-distributed ranks over [0, n): rank k has weight 1 / (k + 1)^s, so a few ranks take most
 * draws (popular contracts, busy senders). Sampling is a binary search in the cumulative weights.
 */
export class Zipf {
  private readonly cdf: Float64Array;

  /** Ranks 0..n-1 with exponent `s` (s = 1: the classic Zipf law). */
  constructor(
    readonly n: number,
    readonly s: number,
  ) {
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      total += 1 / (k + 1) ** s;
      this.cdf[k] = total;
    }
    for (let k = 0; k < n; k++) this.cdf[k]! /= total;
  }

  /** The share of all draws that ranks below `k` take (the top-k share). */
  share(k: number): number {
    return k <= 0 ? 0 : this.cdf[Math.min(k, this.n) - 1]!;
  }

  /** A rank drawn with `rng`. */
  sample(rng: Random): number {
    const u = rng.float();
    const cdf = this.cdf;
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
