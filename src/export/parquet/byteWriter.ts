/**
 * A growable byte buffer the Parquet writer appends to: raw bytes, little-endian integers and
 * unsigned LEB128 varints (Thrift compact protocol's and the RLE hybrid's run headers).
 */

/** Bytes a writer starts with when not told: a file's metadata and a small page fit without growing. */
const INITIAL_BYTES = 1 << 12;

/** An append-only byte buffer, reusable after reset(). */
export class ByteWriter {
  /** The buffer; bytes [0, length) are written. Replaced when it grows, so not to be held across appends. */
  bytes: Uint8Array;
  /** Bytes written. */
  length = 0;

  /** A writer with room for `capacity` bytes before it grows. */
  constructor(capacity = INITIAL_BYTES) {
    this.bytes = new Uint8Array(Math.max(16, capacity));
  }

  /** Makes room for `extra` more bytes (growing by doubling, so appends cost amortised O(1)). */
  reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  /** Forgets the bytes written, keeping the buffer. */
  reset(): void {
    this.length = 0;
  }

  /** Appends one byte. */
  byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
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
    this.reserve(8);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
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
