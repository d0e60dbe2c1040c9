/**
 * Dictionary encoding (src/export/parquet/dictionary.ts, DictionaryColumn in src/export/columns.ts)
 * against decoders written here from the format's specification: the RLE / bit-packing hybrid of a
 * page's indices (bit width byte, RLE and bit-packed runs) for random runs, nulls and pages, and for
 * indices that change from row to row at every bit width; which runs are RLE and which bit-packed;
 * the narrowest bit width; a dictionary column's entries as its dictionary page's PLAIN values, each row
 * the entry it repeated.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BytesColumn, DictionaryColumn, U32Column, U64Column, withoutDictionary } from '#src/export/columns.js';
import { ByteWriter } from '#src/export/parquet/byteWriter.js';
import { indexBitWidth, writeDictionaryIndices } from '#src/export/parquet/dictionary.js';
import { writePlain } from '#src/export/parquet/plain.js';

/** Reads an unsigned LEB128 varint of `bytes` at `pos`: its value and the position after it. */
function varint(bytes: Uint8Array, pos: number): [number, number] {
  let value = 0;
  let shift = 1;
  for (;;) {
    const b = bytes[pos++]!;
    value += (b & 0x7f) * shift;
    if (b < 0x80) return [value, pos];
    shift *= 0x80;
  }
}

/**
 * Decodes RLE_DICTIONARY page values from the specification: a byte of bit width, then runs to the
 * end of `bytes`, each a varint header; header & 1: (header >> 1) groups of 8 values bit-packed
 * least significant bit first; else an RLE run of (header >> 1) copies of a value in
 * ceil(width / 8) little-endian bytes. Returns the first `count` values and the bit width.
 */
function decodeIndices(bytes: Uint8Array, count: number): { width: number; values: number[] } {
  const width = bytes[0]!;
  const values: number[] = [];
  let pos = 1;
  while (pos < bytes.length) {
    const [header, next] = varint(bytes, pos);
    pos = next;
    if ((header & 1) === 1) {
      const n = (header >> 1) * 8;
      for (let i = 0; i < n; i++) {
        let v = 0;
        for (let b = 0; b < width; b++) {
          const bit = i * width + b;
          v |= ((bytes[pos + (bit >> 3)]! >> (bit & 7)) & 1) << b;
        }
        values.push(v >>> 0);
      }
      pos += (header >> 1) * width;
    } else {
      let v = 0;
      for (let b = 0; b < (width + 7) >> 3; b++) v += bytes[pos++]! * 2 ** (8 * b);
      for (let i = 0; i < header >> 1; i++) values.push(v);
    }
  }
  assert.equal(pos, bytes.length, 'the runs fill the bytes');
  assert.ok(values.length >= count, 'every value is decoded');
  return { width, values: values.slice(0, count) };
}

/**
 * The runs of a page's values (after the bit width byte): each RLE run's length, or a bit-packed run's groups as 'p' +
 * groups.
 */
function runKinds(bytes: Uint8Array, width: number): string[] {
  const kinds: string[] = [];
  let pos = 1;
  while (pos < bytes.length) {
    const [header, next] = varint(bytes, pos);
    if ((header & 1) === 1) {
      kinds.push(`p${header >> 1}`);
      pos = next + (header >> 1) * width;
    } else {
      kinds.push(String(header >> 1));
      pos = next + ((width + 7) >> 3);
    }
  }
  return kinds;
}

/** Random rows in runs: each run one index or, about a sixth of its rows, null. */
const runs = fc.array(fc.tuple(fc.nat({ max: 70_000 }), fc.integer({ min: 1, max: 40 }), fc.boolean()), {
  minLength: 1,
  maxLength: 60,
});

test('a page of dictionary indices reads back as its non-null rows', () => {
  fc.assert(
    fc.property(runs, fc.nat(), fc.nat(), (list, startSeed, countSeed) => {
      const indices: number[] = [];
      const nulls: boolean[] = [];
      for (const [index, length, withNulls] of list) {
        for (let i = 0; i < length; i++) {
          indices.push(index);
          nulls.push(withNulls && (index + i) % 6 === 0);
        }
      }
      const rows = indices.length;
      const validity = new Uint8Array((rows + 7) >> 3);
      nulls.forEach((isNull, i) => {
        if (!isNull) validity[i >> 3]! |= 1 << (i & 7);
      });
      const start = (startSeed % ((rows >> 3) + 1)) * 8;
      const count = start >= rows ? 0 : 1 + (countSeed % (rows - start));
      const entries = Math.max(...indices) + 1;
      const width = indexBitWidth(entries);
      const out = new ByteWriter();
      const bitmap = nulls.includes(true) ? validity : new Uint8Array(0);
      writeDictionaryIndices(out, Uint32Array.from(indices), bitmap, start, count, width);
      const expected = indices.slice(start, start + count).filter((_, i) => !nulls[start + i]);
      const decoded = decodeIndices(out.view(), expected.length);
      assert.equal(decoded.width, width);
      assert.deepEqual(decoded.values, expected);
    }),
  );
});

test('indices that change from row to row are bit-packed, at every bit width, and read back', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 32 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 300 }),
      fc.array(fc.boolean(), { maxLength: 300 }),
      (width, seeds, nullSeeds) => {
        const max = 2 ** width;
        const indices = Uint32Array.from(seeds, (s) => s % max);
        const rows = indices.length;
        const nulls = Array.from(indices, (_, i) => nullSeeds[i] === true);
        const validity = new Uint8Array((rows + 7) >> 3);
        nulls.forEach((isNull, i) => {
          if (!isNull) validity[i >> 3]! |= 1 << (i & 7);
        });
        const bitmap = nulls.includes(true) ? validity : new Uint8Array(0);
        const out = new ByteWriter();
        writeDictionaryIndices(out, indices, bitmap, 0, rows, width);
        const expected = [...indices].filter((_, i) => bitmap.length === 0 || !nulls[i]);
        const decoded = decodeIndices(out.view(), expected.length);
        assert.equal(decoded.width, width);
        assert.deepEqual(decoded.values, expected);
      },
    ),
  );
});

test('runs of 8 or more equal indices are RLE runs, the indices between them bit-packed groups of 8', () => {
  const cases: { name: string; indices: number[]; kinds: string[] }[] = [
    { name: 'one long run', indices: Array(100).fill(3), kinds: ['100'] },
    {
      name: 'runs of a block each',
      indices: [...Array(20).fill(0), ...Array(9).fill(1), ...Array(8).fill(2)],
      kinds: ['20', '9', '8'],
    },
    {
      name: 'short runs: one bit-packed run, its last group padded',
      indices: [0, 0, 1, 1, 1, 2, 3, 3, 3, 4],
      kinds: ['p2'],
    },
    {
      name: 'a long run after bit-packed groups starts at a group boundary',
      indices: [1, 2, 3, 4, 5, 6, 7, 0, ...Array(12).fill(9)],
      kinds: ['p1', '12'],
    },
    {
      name: 'a long run inside a group: its start packed, the rest RLE',
      indices: [1, 2, 3, ...Array(14).fill(9)],
      kinds: ['p1', '9'],
    },
    {
      name: 'a run of 7 at a boundary stays packed',
      indices: [1, 2, 3, 4, 5, 6, 7, 0, ...Array(7).fill(9), 4],
      kinds: ['p2'],
    },
  ];
  for (const { name, indices, kinds } of cases) {
    const out = new ByteWriter();
    writeDictionaryIndices(out, Uint32Array.from(indices), new Uint8Array(0), 0, indices.length, 4);
    assert.deepEqual(runKinds(out.view(), 4), kinds, name);
    assert.deepEqual(decodeIndices(out.view(), indices.length).values, indices, name);
  }
});

test('an index takes the fewest bits that hold every entry, at least one', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 31 }), (entries) => {
      const width = indexBitWidth(entries);
      assert.ok(width >= 1);
      assert.ok(2 ** width >= entries, 'the last entry fits');
      assert.ok(width === 1 || 2 ** (width - 1) < entries, 'one bit fewer would not do');
    }),
  );
});

test('a dictionary column: its entries are the dictionary page, each row the entry it repeated', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.nat({ max: 2 ** 32 - 1 }),
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.integer({ min: 1, max: 5 }),
          fc.boolean(),
        ),
        { maxLength: 50 },
      ),
      fc.boolean(),
      (list, hex) => {
        const u32 = new DictionaryColumn(new U32Column('n'));
        const u64 = new DictionaryColumn(new U64Column('c'));
        const bytes = new DictionaryColumn(new BytesColumn('h', hex));
        const cells: (readonly [number, string] | null)[] = [];
        for (const [value, hash, length, leadingNull] of list) {
          if (leadingNull) {
            for (const d of [u32, u64, bytes]) d.pushNull();
            cells.push(null);
          }
          u32.entries.push(value);
          u64.entries.push(BigInt(value) << 20n);
          bytes.entries.push(hash);
          for (let i = 0; i < length; i++) {
            for (const d of [u32, u64, bytes]) d.repeat();
            cells.push([value, Buffer.from(hash).toString('hex')]);
          }
        }
        const [n, c, h] = [u32.finish(), u64.finish(), bytes.finish()];
        for (const column of [n, c, h]) {
          assert.equal(column.length, cells.length);
          assert.equal(column.nullCount, cells.filter((x) => x === null).length);
          assert.equal(column.dictionary!.length, list.length);
          assert.equal(column.dictionary!.nullCount, 0);
        }
        // The dictionary page: PLAIN values of the entries, in order of first use.
        const page = new ByteWriter();
        writePlain(page, n.dictionary!, 0, list.length);
        const view = Buffer.from(page.view());
        assert.deepEqual(
          list.map((_, i) => view.readUInt32LE(4 * i)),
          list.map(([value]) => value),
        );
        const hashes = new ByteWriter();
        writePlain(hashes, h.dictionary!, 0, list.length);
        const width = hex ? 66 : 32;
        const hv = Buffer.from(hashes.view());
        assert.equal(hv.length, list.length * (4 + width));
        list.forEach(([, hash], i) => {
          assert.equal(hv.readUInt32LE(i * (4 + width)), width);
          const text = hv.subarray(i * (4 + width) + 4, (i + 1) * (4 + width));
          assert.equal(
            hex ? text.toString('latin1') : text.toString('hex'),
            hex ? '0x' + Buffer.from(hash).toString('hex') : Buffer.from(hash).toString('hex'),
          );
        });
        // Each row's value, through the expansion the baseline writers take.
        const rowsN = withoutDictionary(n).values as Uint32Array;
        const rowsC = withoutDictionary(c).values as BigUint64Array;
        const expanded = withoutDictionary(h);
        cells.forEach((cell, i) => {
          if (cell === null) {
            assert.equal(expanded.offsets![i + 1], expanded.offsets![i], `row ${i} is null: no bytes`);
            return;
          }
          assert.equal(rowsN[i], cell[0]);
          assert.equal(rowsC[i], BigInt(cell[0]) << 20n);
          const entry = Buffer.from(
            (expanded.values as Uint8Array).subarray(expanded.offsets![i]! + 4, expanded.offsets![i + 1]!),
          );
          assert.equal(hex ? entry.toString('latin1') : entry.toString('hex'), hex ? '0x' + cell[1] : cell[1]);
        });
      },
    ),
  );
});
