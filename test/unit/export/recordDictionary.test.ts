/**
 * RecordDictionary (src/export/recordDictionary.ts): blocks of records, each listing its values
 * once (addresses of 20 bytes; topics as a length byte and the word without leading zeros) and its
 * logs naming them by index in any order, give a column whose rows are the named values (a topic
 * padded back to 32 bytes; raw or 0x-hex) with nulls where pushed, and whose dictionary holds each
 * distinct value once, in order of first use, across blocks and after reset().
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { withoutDictionary } from '#src/export/columns.js';
import { RecordDictionary, type StoredValue } from '#src/export/recordDictionary.js';

/** A value as a record stores it: an address as is; a topic as its length without leading zeros, then those bytes. */
function stored(kind: StoredValue, value: Uint8Array): Uint8Array {
  if (kind === 'address') return value;
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return Uint8Array.from([value.length - i, ...value.subarray(i)]);
}

/**
 * A block: indices into the pool of values (its record's list, repeats removed), and its rows (a list index, or null).
 */
const block = fc.record({
  values: fc.uniqueArray(fc.nat({ max: 11 }), { minLength: 1, maxLength: 8 }),
  rows: fc.array(fc.option(fc.nat(), { nil: null }), { maxLength: 12 }),
});

for (const kind of ['address', 'topic'] as const) {
  test(`${kind}s: each row the value its record names, each distinct value one entry`, () => {
    const width = kind === 'address' ? 20 : 32;
    // Values sharing long zero prefixes and their last bytes, as padded addresses and small numbers do.
    const value = fc
      .uint8Array({ minLength: width, maxLength: width })
      .map((bytes) => bytes.map((b, i) => (i < width - 3 ? 0 : b % 4)));
    fc.assert(
      fc.property(
        fc.uniqueArray(value, { minLength: 12, maxLength: 12, selector: (v) => Buffer.from(v).toString('hex') }),
        fc.array(fc.array(block, { maxLength: 6 }), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        (pool, chunks, hex) => {
          const column = new RecordDictionary('c', hex, kind, 4);
          for (const blocks of chunks) {
            column.reset();
            const expected: (string | null)[] = [];
            for (const { values, rows } of blocks) {
              // The record: a few bytes before, then its values one after another.
              const parts = values.map((v) => stored(kind, pool[v]!));
              const offsets: number[] = [];
              let at = 3;
              for (const p of parts) {
                offsets.push(at);
                at += p.length;
              }
              const raw = Buffer.alloc(at + 2, 0xee);
              parts.forEach((p, i) => raw.set(p, offsets[i]!));
              column.startBlock();
              for (const row of rows) {
                if (row === null) {
                  column.pushNull();
                  expected.push(null);
                  continue;
                }
                const index = row % values.length;
                column.push(raw, index, offsets[index]!);
                expected.push(Buffer.from(pool[values[index]!]!).toString('hex'));
              }
            }
            const finished = column.finish();
            assert.equal(finished.length, expected.length);
            assert.equal(finished.nullCount, expected.filter((e) => e === null).length);
            const distinct = [...new Set(expected.filter((e) => e !== null))];
            assert.equal(finished.dictionary!.length, distinct.length);
            const rows = withoutDictionary(finished);
            expected.forEach((e, i) => {
              const cell = Buffer.from((rows.values as Uint8Array).subarray(rows.offsets![i]!, rows.offsets![i + 1]!));
              if (e === null) return assert.equal(cell.length, 0, `row ${i} is null`);
              const text = cell.subarray(4);
              assert.equal(hex ? text.toString('latin1') : text.toString('hex'), hex ? `0x${e}` : e, `row ${i}`);
            });
          }
        },
      ),
    );
  });
}

test('a record of more values than the memo first holds: each of them found again by its index', () => {
  const count = 600;
  const raw = Buffer.alloc(count * 20);
  for (let i = 0; i < count; i++) raw.writeUInt32BE(i * 7919, i * 20 + 16);
  const column = new RecordDictionary('address', false, 'address', 4);
  for (const pass of [0, 1]) {
    column.startBlock();
    for (let i = 0; i < count; i++) column.push(raw, (i * 37 + pass) % count, ((i * 37 + pass) % count) * 20);
  }
  const finished = column.finish();
  assert.equal(finished.dictionary!.length, count);
  const rows = withoutDictionary(finished);
  for (let r = 0; r < 2 * count; r++) {
    const index = ((r % count) * 37 + Math.floor(r / count)) % count;
    const cell = Buffer.from((rows.values as Uint8Array).subarray(rows.offsets![r]! + 4, rows.offsets![r + 1]!));
    assert.deepEqual(cell, raw.subarray(index * 20, index * 20 + 20), `row ${r}`);
  }
});
