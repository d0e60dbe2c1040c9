/**
 * Thrift's compact protocol, the writing half: the encoding of Parquet's page headers and file
 * metadata. Structs are written field by field in increasing field id (deltas of 1 to 15 in the
 * field header's high nibble), integers as zigzag varints, strings and binaries length-prefixed,
 * lists with their element type and size in one byte when shorter than 15.
 */
import type { ByteWriter } from './byteWriter.js';

/** The compact protocol's type codes of the values Parquet's metadata uses. */
export const CompactType = {
  TRUE: 1,
  FALSE: 2,
  BYTE: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  BINARY: 8,
  LIST: 9,
  STRUCT: 12,
} as const;

/** The longest list whose size fits in its header byte (15 marks a size that follows as a varint). */
const SHORT_LIST = 14;

/** Field ids up to this delta from the previous one go in the field header's high nibble. */
const MAX_DELTA = 15;

/**
 * The zigzag form of `value` (|value| < 2^52, so the form is a safe integer): 0, -1, 1, -2 … become
 * 0, 1, 2, 3 ….
 */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

/** Writes Thrift compact-protocol structs into a ByteWriter. */
export class CompactWriter {
  private lastField = 0;
  private readonly outer: number[] = [];

  /** A writer appending to `out`, at the start of a top-level struct. */
  constructor(readonly out: ByteWriter) {}

  private field(id: number, type: number): void {
    const delta = id - this.lastField;
    if (delta > 0 && delta <= MAX_DELTA) {
      this.out.byte((delta << 4) | type);
    } else {
      this.out.byte(type);
      this.out.varint(zigzag(id));
    }
    this.lastField = id;
  }

  /** Field `id`: a boolean (its value is the field header's type). */
  bool(id: number, value: boolean): void {
    this.field(id, value ? CompactType.TRUE : CompactType.FALSE);
  }

  /** Field `id`: an i8. */
  i8(id: number, value: number): void {
    this.field(id, CompactType.BYTE);
    this.out.byte(value & 0xff);
  }

  /** Field `id`: an i32 (enums are i32 too). */
  i32(id: number, value: number): void {
    this.field(id, CompactType.I32);
    this.out.varint(zigzag(value));
  }

  /** Field `id`: an i64 (|value| < 2^52: file offsets, sizes and counts). */
  i64(id: number, value: number): void {
    this.field(id, CompactType.I64);
    this.out.varint(zigzag(value));
  }

  /** Field `id`: binary bytes. */
  binary(id: number, value: Uint8Array): void {
    this.field(id, CompactType.BINARY);
    this.out.varint(value.length);
    this.out.append(value);
  }

  /** Field `id`: a UTF-8 string. */
  string(id: number, value: string): void {
    this.binary(id, Buffer.from(value, 'utf8'));
  }

  /** Field `id`: a list of i32. */
  i32List(id: number, values: readonly number[]): void {
    this.listHeader(id, CompactType.I32, values.length);
    for (const v of values) this.out.varint(zigzag(v));
  }

  /** Field `id`: a list of UTF-8 strings. */
  stringList(id: number, values: readonly string[]): void {
    this.listHeader(id, CompactType.BINARY, values.length);
    for (const v of values) {
      const bytes = Buffer.from(v, 'utf8');
      this.out.varint(bytes.length);
      this.out.append(bytes);
    }
  }

  /** Field `id`: a list of `size` structs, each then written as beginElement(), its fields, end(). */
  structList(id: number, size: number): void {
    this.listHeader(id, CompactType.STRUCT, size);
  }

  /** Field `id`: a struct, whose fields follow until end(). */
  begin(id: number): void {
    this.field(id, CompactType.STRUCT);
    this.beginElement();
  }

  /** A struct element of a list, whose fields follow until end(). */
  beginElement(): void {
    this.outer.push(this.lastField);
    this.lastField = 0;
  }

  /** Ends the struct begun last (or, with none open, the top-level struct). */
  end(): void {
    this.out.byte(0);
    this.lastField = this.outer.pop() ?? 0;
  }

  private listHeader(id: number, elementType: number, size: number): void {
    this.field(id, CompactType.LIST);
    if (size <= SHORT_LIST) {
      this.out.byte((size << 4) | elementType);
    } else {
      this.out.byte(0xf0 | elementType);
      this.out.varint(size);
    }
  }
}
