/**
 * The growable byte buffer the renderers write into (JSON text through JsonWriter, protobuf wire
 * data through ProtoSink): it grows by doubling, and hands out what was written once.
 */

/**
 * Output up to this size is copied out by take() (the copy frees the unused capacity); above it the buffer itself is
 * handed over.
 */
const TAKE_COPY_LIMIT = 64 * 1024;

/** A byte buffer that grows by doubling as it is written. */
export class GrowableBytes {
  /** The backing storage; bytes [0, length) are written. */
  protected buf: Uint8Array;
  /** A view of `buf` for multi-byte stores (replaced with it). */
  protected dataView: DataView;
  /** Bytes written. */
  length = 0;

  /** Starts with `capacity` bytes. */
  constructor(capacity = 64 * 1024) {
    this.buf = new Uint8Array(capacity);
    this.dataView = new DataView(this.buf.buffer);
  }

  /** Empties the buffer and writes into `memory` from now on (it grows out of it as it would of its own). */
  adopt(memory: ArrayBuffer): void {
    this.buf = new Uint8Array(memory);
    this.dataView = new DataView(memory);
    this.length = 0;
  }

  /** Makes room for `extra` more bytes. */
  protected ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.dataView = new DataView(next.buffer);
  }

  /** Writes one byte. */
  byte(value: number): void {
    this.ensure(1);
    this.buf[this.length++] = value;
  }

  /** Empties the buffer for reuse, keeping its capacity. */
  reset(): void {
    this.length = 0;
  }

  /** The bytes written as text, one character per byte (JSON's ASCII); the buffer stays usable. */
  latin1(): string {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset, this.length).toString('latin1');
  }

  /**
   * The bytes written, as a view of the memory they are in (no copy), ending the buffer's use: adopt() other memory
   * before writing again.
   */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /**
   * The bytes written, ending the buffer's use (write nothing after): a copy when small, else a view
   * of the backing buffer itself, whose ArrayBuffer may then be transferred (no copy of megabytes).
   */
  take(): Uint8Array {
    return this.length <= TAKE_COPY_LIMIT ? this.buf.slice(0, this.length) : this.buf.subarray(0, this.length);
  }
}
