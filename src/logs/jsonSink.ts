/**
 * A growable byte buffer that JSON text is written into directly (ASCII constants, hex of raw
 * bytes through a lookup table), so rendering thousands of logs allocates no strings.
 */
import { HEX_PAIRS } from '../chain/asciiHex.js';
import { GrowableBytes } from './growableBytes.js';

const ZERO = 0x30;
const NEWLINE = 0x0a;

/**
 * Writes JSON bytes into a buffer that grows by doubling: logs comma-separated (an eth_getLogs
 * result's elements), or with `lines` each log followed by a newline and marked like the protobuf
 * output (end offset, block number, log index: MARK_STRIDE entries), so a stream can resume after any log.
 */
export class JsonSink extends GrowableBytes {
  private readonly marks: number[] = [];

  /** Comma-separated logs, or with `lines` one log per line, marked; `capacity` bytes to start with. */
  constructor(
    readonly lines = false,
    capacity?: number,
  ) {
    super(capacity);
  }

  /** Ends a log in lines mode: its newline and its mark. */
  endLine(number: number, logIndex: number): void {
    this.byte(NEWLINE);
    this.marks.push(this.length, number, logIndex);
  }

  /** Empties the sink for reuse, marks included, keeping its capacity. */
  override reset(): void {
    super.reset();
    this.marks.length = 0;
  }

  /** The marks of the logs written in lines mode (empty otherwise). */
  takeMarks(): Float64Array {
    return new Float64Array(this.marks);
  }

  /** Writes pre-encoded bytes. */
  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Writes `source[start, end)` as lower-case hex digits. */
  hex(source: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(2 * n);
    const out = this.buf;
    let p = this.length;
    for (let i = start; i < end; i++) {
      const pair = HEX_PAIRS[source[i]!]!;
      out[p++] = pair & 0xff;
      out[p++] = pair >> 8;
    }
    this.length = p;
  }

  /** Writes `count` '0' digits (the stripped leading zero bytes of a word, two digits each). */
  zeros(count: number): void {
    this.ensure(count);
    this.buf.fill(ZERO, this.length, this.length + count);
    this.length += count;
  }

  /** Writes a non-negative integer as hex digits without leading zeros (at least one digit). */
  quantity(value: number): void {
    const text = value.toString(16);
    this.ensure(text.length);
    for (let i = 0; i < text.length; i++) this.buf[this.length++] = text.charCodeAt(i);
  }
}
