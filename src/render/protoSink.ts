/**
 * A growable byte buffer that protobuf wire data is written into directly (tags, varints, raw
 * bytes), so encoding thousands of log messages allocates no objects.
 */

import { writeVarint } from '../chain/varint.js';
import { GrowableBytes } from '../render/growableBytes.js';

/** Longest run copied byte by byte (addresses, hashes, topics, ABI words). */
const SHORT_COPY = 64;

/** Writes protobuf wire bytes into a buffer that grows by doubling. */
export class ProtoSink extends GrowableBytes {
  /** Writes a non-negative integer up to 2^53 as a varint. */
  varint(value: number): void {
    this.ensure(8);
    this.length = writeVarint(this.buf, this.length, value);
  }

  /** Writes `source[start, end)` as it is (short runs byte by byte: a subarray view costs more than the copy). */
  copy(source: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    const out = this.buf;
    if (n > SHORT_COPY) {
      out.set(source.subarray(start, end), this.length);
      this.length += n;
      return;
    }
    let p = this.length;
    for (let i = start; i < end; i++) out[p++] = source[i]!;
    this.length = p;
  }

  /** Writes `count` zero bytes. */
  zeros(count: number): void {
    this.ensure(count);
    this.buf.fill(0, this.length, this.length + count);
    this.length += count;
  }
}
