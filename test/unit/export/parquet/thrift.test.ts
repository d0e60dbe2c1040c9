/**
 * The Thrift compact-protocol writer (src/export/parquet/thrift.ts) against a reader of the
 * protocol written here from its specification: random structs (every field type the Parquet
 * footer uses, nested structs, lists short and long, field-id gaps past 15) read back equal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ByteWriter } from '#src/export/parquet/byteWriter.js';
import { CompactType, CompactWriter } from '#src/export/parquet/thrift.js';

/** A decoded value: numbers for integers, booleans, byte arrays, lists, and structs as field id → value. */
type Value = number | boolean | Uint8Array | Value[] | Map<number, Value>;

/** A reader of the compact protocol over `bytes`. */
class CompactReader {
  pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  private varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.bytes[this.pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
  }

  private zigzag(): number {
    const v = this.varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  private value(type: number): Value {
    switch (type) {
      case CompactType.TRUE:
        return true;
      case CompactType.FALSE:
        return false;
      case CompactType.BYTE:
        return this.bytes[this.pos++]!;
      case CompactType.I16:
      case CompactType.I32:
      case CompactType.I64:
        return this.zigzag();
      case CompactType.BINARY: {
        const n = this.varint();
        this.pos += n;
        return this.bytes.slice(this.pos - n, this.pos);
      }
      case CompactType.LIST: {
        const header = this.bytes[this.pos++]!;
        const size = header >> 4 === 15 ? this.varint() : header >> 4;
        const element = header & 0x0f;
        return Array.from({ length: size }, () => this.value(element));
      }
      case CompactType.STRUCT:
        return this.struct();
      default:
        throw new Error(`type ${type}`);
    }
  }

  /** Reads a struct up to its stop byte. */
  struct(): Map<number, Value> {
    const fields = new Map<number, Value>();
    let last = 0;
    for (;;) {
      const header = this.bytes[this.pos++]!;
      if (header === 0) return fields;
      const delta = header >> 4;
      const id = delta === 0 ? this.zigzag() : last + delta;
      fields.set(id, this.value(header & 0x0f));
      last = id;
    }
  }
}

/** A field to write: its id and what it holds. */
type Field =
  | { id: number; kind: 'bool'; value: boolean }
  | { id: number; kind: 'i8'; value: number }
  | { id: number; kind: 'i32' | 'i64'; value: number }
  | { id: number; kind: 'binary'; value: Uint8Array }
  | { id: number; kind: 'i32List'; value: number[] }
  | { id: number; kind: 'stringList'; value: string[] }
  | { id: number; kind: 'struct'; value: Field[] }
  | { id: number; kind: 'structList'; value: Field[][] };

/** Writes `fields` (ids increasing) with the writer under test. */
function write(t: CompactWriter, fields: Field[]): void {
  for (const f of fields) {
    switch (f.kind) {
      case 'bool':
        t.bool(f.id, f.value);
        break;
      case 'i8':
        t.i8(f.id, f.value);
        break;
      case 'i32':
        t.i32(f.id, f.value);
        break;
      case 'i64':
        t.i64(f.id, f.value);
        break;
      case 'binary':
        t.binary(f.id, f.value);
        break;
      case 'i32List':
        t.i32List(f.id, f.value);
        break;
      case 'stringList':
        t.stringList(f.id, f.value);
        break;
      case 'struct':
        t.begin(f.id);
        write(t, f.value);
        t.end();
        break;
      case 'structList':
        t.structList(f.id, f.value.length);
        for (const element of f.value) {
          t.beginElement();
          write(t, element);
          t.end();
        }
        break;
    }
  }
}

/** What the reader should give for `fields`. */
function expected(fields: Field[]): Map<number, Value> {
  return new Map(
    fields.map((f): [number, Value] => {
      switch (f.kind) {
        case 'i8':
          return [f.id, f.value & 0xff];
        case 'stringList':
          return [f.id, f.value.map((s) => new Uint8Array(Buffer.from(s, 'utf8')))];
        case 'struct':
          return [f.id, expected(f.value)];
        case 'structList':
          return [f.id, f.value.map(expected)];
        default:
          return [f.id, f.value];
      }
    }),
  );
}

/** Random increasing field ids with gaps of 1 to 40 (past 15: the long field header). */
const ids = (n: number) =>
  fc
    .array(fc.integer({ min: 1, max: 40 }), { minLength: n, maxLength: n })
    .map((gaps) => gaps.map((_, i) => gaps.slice(0, i + 1).reduce((a, b) => a + b, 0)));

/** Random structs up to `depth` levels of nesting. */
function fieldsOf(depth: number): fc.Arbitrary<Field[]> {
  const leaf: fc.Arbitrary<Omit<Field, 'id'>>[] = [
    fc.boolean().map((value) => ({ kind: 'bool' as const, value })),
    fc.integer({ min: -128, max: 127 }).map((value) => ({ kind: 'i8' as const, value })),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((value) => ({ kind: 'i32' as const, value })),
    fc.integer({ min: -(2 ** 52) + 1, max: 2 ** 52 - 1 }).map((value) => ({ kind: 'i64' as const, value })),
    fc.uint8Array({ maxLength: 300 }).map((value) => ({ kind: 'binary' as const, value })),
    fc
      .array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 40 })
      .map((value) => ({ kind: 'i32List' as const, value })),
    fc.array(fc.string(), { maxLength: 20 }).map((value) => ({ kind: 'stringList' as const, value })),
  ];
  const kinds =
    depth === 0
      ? leaf
      : [
          ...leaf,
          fieldsOf(depth - 1).map((value) => ({ kind: 'struct' as const, value })),
          fc.array(fieldsOf(depth - 1), { maxLength: 17 }).map((value) => ({ kind: 'structList' as const, value })),
        ];
  return fc
    .array(fc.oneof(...kinds), { maxLength: 8 })
    .chain((values) => ids(values.length).map((list) => values.map((v, i) => ({ ...v, id: list[i]! }) as Field)));
}

test('random structs read back equal through a compact-protocol reader', () => {
  fc.assert(
    fc.property(fieldsOf(2), (fields) => {
      const out = new ByteWriter(16);
      const t = new CompactWriter(out);
      write(t, fields);
      t.end();
      const reader = new CompactReader(out.view());
      assert.deepEqual(reader.struct(), expected(fields));
      assert.equal(reader.pos, out.length, 'every byte read');
    }),
  );
});

test('known encodings: a short field header, a long one, a list of 15', () => {
  const out = new ByteWriter();
  const t = new CompactWriter(out);
  t.i32(1, 3);
  t.i64(20, -1);
  t.i32List(
    21,
    Array.from({ length: 15 }, () => 0),
  );
  t.end();
  assert.deepEqual([...out.view()], [0x15, 6, 0x06, 40, 1, 0x19, 0xf5, 15, ...new Array(15).fill(0), 0]);
});
