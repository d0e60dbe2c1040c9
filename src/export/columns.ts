/**
 * Column builders for the export: each grows typed arrays row by row (values, a validity bitmap
 * for nulls, offsets for byte columns) and hands over plain typed arrays (ColumnData) that the
 * Parquet writer encodes with little more than a copy: integers as their little-endian bytes, byte
 * strings already in PLAIN's length-prefixed layout. Byte columns write raw bytes, or with `hex`
 * 0x-prefixed lower-case hex text (the export's --hex).
 */
import { HEX_PAIRS } from '../chain/asciiHex.js';

/**
 * The column types of the export, as Parquet stores them: unsigned integers, a double, a boolean, bytes, UTF-8 text.
 */
export type ColumnType = 'u32' | 'u64' | 'f64' | 'bool' | 'binary' | 'string';

/** A finished column: typed arrays only, views of the builder's buffers (a builder is not written after finish()). */
export interface ColumnData {
  name: string;
  type: ColumnType;
  length: number;
  nullCount: number;
  /**
   * The validity bitmap (bit i, least significant first, set when row i has a value; Arrow's layout, and Parquet's
   * bit-packed definition levels); empty when no row is null.
   */
  validity: Uint8Array;
  /**
   * u32: Uint32Array; u64: BigUint64Array; f64: Float64Array; bool: bits packed as the validity;
   * binary and string: each non-null row's bytes after their length in LENGTH_PREFIX bytes, as
   * Parquet's PLAIN encoding writes them.
   */
  values: Uint32Array | BigUint64Array | Float64Array | Uint8Array;
  /**
   * binary and string: row i's entry is values[offsets[i], offsets[i + 1]): its length and bytes, or nothing for a
   * null.
   */
  offsets?: Int32Array;
  /**
   * A dictionary-encoded column's distinct values, in order of first use (a column of the same type
   * and no null); `values` is then a Uint32Array of each row's index into it (0 for a null).
   */
  dictionary?: ColumnData;
}

/**
 * Rows a column makes room for at first: a 1,000-block chunk of mainnet logs holds ~500k, so growth by doubling costs a
 * few copies at most.
 */
const INITIAL_ROWS = 1024;

/** A typed array twice as long holding `a`'s values. */
function grown<T extends Uint32Array | BigUint64Array | Float64Array | Uint8Array | Int32Array>(a: T, min: number): T {
  let size = Math.max(a.length * 2, 16);
  while (size < min) size *= 2;
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(a as never);
  return next;
}

/** Which rows have a value: a bitmap built lazily, at the first null. */
class Validity {
  private bits = new Uint8Array(0);
  nulls = 0;

  /** Records row `row` as null. */
  setNull(row: number): void {
    if (this.nulls === 0) {
      // The first null since the start or a reset: every row so far has a value (the buffer of an earlier chunk is
      // reused).
      if (row >> 3 >= this.bits.length) this.bits = new Uint8Array(Math.max(INITIAL_ROWS >> 3, 2 * ((row >> 3) + 1)));
      this.bits.fill(0xff);
    }
    if (row >> 3 >= this.bits.length) this.grow(row);
    this.bits[row >> 3]! &= ~(1 << (row & 7));
    this.nulls++;
  }

  /** Records row `row` as having a value (only bookkeeping once a null was seen). */
  setValue(row: number): void {
    if (this.nulls > 0 && row >> 3 >= this.bits.length) this.grow(row);
  }

  private grow(row: number): void {
    const old = this.bits.length;
    this.bits = grown(this.bits, (row >> 3) + 1);
    this.bits.fill(0xff, old);
  }

  /** Forgets every row (the bitmap is set anew at the next null, in the same buffer when it is large enough). */
  reset(): void {
    this.nulls = 0;
  }

  /** The bitmap of `length` rows (empty when no row is null). */
  finish(length: number): Uint8Array {
    return this.nulls === 0 ? new Uint8Array(0) : this.bits.subarray(0, (length + 7) >> 3);
  }
}

/** A column of unsigned 32-bit integers. */
export class U32Column {
  private values: Uint32Array;
  private readonly validity = new Validity();
  length = 0;

  /** A column called `name`, with room for `rows` rows before it grows. */
  constructor(
    readonly name: string,
    rows = INITIAL_ROWS,
  ) {
    this.values = new Uint32Array(rows);
  }

  /** Appends `value`. */
  push(value: number): void {
    if (this.length === this.values.length) this.values = grown(this.values, this.length + 1);
    this.validity.setValue(this.length);
    this.values[this.length++] = value;
  }

  /** Appends a null. */
  pushNull(): void {
    this.validity.setNull(this.length);
    this.push(0);
  }

  /** Forgets every row, keeping the buffers (a builder reused for the next chunk). */
  reset(): void {
    this.length = 0;
    this.validity.reset();
  }

  /** The finished column. */
  finish(): ColumnData {
    return {
      name: this.name,
      type: 'u32',
      length: this.length,
      nullCount: this.validity.nulls,
      validity: this.validity.finish(this.length),
      values: this.values.subarray(0, this.length),
    };
  }
}

/** A column of unsigned 64-bit integers (a larger value keeps its low 64 bits, as cryo's conversions do). */
export class U64Column {
  private values = new BigUint64Array(INITIAL_ROWS);
  private readonly validity = new Validity();
  length = 0;

  /** A column called `name`. */
  constructor(readonly name: string) {}

  /** Appends `value`. */
  push(value: bigint | number): void {
    if (this.length === this.values.length) this.values = grown(this.values, this.length + 1);
    this.validity.setValue(this.length);
    this.values[this.length++] = typeof value === 'bigint' ? BigInt.asUintN(64, value) : BigInt(value);
  }

  /** Appends `value`, or a null when it is undefined. */
  pushOptional(value: bigint | number | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  /** Appends a null. */
  pushNull(): void {
    this.validity.setNull(this.length);
    this.push(0n);
  }

  /** Forgets every row, keeping the buffers (a builder reused for the next chunk). */
  reset(): void {
    this.length = 0;
    this.validity.reset();
  }

  /** The finished column. */
  finish(): ColumnData {
    return {
      name: this.name,
      type: 'u64',
      length: this.length,
      nullCount: this.validity.nulls,
      validity: this.validity.finish(this.length),
      values: this.values.subarray(0, this.length),
    };
  }
}

/** A column of doubles. */
export class F64Column {
  private values = new Float64Array(INITIAL_ROWS);
  length = 0;

  /** A column called `name`. */
  constructor(readonly name: string) {}

  /** Appends `value`. */
  push(value: number): void {
    if (this.length === this.values.length) this.values = grown(this.values, this.length + 1);
    this.values[this.length++] = value;
  }

  /** The finished column. */
  finish(): ColumnData {
    return {
      name: this.name,
      type: 'f64',
      length: this.length,
      nullCount: 0,
      validity: new Uint8Array(0),
      values: this.values.subarray(0, this.length),
    };
  }
}

/** A column of booleans. */
export class BoolColumn {
  private bits: Uint8Array;
  private readonly validity = new Validity();
  length = 0;

  /** A column called `name`, with room for `rows` rows before it grows. */
  constructor(
    readonly name: string,
    rows = INITIAL_ROWS,
  ) {
    this.bits = new Uint8Array((rows + 7) >> 3);
  }

  /** Appends `value`. */
  push(value: boolean): void {
    const row = this.length++;
    if (row >> 3 >= this.bits.length) this.bits = grown(this.bits, (row >> 3) + 1);
    this.validity.setValue(row);
    if (value) this.bits[row >> 3]! |= 1 << (row & 7);
  }

  /** Appends `value`, or a null when it is undefined. */
  pushOptional(value: boolean | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  /** Appends a null. */
  pushNull(): void {
    this.validity.setNull(this.length);
    this.push(false);
  }

  /** Forgets every row, keeping the buffers (a builder reused for the next chunk). */
  reset(): void {
    // push() only sets bits: clear those of the rows written.
    this.bits.fill(0, 0, (this.length + 7) >> 3);
    this.length = 0;
    this.validity.reset();
  }

  /** The finished column. */
  finish(): ColumnData {
    return {
      name: this.name,
      type: 'bool',
      length: this.length,
      nullCount: this.validity.nulls,
      validity: this.validity.finish(this.length),
      values: this.bits.subarray(0, (this.length + 7) >> 3),
    };
  }
}

/** The 32-byte big-endian word of `value` (0 ≤ value < 2^256). */
export function word256(value: bigint): Uint8Array {
  const word = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    word[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return word;
}

/**
 * Byte strings up to this length (hashes, addresses, words) are copied four bytes at a time through DataViews: a
 * subarray view for set() costs more than the copy.
 */
const SHORT_COPY = 64;

/** Bytes of a 256-bit word (a topic, a data word). */
const WORD = 32;

/**
 * Zero runs up to this length (a topic's or a data word's padding) are written by a loop: fill() costs more for so few.
 */
const SHORT_FILL = 32;

/** Bytes of the little-endian length Parquet's PLAIN encoding writes before each byte string. */
export const LENGTH_PREFIX = 4;

const ZERO = 0x30;
const X = 0x78;

/**
 * A column of byte strings: raw bytes (Parquet binary), or with `hex` 0x-prefixed hex text (a
 * string column), laid out as Parquet's PLAIN encoding lays them out (a 4-byte little-endian length,
 * then the bytes; a null row writes nothing), so a page's values are one range of the buffer. A row
 * is written as row(), then any number of bytes() and zeros(), then end(); or at once with push().
 */
export class BytesColumn {
  private data: Uint8Array;
  private size = 0;
  private rowStart = 0;
  private offsets: Int32Array;
  private readonly validity = new Validity();
  /** A DataView of `data`, made again when it grows. */
  private view: DataView;
  length = 0;

  /**
   * A column called `name`, of raw bytes or, with `hex`, of 0x-hex text, with room for `rows` rows of a hash's size
   * before it grows.
   */
  constructor(
    readonly name: string,
    readonly hex: boolean,
    rows = INITIAL_ROWS,
  ) {
    this.data = new Uint8Array(rows * (LENGTH_PREFIX + WORD));
    this.offsets = new Int32Array(rows + 1);
    this.view = new DataView(this.data.buffer);
  }

  private room(extra: number): void {
    if (this.size + extra <= this.data.length) return;
    this.data = grown(this.data, this.size + extra);
    this.view = new DataView(this.data.buffer);
  }

  /** Starts a row. */
  row(): void {
    this.room(LENGTH_PREFIX + 2);
    this.rowStart = this.size;
    this.size += LENGTH_PREFIX;
    if (!this.hex) return;
    this.data[this.size++] = ZERO;
    this.data[this.size++] = X;
  }

  /**
   * Copies bytes [start, start + length) of `src` to `at` (room made): four source bytes read into
   * one integer and stored at once through the data's DataView, the 0–3 left one by one. (A DataView
   * of the source would cost more than it saves: LMDB hands each record in a memory of its own.)
   */
  private copyShort(src: Uint8Array, start: number, length: number, at: number): void {
    const to = this.view;
    const whole = length & ~3;
    for (let i = 0, s = start; i < whole; i += 4, s += 4)
      to.setUint32(at + i, src[s]! | (src[s + 1]! << 8) | (src[s + 2]! << 16) | (src[s + 3]! << 24), true);
    const out = this.data;
    for (let i = whole; i < length; i++) out[at + i] = src[start + i]!;
  }

  /** Writes bytes [start, end) of `src` into the row. */
  bytes(src: Uint8Array, start = 0, end = src.length): void {
    if (!this.hex) {
      this.room(end - start);
      if (end - start <= SHORT_COPY) this.copyShort(src, start, end - start, this.size);
      else this.data.set(src.subarray(start, end), this.size);
      this.size += end - start;
      return;
    }
    this.room(2 * (end - start));
    const out = this.data;
    let p = this.size;
    for (let i = start; i < end; i++) {
      const pair = HEX_PAIRS[src[i]!]!;
      out[p++] = pair & 0xff;
      out[p++] = pair >> 8;
    }
    this.size = p;
  }

  /**
   * Writes a 32-byte word into the row: bytes [start, start + length) of `src` (length ≤ 32) after
   * 32 − length zeros, as a topic or data word is stored without its leading zeros.
   */
  word(src: Uint8Array, start: number, length: number): void {
    if (this.hex) {
      this.zeros(WORD - length);
      this.bytes(src, start, start + length);
      return;
    }
    this.room(WORD);
    const pad = WORD - length;
    const to = this.view;
    let p = this.size;
    const whole = p + (pad & ~3);
    for (; p < whole; p += 4) to.setUint32(p, 0, true);
    for (const end = this.size + pad; p < end; p++) this.data[p] = 0;
    this.copyShort(src, start, length, p);
    this.size += WORD;
  }

  /** Writes `count` zero bytes into the row. */
  zeros(count: number): void {
    const width = this.hex ? 2 * count : count;
    this.room(width);
    const zero = this.hex ? ZERO : 0;
    if (width <= SHORT_FILL) {
      const out = this.data;
      for (let p = this.size, end = p + width; p < end; p++) out[p] = zero;
    } else {
      this.data.fill(zero, this.size, this.size + width);
    }
    this.size += width;
  }

  /** Ends the row. */
  end(): void {
    const len = this.size - this.rowStart - LENGTH_PREFIX;
    const out = this.data;
    out[this.rowStart] = len & 0xff;
    out[this.rowStart + 1] = (len >>> 8) & 0xff;
    out[this.rowStart + 2] = (len >>> 16) & 0xff;
    out[this.rowStart + 3] = len >>> 24;
    if (this.length + 1 === this.offsets.length) this.offsets = grown(this.offsets, this.length + 2);
    this.validity.setValue(this.length);
    this.offsets[++this.length] = this.size;
  }

  /** Appends `value` as one row. */
  push(value: Uint8Array): void {
    this.row();
    this.bytes(value);
    this.end();
  }

  /** Appends `value` (0 ≤ value < 2^256) as a 32-byte big-endian word. */
  pushWord(value: bigint): void {
    this.push(word256(value));
  }

  /** Appends `value`, or a null when it is null or undefined. */
  pushOptional(value: Uint8Array | null | undefined): void {
    if (value === null || value === undefined) this.pushNull();
    else this.push(value);
  }

  /** Appends a null (no bytes). */
  pushNull(): void {
    this.validity.setNull(this.length);
    if (this.length + 1 === this.offsets.length) this.offsets = grown(this.offsets, this.length + 2);
    this.offsets[++this.length] = this.size;
  }

  /** Forgets every row, keeping the buffers (a builder reused for the next chunk). */
  reset(): void {
    this.length = 0;
    this.size = 0;
    this.validity.reset();
  }

  /** The finished column. */
  finish(): ColumnData {
    return {
      name: this.name,
      type: this.hex ? 'string' : 'binary',
      length: this.length,
      nullCount: this.validity.nulls,
      validity: this.validity.finish(this.length),
      values: this.data.subarray(0, this.size),
      offsets: this.offsets.subarray(0, this.length + 1),
    };
  }
}

/**
 * A column whose rows repeat one value in runs (a block's fields over its logs, a transaction's over
 * its logs), dictionary-encoded: `entries` takes each new value once, and a row is the index of the
 * entry added last. No value is hashed or compared: a caller that sees a new block or transaction
 * pushes it to `entries` and then calls repeat() for each of its rows.
 */
export class DictionaryColumn<C extends U32Column | U64Column | BytesColumn> {
  private indices: Uint32Array;
  private readonly validity = new Validity();
  length = 0;

  /** A column over `entries`, a builder that gets no null, with room for `rows` rows before it grows. */
  constructor(
    readonly entries: C,
    rows = INITIAL_ROWS,
  ) {
    this.indices = new Uint32Array(rows);
  }

  /** The column's name, its entries'. */
  get name(): string {
    return this.entries.name;
  }

  /** Appends a row holding the entry pushed last. */
  repeat(): void {
    this.pushEntry(this.entries.length - 1);
  }

  /**
   * Appends a row holding entry `entry` (0 ≤ entry < entries.length), for a caller that keeps the entry
   * of each value.
   */
  pushEntry(entry: number): void {
    if (entry < 0 || entry >= this.entries.length)
      throw new RangeError(`column ${this.name}: entry ${entry} of ${this.entries.length}`);
    if (this.length === this.indices.length) this.indices = grown(this.indices, this.length + 1);
    this.validity.setValue(this.length);
    this.indices[this.length++] = entry;
  }

  /** Appends a null. */
  pushNull(): void {
    if (this.length === this.indices.length) this.indices = grown(this.indices, this.length + 1);
    this.validity.setNull(this.length);
    this.indices[this.length++] = 0;
  }

  /** Forgets every row and entry, keeping the buffers (a builder reused for the next chunk). */
  reset(): void {
    this.length = 0;
    this.validity.reset();
    this.entries.reset();
  }

  /** The finished column. */
  finish(): ColumnData {
    const dictionary = this.entries.finish();
    return {
      name: dictionary.name,
      type: dictionary.type,
      length: this.length,
      nullCount: this.validity.nulls,
      validity: this.validity.finish(this.length),
      values: this.indices.subarray(0, this.length),
      dictionary,
    };
  }
}

/**
 * Column `c` with each row's own value (a dictionary column expanded, a copy; any other as it is): for consumers that
 * take rows in place.
 */
export function withoutDictionary(c: ColumnData): ColumnData {
  const d = c.dictionary;
  if (d === undefined) return c;
  const indices = c.values as Uint32Array;
  const valid = (i: number) => c.nullCount === 0 || ((c.validity[i >> 3]! >> (i & 7)) & 1) === 1;
  if (d.offsets === undefined) {
    const entries = d.values as Uint32Array | BigUint64Array;
    const values = new (entries.constructor as new (n: number) => Uint32Array | BigUint64Array)(c.length);
    for (let i = 0; i < c.length; i++)
      if (valid(i)) (values as unknown as (number | bigint)[])[i] = entries[indices[i]!]!;
    return { name: c.name, type: c.type, length: c.length, nullCount: c.nullCount, validity: c.validity, values };
  }
  const src = d.values as Uint8Array;
  const offsets = new Int32Array(c.length + 1);
  for (let i = 0; i < c.length; i++)
    offsets[i + 1] = offsets[i]! + (valid(i) ? d.offsets[indices[i]! + 1]! - d.offsets[indices[i]!]! : 0);
  const values = new Uint8Array(offsets[c.length]!);
  for (let i = 0; i < c.length; i++)
    if (valid(i)) values.set(src.subarray(d.offsets[indices[i]!]!, d.offsets[indices[i]! + 1]!), offsets[i]!);
  return {
    name: c.name,
    type: c.type,
    length: c.length,
    nullCount: c.nullCount,
    validity: c.validity,
    values,
    offsets,
  };
}

/** A column of ASCII text (decimal numbers). */
export class TextColumn {
  private readonly bytes: BytesColumn;

  /** A column called `name`. */
  constructor(readonly name: string) {
    this.bytes = new BytesColumn(name, false);
  }

  /** Appends `text` (ASCII). */
  push(text: string): void {
    this.bytes.push(Buffer.from(text, 'latin1'));
  }

  /** Appends `text` (ASCII), or a null for undefined. */
  pushOptional(text: string | undefined): void {
    if (text === undefined) this.bytes.pushNull();
    else this.push(text);
  }

  /** The finished column. */
  finish(): ColumnData {
    return { ...this.bytes.finish(), type: 'string' };
  }
}

/**
 * A 256-bit unsigned value as cryo writes one: three columns, NAME_binary (32 bytes big-endian, or
 * 0x-hex with `hex`), NAME_string (decimal) and NAME_f64 (the nearest double).
 */
export class U256Columns {
  private readonly binary: BytesColumn;
  private readonly text: TextColumn;
  private readonly float: F64Column;

  /** The three columns of `name`. */
  constructor(name: string, hex: boolean) {
    this.binary = new BytesColumn(`${name}_binary`, hex);
    this.text = new TextColumn(`${name}_string`);
    this.float = new F64Column(`${name}_f64`);
  }

  /** Appends `value` (0 ≤ value < 2^256). */
  push(value: bigint): void {
    this.binary.pushWord(value);
    this.text.push(value.toString());
    this.float.push(Number(value));
  }

  /** The three finished columns. */
  finish(): ColumnData[] {
    return [this.binary.finish(), this.text.finish(), this.float.finish()];
  }
}
