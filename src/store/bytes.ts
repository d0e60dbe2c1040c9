/**
 * A growable byte writer and a cursor reader: the primitives of the store's value codecs
 * (LEB128 varints, length-prefixed bytes, fixed-width bytes, minimal big-endian bigints).
 */
import { uintBytesView } from '../chain/hex.js';
import { readVarintWithin, varintEnd, writeVarint } from '../chain/varint.js';

/**
 * Largest bigint a double holds exactly (2^53 − 1): up to it bigint() writes from a number, without bigint
 * arithmetic.
 */
const MAX_EXACT_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The UTF-8 bytes of JSON members text kept as a node gave it (a record's `extra`). */
export function extraBytes(extra: string): Uint8Array {
  return utf8.encode(extra);
}

/** JSON members text kept as a node gave it, from its UTF-8 bytes. */
export function extraText(bytes: Uint8Array): string {
  return fromUtf8.decode(bytes);
}

/**
 * Whether the word form (ByteWriter.words) of `bytes` is shorter than the bytes: its words' leading zeros outnumber
 * them.
 */
export function wordsShorter(bytes: Uint8Array): boolean {
  const head = bytes.length % 32;
  let saved = 0;
  for (let at = head; at < bytes.length; at += 32) {
    let start = at;
    while (start < at + 32 && bytes[start] === 0) start++;
    saved += start - at - 1;
  }
  return saved > 0;
}

/**
 * The end of bytes in the word form (ByteWriter.words) whose `length` bytes start their stored form at `raw[start]`.
 */
export function wordsEnd(raw: Uint8Array, start: number, length: number): number {
  let p = start + (length % 32);
  for (let at = length % 32; at < length; at += 32) p += 1 + raw[p]!;
  return p;
}

/** Appends primitives to a growing buffer. */
export class ByteWriter {
  private buf: Buffer;
  private pos = 0;

  /** Starts with room for `capacity` bytes (it grows as needed). */
  constructor(capacity = 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = Math.max(1, this.buf.length) * 2;
    while (size < this.pos + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Writes one byte. */
  u8(value: number): this {
    this.ensure(1);
    this.buf[this.pos++] = value;
    return this;
  }

  /** Writes an unsigned integer (up to 2^53) as a LEB128 varint. */
  varint(value: number): this {
    this.ensure(8);
    this.pos = writeVarint(this.buf, this.pos, value);
    return this;
  }

  /** Writes bytes of a length both sides know (no prefix). */
  fixed(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  /** Writes `bytes[start, end)` with no prefix, as fixed(bytes.subarray(start, end)) does without making the view. */
  range(bytes: Uint8Array, start: number, end: number): this {
    const length = end - start;
    this.ensure(length);
    const buf = this.buf;
    for (let i = 0; i < length; i++) buf[this.pos + i] = bytes[start + i]!;
    this.pos += length;
    return this;
  }

  /** Writes a varint length, then the bytes. */
  bytes(bytes: Uint8Array): this {
    return this.varint(bytes.length).fixed(bytes);
  }

  /**
   * Writes bytes in the word form when `words` (readWords reads either form): a varint of length × 2 + (words ? 1 :
   * 0), then the bytes as they are, or the first length % 32 as they are and each 32-byte word after them as its byte
   * count and its bytes without leading zeros (ABI-encoded data is mostly zero bytes).
   */
  words(bytes: Uint8Array, words: boolean): this {
    this.varint(bytes.length * 2 + (words ? 1 : 0));
    if (!words) return this.fixed(bytes);
    const head = bytes.length % 32;
    this.range(bytes, 0, head);
    for (let at = head; at < bytes.length; at += 32) {
      let start = at;
      while (start < at + 32 && bytes[start] === 0) start++;
      this.u8(at + 32 - start).range(bytes, start, at + 32);
    }
    return this;
  }

  /** Writes a non-negative bigint as length-prefixed minimal big-endian bytes. */
  bigint(value: bigint): this {
    if (value < 0n) throw new RangeError('negative bigint in store codec');
    if (value === 0n) return this.u8(0);
    if (value <= MAX_EXACT_BIGINT) return this.safeUint(Number(value));
    const bytes = uintBytesView(value);
    return this.u8(bytes.length).fixed(bytes);
  }

  /**
   * Writes a positive integer below 2^53 as bigint() writes it: its byte count, then its minimal big-endian bytes
   * (number arithmetic, no text).
   */
  private safeUint(value: number): this {
    let length = 1;
    for (let v = value; v >= 256; v = Math.floor(v / 256)) length++;
    this.ensure(1 + length);
    const buf = this.buf;
    buf[this.pos] = length;
    for (let i = this.pos + length, v = value; i > this.pos; i--, v = Math.floor(v / 256)) buf[i] = v % 256;
    this.pos += 1 + length;
    return this;
  }

  /** Forgets what was written, keeping the buffer (a writer reused for one record after another). */
  clear(): this {
    this.pos = 0;
    return this;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  /** Writes `write`'s bytes after a u32 big-endian count of them (the length is known once they are written). */
  u32Prefixed(write: (w: this) => void): this {
    this.ensure(4);
    const at = this.pos;
    this.pos += 4;
    write(this);
    this.buf.writeUInt32BE(this.pos - at - 4, at);
    return this;
  }

  /**
   * The bytes written so far as a view of the writer's own buffer, not copied (write nothing more
   * after it); the buffer may be larger than the view, and may be Node's shared pool when small.
   */
  written(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** The bytes written so far, as a Buffer that owns its memory. */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

/** Reads primitives from a buffer, in the order a ByteWriter wrote them. */
export class ByteReader {
  /** Current read offset. */
  pos = 0;
  private readonly buf: Buffer;

  /** Reads from `bytes` (not copied). */
  constructor(bytes: Uint8Array) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Reads one byte. */
  u8(): number {
    return this.buf[this.pos++]!;
  }

  /** Reads a LEB128 varint; throws RangeError when the buffer ends inside it or it is overlong (a damaged record). */
  varint(): number {
    const value = readVarintWithin(this.buf, this.pos, this.buf.length);
    if (value < 0) throw new RangeError('record ends inside a varint or holds a damaged one');
    this.pos = varintEnd;
    return value;
  }

  /** Reads `length` bytes as a copy. */
  fixed(length: number): Uint8Array {
    const out = new Uint8Array(length);
    out.set(this.buf.subarray(this.pos, this.pos + length));
    this.pos += length;
    return out;
  }

  /** Reads `length` bytes as a view into the buffer read (not copied: it lives as long as that buffer). */
  view(length: number): Buffer {
    const out = this.buf.subarray(this.pos, this.pos + length);
    if (out.length !== length) throw new RangeError('record ends inside a field');
    this.pos += length;
    return out;
  }

  /** Reads bytes after a u32 big-endian count (ByteWriter.u32Prefixed) as a view (see view). */
  u32PrefixedView(): Buffer {
    if (this.pos + 4 > this.buf.length) throw new RangeError('record ends inside a length');
    const length = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return this.view(length);
  }

  /** Reads varint-length-prefixed bytes as a view (see view). */
  viewBytes(): Buffer {
    return this.view(this.varint());
  }

  /** Skips `length` bytes. */
  skip(length: number): void {
    this.pos += length;
  }

  /** Reads varint-length-prefixed bytes. */
  bytes(): Uint8Array {
    return this.fixed(this.varint());
  }

  /** Reads bytes written by ByteWriter.words, in either form. */
  words(): Uint8Array {
    const tag = this.varint();
    const length = Math.floor(tag / 2);
    if (tag % 2 === 0) return this.fixed(length);
    const out = new Uint8Array(length);
    const head = length % 32;
    out.set(this.fixed(head), 0);
    for (let at = head; at < length; at += 32) {
      const n = this.u8();
      out.set(this.fixed(n), at + 32 - n);
    }
    return out;
  }

  /** Reads a length-prefixed minimal big-endian bigint. */
  bigint(): bigint {
    const length = this.u8();
    if (length === 0) return 0n;
    const value = BigInt('0x' + this.buf.toString('hex', this.pos, this.pos + length));
    this.pos += length;
    return value;
  }

  /** Whether every byte has been read. */
  done(): boolean {
    return this.pos >= this.buf.length;
  }
}
