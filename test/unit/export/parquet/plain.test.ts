/**
 * PLAIN values (src/export/parquet/plain.ts) of columns built by the export's own builders, read
 * back by a PLAIN decoder written here from the format's specification: every column type, random
 * values and nulls, any page (starting at a multiple of 8) of them; nulls have no value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BoolColumn, BytesColumn, type ColumnData, F64Column, U32Column, U64Column } from '#src/export/columns.js';
import { ByteWriter } from '#src/export/parquet/byteWriter.js';
import { writePlain } from '#src/export/parquet/plain.js';

type Cell = number | bigint | boolean | string | null;

/** Decodes `count` PLAIN values of `type` from `bytes`, which they fill exactly. */
function decodePlain(type: ColumnData['type'], bytes: Uint8Array, count: number): Cell[] {
  const view = Buffer.from(bytes);
  const out: Cell[] = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    switch (type) {
      case 'u32':
        out.push(view.readUInt32LE(pos));
        pos += 4;
        break;
      case 'u64':
        out.push(view.readBigUInt64LE(pos));
        pos += 8;
        break;
      case 'f64':
        out.push(view.readDoubleLE(pos));
        pos += 8;
        break;
      case 'bool':
        out.push(((view[i >> 3]! >> (i & 7)) & 1) === 1);
        break;
      default: {
        const n = view.readUInt32LE(pos);
        out.push(view.subarray(pos + 4, pos + 4 + n).toString('hex'));
        pos += 4 + n;
      }
    }
  }
  assert.equal(type === 'bool' ? (count + 7) >> 3 : pos, bytes.length, 'the values fill the bytes');
  if (type === 'bool' && (count & 7) !== 0)
    assert.equal(view[view.length - 1]! >> (count & 7), 0, 'padding bits are zeros');
  return out;
}

/** Random cells of one type (null in about a fifth of them), and the column the builders make of them. */
const columns = fc.oneof(
  fc.array(fc.option(fc.nat({ max: 2 ** 32 - 1 }), { freq: 5 }), { minLength: 1, maxLength: 300 }).map((cells) => {
    const c = new U32Column('u32');
    for (const v of cells)
      if (v === null) c.pushNull();
      else c.push(v);
    return { cells: cells as Cell[], column: c.finish() };
  }),
  fc
    .array(fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { freq: 5 }), { minLength: 1, maxLength: 300 })
    .map((cells) => {
      const c = new U64Column('u64');
      for (const v of cells) c.pushOptional(v ?? undefined);
      return { cells: cells as Cell[], column: c.finish() };
    }),
  fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 300 }).map((cells) => {
    const c = new F64Column('f64');
    for (const v of cells) c.push(v);
    return { cells: cells as Cell[], column: c.finish() };
  }),
  fc.array(fc.option(fc.boolean(), { freq: 5 }), { minLength: 1, maxLength: 300 }).map((cells) => {
    const c = new BoolColumn('bool');
    for (const v of cells) c.pushOptional(v ?? undefined);
    return { cells: cells as Cell[], column: c.finish() };
  }),
  fc
    .tuple(
      fc.boolean(),
      fc.array(fc.option(fc.uint8Array({ maxLength: 90 }), { freq: 5 }), { minLength: 1, maxLength: 300 }),
    )
    .map(([hex, cells]) => {
      const c = new BytesColumn('bytes', hex);
      for (const v of cells) c.pushOptional(v);
      const text = (v: Uint8Array) =>
        (hex ? Buffer.from('0x' + Buffer.from(v).toString('hex'), 'latin1') : Buffer.from(v)).toString('hex');
      return { cells: cells.map((v) => (v === null ? null : text(v))) as Cell[], column: c.finish() };
    }),
);

test('a page of any column reads back as its non-null cells', () => {
  fc.assert(
    fc.property(columns, fc.nat(), fc.nat(), ({ cells, column }, a, b) => {
      const start = (a % cells.length) & ~7;
      const count = 1 + (b % (cells.length - start));
      const page = cells.slice(start, start + count).filter((v) => v !== null);
      const out = new ByteWriter(8);
      writePlain(out, column, start, count);
      assert.deepEqual(decodePlain(column.type, out.view(), page.length), page);
    }),
  );
});
