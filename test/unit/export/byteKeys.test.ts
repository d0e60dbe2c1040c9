/**
 * ByteKeys (src/export/byteKeys.ts) against a Map keyed by the bytes' hex: the same numbers in
 * order of first sight, for keys read at any offset of any buffer, of any length (empty included),
 * sharing their ends or not, across the table's growth and after clear().
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ByteKeys } from '#src/export/byteKeys.js';

/** The numbers a Map gives `keys` in order of first sight. */
function modelNumbers(keys: readonly Uint8Array[]): number[] {
  const seen = new Map<string, number>();
  return keys.map((k) => {
    const hex = Buffer.from(k).toString('hex');
    if (!seen.has(hex)) seen.set(hex, seen.size);
    return seen.get(hex)!;
  });
}

/** Each key placed at a random offset of a buffer of its own, then numbered by `table`. */
function numbers(table: ByteKeys, keys: readonly Uint8Array[], pads: readonly number[]): number[] {
  return keys.map((k, i) => {
    const pad = pads[i % pads.length]!;
    const buffer = new Uint8Array(pad + k.length + 3).fill(0xee);
    buffer.set(k, pad);
    return table.add(buffer, pad, pad + k.length);
  });
}

test('keys are numbered in order of first sight, as a Map numbers them', () => {
  // Few distinct byte values and short keys, so keys repeat and share their first and last bytes.
  const key = fc.uint8Array({ maxLength: 40 }).map((bytes) => bytes.map((b) => b % 3));
  fc.assert(
    fc.property(
      fc.array(key, { maxLength: 200 }),
      fc.array(fc.nat({ max: 9 }), { minLength: 1, maxLength: 5 }),
      (keys, pads) => {
        const table = new ByteKeys();
        assert.deepEqual(numbers(table, keys, pads), modelNumbers(keys));
        assert.equal(table.size, new Set(keys.map((k) => Buffer.from(k).toString('hex'))).size);
      },
    ),
  );
});

test('the table grows past its first slots and key bytes, and clear() starts the numbering again', () => {
  const keys = Array.from({ length: 5000 }, (_, i) => {
    const k = new Uint8Array(1 + (i % 33));
    k[0] = i & 0xff;
    for (let b = 1; b < k.length; b++) k[b] = (i * 31 + b * 7) >> (b % 5);
    return k;
  });
  const twice = [...keys, ...keys.slice().reverse()];
  const table = new ByteKeys();
  assert.deepEqual(numbers(table, twice, [0, 5]), modelNumbers(twice));
  table.clear();
  assert.equal(table.size, 0);
  const again = keys.slice(100, 200);
  assert.deepEqual(numbers(table, again, [1]), modelNumbers(again));
});
