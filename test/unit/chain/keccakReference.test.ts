import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256 } from '#src/chain/keccak.js';

function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x;
  }
  return out;
}

test('keccak256 equals @noble/hashes keccak_256 for every length around the 136-byte rate', () => {
  for (let length = 0; length <= 3 * 136 + 2; length++) {
    const data = pseudoRandomBytes(length, length + 7);
    assert.deepEqual(keccak256(data), keccak_256(data), `length ${length}`);
  }
});

test('keccak256 equals @noble/hashes on long inputs and all-0xff bytes', () => {
  for (const length of [1000, 4096, 65_537]) {
    const data = pseudoRandomBytes(length, length);
    assert.deepEqual(keccak256(data), keccak_256(data));
  }
  const ff = new Uint8Array(300).fill(0xff);
  assert.deepEqual(keccak256(ff), keccak_256(ff));
});

test('keccak256 returns a fresh array each call', () => {
  const a = keccak256(Uint8Array.of(1));
  const b = keccak256(Uint8Array.of(2));
  assert.notDeepEqual(a, b);
  assert.deepEqual(a, keccak_256(Uint8Array.of(1)));
});
