/**
 * keyOrder against a stable comparison sort: random hashes, keys sharing long prefixes (storage
 * keys of a few contracts), duplicates (which must keep their order: the last put of a key wins),
 * keys shorter than a pass and lengths that end inside one, runs at and past the insertion
 * threshold; keys of mixed lengths are refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyOrder, packedKeyOrder } from '#src/store/keyOrder.js';
import { Rng } from './fixtures.js';

/** The order a stable sort with Buffer.compare gives (equal keys by index). */
function expectedOrder(keys: Uint8Array[]): number[] {
  return [...keys.keys()].sort((a, b) => Buffer.compare(keys[a]!, keys[b]!) || a - b);
}

function check(keys: Uint8Array[], what: string): void {
  const expected = expectedOrder(keys);
  assert.deepEqual([...keyOrder(keys)], expected, what);
  const width = keys[0]?.length ?? 0;
  assert.deepEqual([...packedKeyOrder(Buffer.concat(keys), width, keys.length)], expected, `${what}, packed`);
}

test('random keys of one length, with duplicates, in every size around the insertion threshold', () => {
  const rng = new Rng(18);
  for (const width of [1, 3, 5, 7, 10, 12, 32]) {
    for (const count of [0, 1, 2, 7, 8, 9, 10, 100, 3000]) {
      const keys = Array.from({ length: count }, () => rng.bytes(width));
      for (let i = 0; i < count / 10; i++) keys.push(Buffer.from(keys[rng.int(keys.length)]!));
      check(keys, `${count} keys of ${width} bytes`);
    }
  }
});

test(
  'keys that share long prefixes: storage keys of a few ' +
    'contracts, slots of a few patterns, one slot written many times',
  () => {
    const rng = new Rng(7);
    const contracts = Array.from({ length: 5 }, () => rng.bytes(20));
    // Two contracts that share their first 11 bytes: a tie run that ends inside a pass.
    contracts.push(Buffer.concat([contracts[0]!.subarray(0, 11), rng.bytes(9)]));
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 20_000; i++) {
      const address = contracts[rng.int(contracts.length)]!;
      const slot = rng.chance(0.3) ? Buffer.concat([new Uint8Array(31), Uint8Array.of(rng.int(4))]) : rng.bytes(32);
      const suffix = new Uint8Array(8).fill(255);
      suffix[7] = 255 - rng.int(3);
      keys.push(Buffer.concat([address, slot, suffix]));
    }
    check(keys, 'storage-like keys');
    // Every key equal: the given order is kept.
    check(
      Array.from({ length: 50 }, () => Buffer.from(keys[0]!)),
      'equal keys',
    );
  },
);

test('keys of mixed lengths are refused', () => {
  assert.throws(() => keyOrder([new Uint8Array(32), new Uint8Array(31)]), RangeError);
});

test('packed keys: a buffer longer than its keys is read up to them, one too short is refused', () => {
  const rng = new Rng(3);
  const keys = Array.from({ length: 50 }, () => rng.bytes(16));
  const bytes = Buffer.concat([...keys, rng.bytes(40)]);
  assert.deepEqual([...packedKeyOrder(bytes, 16, keys.length)], expectedOrder(keys));
  assert.throws(() => packedKeyOrder(new Uint8Array(31), 16, 2), RangeError);
});
