/**
 * A reusable byte buffer that JSON text is written into directly: ASCII constants, hex of raw bytes
 * through a lookup table, quantities from stored minimal big-endian bytes or from numbers. The
 * renderers of src/render write into one writer per call and take the text at the end, so a
 * point lookup allocates no intermediate strings or objects.
 */
import { HEX_PAIRS, HEX_QUADS } from '../chain/asciiHex.js';
import { GrowableBytes } from './growableBytes.js';

/** The ASCII code of each hex digit. */
const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** 2^32, to split integers above 32 bits into two words. */
const TWO_32 = 0x100000000;

/** The ASCII code of '0'. */
const ZERO = 0x30;

/** Pre-encoded constants up to this length are copied byte by byte (a typed-array set() costs more). */
const SHORT_COPY = 64;

/**
 * Writes JSON text as bytes into a buffer that grows by doubling and is reused from call to call:
 * the one JSON byte writer of the codebase (point lookups' renderers and the log scans' sink).
 */
export class JsonWriter extends GrowableBytes {
  /** Starts with room for `capacity` bytes. */
  constructor(capacity = 16 * 1024) {
    super(capacity);
  }

  /** Writes pre-encoded ASCII bytes. */
  bytes(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    const out = this.buf;
    if (n > SHORT_COPY) out.set(bytes, this.length);
    else for (let i = 0, p = this.length; i < n; i++) out[p++] = bytes[i]!;
    this.length += n;
  }

  /** Writes again the bytes [start, start + count) written earlier (a piece repeated: one native copy). */
  repeat(start: number, count: number): void {
    this.ensure(count);
    this.buf.copyWithin(this.length, start, start + count);
    this.length += count;
  }

  /** Writes what `other` holds since its last reset. */
  append(other: JsonWriter): void {
    this.ensure(other.length);
    this.buf.set(other.buf.subarray(0, other.length), this.length);
    this.length += other.length;
  }

  /** Replaces the byte written at `pos` (e.g. a leading comma by an opening brace). */
  patch(pos: number, code: number): void {
    this.buf[pos] = code;
  }

  /** Writes `count` '0' digits (the stripped leading zero bytes of a word, two digits each). */
  zeros(count: number): void {
    this.ensure(count);
    const out = this.buf;
    // A loop: most counts are a few digits, below what a native fill's call costs.
    for (let p = this.length, end = p + count; p < end; p++) out[p] = ZERO;
    this.length += count;
  }

  /** Writes `source[start, end)` as lower-case hex digits (two per byte). */
  hex(source: Uint8Array, start: number, end: number): void {
    this.ensure(2 * (end - start));
    const view = this.dataView;
    let p = this.length;
    let i = start;
    for (; i + 1 < end; i += 2, p += 4) view.setUint32(p, HEX_QUADS[(source[i]! << 8) | source[i + 1]!]!, true);
    if (i < end) {
      view.setUint16(p, HEX_PAIRS[source[i]!]!, true);
      p += 2;
    }
    this.length = p;
  }

  /**
   * Writes as hex digits the `length` bytes stored in the word form (store/bytes.ts) from `source[start]`: the first
   * length % 32 bytes as they are, then each word's stripped leading zeros and its bytes.
   */
  wordsHex(source: Uint8Array, start: number, length: number): void {
    const head = length % 32;
    this.hex(source, start, start + head);
    for (let p = start + head, w = head; w < length; w += 32) {
      const len = source[p]!;
      this.zeros(64 - 2 * len);
      this.hex(source, p + 1, p + 1 + len);
      p += 1 + len;
    }
  }

  /**
   * Writes the big-endian unsigned integer in `source[start, end)` as hex digits without leading
   * zeros, `0` when it is zero or empty (a quantity's digits, without the `0x`).
   */
  quantity(source: Uint8Array, start: number, end: number): void {
    while (start < end && source[start] === 0) start++;
    if (start === end) {
      this.byte(ZERO);
      return;
    }
    this.ensure(2 * (end - start));
    const out = this.buf;
    let p = this.length;
    const first = source[start]!;
    if (first < 16) out[p++] = HEX_DIGITS[first]!;
    else {
      const pair = HEX_PAIRS[first]!;
      out[p++] = pair & 0xff;
      out[p++] = pair >> 8;
    }
    for (let i = start + 1; i < end; i++) {
      const pair = HEX_PAIRS[source[i]!]!;
      out[p++] = pair & 0xff;
      out[p++] = pair >> 8;
    }
    this.length = p;
  }

  /** Writes a non-negative safe integer as hex digits without leading zeros (`0` for zero). */
  number(value: number): void {
    if (value < TWO_32) {
      this.word(value >>> 0, false);
      return;
    }
    this.word(Math.floor(value / TWO_32), false);
    this.word(value % TWO_32, true);
  }

  /** Writes a u32's hex digits: all eight when `padded`, else without leading zeros. */
  private word(value: number, padded: boolean): void {
    let digits = 8;
    if (!padded) {
      digits = 1;
      while (digits < 8 && value >>> (4 * digits) !== 0) digits++;
    }
    this.ensure(digits);
    const out = this.buf;
    for (let i = digits - 1, p = this.length; i >= 0; i--) out[p++] = HEX_DIGITS[(value >>> (4 * i)) & 15]!;
    this.length += digits;
  }
}
