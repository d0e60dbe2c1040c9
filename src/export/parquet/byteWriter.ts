/**
 * A growable byte buffer the Parquet writer appends to: raw bytes, little-endian integers and
 * unsigned LEB128 varints (Thrift compact protocol's and the RLE hybrid's run headers).
 */

import { writeVarint } from '../../chain/varint.js';
import { GrowableBytes } from '../../render/growableBytes.js';

/** Bytes of the longest varint of a safe integer (53 bits, 7 a byte). */
const MAX_SAFE_VARINT_BYTES = 8;

/** Bytes a writer starts with when not told: a file's metadata and a small page fit without growing. */
const INITIAL_BYTES = 1 << 12;

/** An append-only byte buffer, reusable after reset(): the renderers' GrowableBytes with Parquet's primitives. */
export class ByteWriter extends GrowableBytes {
  /** A writer with room for `capacity` bytes before it grows. */
  constructor(capacity = INITIAL_BYTES) {
    super(Math.max(16, capacity));
  }

  /** The buffer; bytes [0, length) are written. Replaced when it grows, so not to be held across appends. */
  get bytes(): Uint8Array {
    return this.buf;
  }

  /** Makes room for `extra` more bytes (growing by doubling, so appends cost amortised O(1)). */
  reserve(extra: number): void {
    this.ensure(extra);
  }

  /** Appends `value` (0 ≤ value < 2^32) as 4 little-endian bytes. */
  u32le(value: number): void {
    this.reserve(4);
    this.setU32le(this.length, value);
    this.length += 4;
  }

  /** Overwrites the 4 bytes at `at` with `value` (0 ≤ value < 2^32), little-endian. */
  setU32le(at: number, value: number): void {
    const b = this.bytes;
    b[at] = value & 0xff;
    b[at + 1] = (value >>> 8) & 0xff;
    b[at + 2] = (value >>> 16) & 0xff;
    b[at + 3] = value >>> 24;
  }

  /** Appends `value` (a non-negative safe integer) as an unsigned LEB128 varint. */
  varint(value: number): void {
    this.ensure(MAX_SAFE_VARINT_BYTES);
    this.length = writeVarint(this.buf, this.length, value);
  }

  /** Appends bytes [start, end) of `src`. */
  append(src: Uint8Array, start = 0, end = src.length): void {
    this.reserve(end - start);
    this.bytes.set(start === 0 && end === src.length ? src : src.subarray(start, end), this.length);
    this.length += end - start;
  }

  /** The bytes written (a view of the buffer, valid until the next append or reset). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
