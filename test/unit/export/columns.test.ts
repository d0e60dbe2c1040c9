/**
 * The column builders (src/export/columns.ts) and the row builders' agreement with SCHEMAS: raw
 * bytes or 0x-hex in PLAIN's length-prefixed entries, nulls in the validity bitmap, 256-bit values as cryo's three
 * columns, and
 * every datatype's builder writing exactly the documented columns in order, in both byte modes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BlockRows } from '#src/export/blockRows.js';
import {
  BoolColumn,
  BytesColumn,
  type ColumnData,
  LENGTH_PREFIX,
  U32Column,
  U64Column,
  U256Columns,
} from '#src/export/columns.js';
import { LogRows } from '#src/export/logRows.js';
import { ReceiptRows } from '#src/export/receiptRows.js';
import { type ExportKind, SCHEMAS } from '#src/export/schemas.js';
import { TransactionRows } from '#src/export/transactionRows.js';

/** Row i of a finished byte column (its PLAIN entry without the length), or null. */
function cell(c: ColumnData, i: number): Uint8Array | null {
  if (c.nullCount > 0 && ((c.validity[i >> 3]! >> (i & 7)) & 1) === 0) return null;
  const entry = (c.values as Uint8Array).subarray(c.offsets![i]!, c.offsets![i + 1]!);
  assert.equal(Buffer.from(entry).readUInt32LE(0), entry.length - LENGTH_PREFIX, 'the entry opens with its length');
  return entry.subarray(LENGTH_PREFIX);
}

test('byte columns hold every row, raw or as 0x-hex, with nulls', () => {
  fc.assert(
    fc.property(fc.array(fc.option(fc.uint8Array({ maxLength: 80 }), { nil: null }), { maxLength: 300 }), (values) => {
      const raw = new BytesColumn('b', false);
      const hex = new BytesColumn('h', true);
      for (const v of values) {
        raw.pushOptional(v);
        hex.pushOptional(v);
      }
      const r = raw.finish();
      const h = hex.finish();
      assert.equal(r.type, 'binary');
      assert.equal(h.type, 'string');
      assert.equal(r.nullCount, values.filter((v) => v === null).length);
      values.forEach((v, i) => {
        assert.deepEqual(cell(r, i), v === null ? null : new Uint8Array(v));
        const text = cell(h, i);
        assert.equal(
          text === null ? null : Buffer.from(text).toString('latin1'),
          v === null ? null : '0x' + Buffer.from(v).toString('hex'),
        );
      });
    }),
  );
});

test('a row written in pieces: zeros then bytes (a topic re-padded to 32 bytes)', () => {
  const c = new BytesColumn('t', false);
  c.row();
  c.zeros(30);
  c.bytes(Uint8Array.of(9, 1, 2, 9), 1, 3);
  c.end();
  const expected = new Uint8Array(32);
  expected.set([1, 2], 30);
  assert.deepEqual(cell(c.finish(), 0), expected);
});

test('integer and boolean columns keep values and nulls past their first growth', () => {
  const u32 = new U32Column('a');
  const u64 = new U64Column('b');
  const bool = new BoolColumn('c');
  for (let i = 0; i < 5000; i++) {
    if (i % 7 === 3) {
      u32.pushNull();
      u64.pushNull();
      bool.pushNull();
    } else {
      u32.push(i);
      u64.push(BigInt(i) << 40n);
      bool.push(i % 2 === 0);
    }
  }
  const [a, b, c] = [u32.finish(), u64.finish(), bool.finish()];
  for (let i = 0; i < 5000; i++) {
    const valid = ((a.validity[i >> 3]! >> (i & 7)) & 1) === 1;
    assert.equal(valid, i % 7 !== 3, `row ${i}`);
    assert.deepEqual(b.validity, a.validity);
    assert.deepEqual(c.validity, a.validity);
    if (!valid) continue;
    assert.equal((a.values as Uint32Array)[i], i);
    assert.equal((b.values as BigUint64Array)[i], BigInt(i) << 40n);
    assert.equal(((c.values as Uint8Array)[i >> 3]! >> (i & 7)) & 1, i % 2 === 0 ? 1 : 0);
  }
});

test('u64 keeps the low 64 bits of a larger value (cryo wraps)', () => {
  const c = new U64Column('d');
  c.push((1n << 64n) + 5n);
  assert.equal((c.finish().values as BigUint64Array)[0], 5n);
});

test('a 256-bit value as _binary (32 bytes), _string (decimal) and _f64', () => {
  const c = new U256Columns('value', false);
  const v = 10n ** 30n + 7n;
  c.push(v);
  const [binary, text, float] = c.finish();
  assert.deepEqual([binary!.name, text!.name, float!.name], ['value_binary', 'value_string', 'value_f64']);
  assert.equal(Buffer.from(cell(binary!, 0)!).toString('hex'), v.toString(16).padStart(64, '0'));
  assert.equal(Buffer.from(cell(text!, 0)!).toString('latin1'), v.toString());
  assert.equal((float!.values as Float64Array)[0], Number(v));
});

test('every datatype writes exactly the columns SCHEMAS lists, with their types', () => {
  const builders: Record<ExportKind, (hex: boolean) => ColumnData[]> = {
    logs: (hex) => new LogRows(hex, 1n).finish(),
    blocks: (hex) => new BlockRows(hex, 1n).finish(),
    transactions: (hex) => new TransactionRows(hex, 1n).finish(),
    receipts: (hex) => new ReceiptRows(hex, 1n).finish(),
  };
  for (const hex of [false, true]) {
    for (const [kind, build] of Object.entries(builders) as [ExportKind, (hex: boolean) => ColumnData[]][]) {
      const expected = SCHEMAS[kind].map(
        (c) => `${c.name} ${c.type === 'bytes' ? (hex ? 'string' : 'binary') : c.type}`,
      );
      assert.deepEqual(
        build(hex).map((c) => `${c.name} ${c.type}`),
        expected,
        `${kind}${hex ? ' --hex' : ''}`,
      );
    }
  }
});
