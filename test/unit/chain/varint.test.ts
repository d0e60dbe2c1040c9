/**
 * The varint codec: known encodings, the write/read round trip for every value up to 2^53, and the
 * checked reader's refusals of truncated, overlong and too large varints.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { readVarint, readVarintWithin, skipVarint, varintEnd, varintSize, writeVarint } from '#src/chain/varint.js';

test('known encodings (protobuf documentation values)', () => {
  const rows: [number, number[]][] = [
    [0, [0x00]],
    [1, [0x01]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [150, [0x96, 0x01]],
    [300, [0xac, 0x02]],
    [16_383, [0xff, 0x7f]],
    [16_384, [0x80, 0x80, 0x01]],
    [2 ** 53 - 1, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]],
  ];
  for (const [value, bytes] of rows) {
    const out = new Uint8Array(10);
    assert.equal(writeVarint(out, 0, value), bytes.length, `${value}`);
    assert.deepEqual([...out.subarray(0, bytes.length)], bytes, `${value}`);
    assert.equal(varintSize(value), bytes.length, `${value}`);
    assert.equal(readVarint(Uint8Array.from(bytes), 0), value);
    assert.equal(varintEnd, bytes.length);
  }
});

test('round trip at any offset: write, then read (trusted and checked) and skip to the same end', () => {
  fc.assert(
    fc.property(fc.nat({ max: 16 }), fc.maxSafeNat(), (offset, value) => {
      const out = new Uint8Array(offset + 10).fill(0xee);
      const end = writeVarint(out, offset, value);
      assert.equal(end - offset, varintSize(value));
      assert.equal(readVarint(out, offset), value);
      assert.equal(varintEnd, end);
      assert.equal(readVarintWithin(out, offset, end), value);
      assert.equal(varintEnd, end);
      assert.equal(skipVarint(out, offset), end);
    }),
  );
});

test('the checked reader refuses a varint cut by its end, longer than 10 bytes, or past 2^53', () => {
  const rows: [string, number[], number][] = [
    ['empty', [], 0],
    ['cut', [0x80, 0x80], 2],
    ['cut by the end given, not the buffer', [0x80, 0x01], 1],
    ['11 bytes', [...Array(10).fill(0x80), 0x01], 11],
    ['2^53', [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10], 8],
  ];
  for (const [name, bytes, end] of rows) assert.equal(readVarintWithin(Uint8Array.from(bytes), 0, end), -1, name);
});
