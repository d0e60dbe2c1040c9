/**
 * Definition levels (src/export/parquet/levels.ts) read back by a decoder of Parquet's RLE /
 * bit-packing hybrid written here from the format's specification: random null patterns, pages
 * starting at any multiple of 8, with and without a bitmap; and the count of values in a page.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BoolColumn } from '#src/export/columns.js';
import { ByteWriter } from '#src/export/parquet/byteWriter.js';
import { valuesIn, writeDefinitionLevels } from '#src/export/parquet/levels.js';

/**
 * Decodes `count` levels of bit width 1 from a data page v1's level section at the start of `bytes`; returns them and
 * the section's size.
 */
function decodeLevels(bytes: Uint8Array, count: number): { levels: number[]; size: number } {
  const length = Buffer.from(bytes).readUInt32LE(0);
  const end = 4 + length;
  let pos = 4;
  const levels: number[] = [];
  const varint = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[pos++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  };
  while (levels.length < count) {
    assert.ok(pos < end, 'runs end within the section');
    const header = varint();
    if ((header & 1) === 0) {
      const value = bytes[pos++]!;
      for (let i = 0; i < header >> 1; i++) levels.push(value);
    } else {
      for (let g = 0; g < header >> 1; g++) {
        const byte = bytes[pos++]!;
        for (let b = 0; b < 8; b++) levels.push((byte >> b) & 1);
      }
    }
  }
  assert.equal(pos, end, 'the length covers the runs');
  const padding = levels.splice(count);
  assert.ok(
    padding.every((l) => l === 0),
    'padding levels are zeros',
  );
  return { levels, size: end };
}

test('levels of random null patterns, any page of them, read back', () => {
  fc.assert(
    fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 600 }), fc.nat(), fc.nat(), (present, a, b) => {
      const column = new BoolColumn('c');
      for (const p of present) {
        if (p) column.push(true);
        else column.pushNull();
      }
      const { validity } = column.finish();
      const start = (a % present.length) & ~7;
      const count = 1 + (b % (present.length - start));
      const out = new ByteWriter(8);
      out.byte(0xee);
      writeDefinitionLevels(out, validity, start, count);
      const { levels, size } = decodeLevels(out.view().subarray(1), count);
      assert.equal(size + 1, out.length);
      assert.deepEqual(
        levels,
        present.slice(start, start + count).map((p) => (p ? 1 : 0)),
      );
      assert.equal(valuesIn(validity, start, count), present.slice(start, start + count).filter((p) => p).length);
    }),
  );
});

test('a page without nulls is one RLE run of 1s', () => {
  const out = new ByteWriter();
  writeDefinitionLevels(out, new Uint8Array(0), 0, 300);
  assert.deepEqual([...out.view()], [3, 0, 0, 0, 0xd8, 0x04, 1]);
  assert.deepEqual(decodeLevels(out.view(), 300).levels, new Array(300).fill(1));
  assert.equal(valuesIn(new Uint8Array(0), 0, 300), 300);
});
