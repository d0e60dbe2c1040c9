import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeBlockKey,
  decodeStorageKey,
  decodeTxKey,
  encodeBlockKey,
  encodeStorageKey,
  encodeTxKey,
  STORAGE_KEY_BYTES,
  STORAGE_PREFIX_BYTES,
  writeBlockKey,
  writeStorageKey,
  writeTxKey,
} from '#src/store/keys.js';
import { filled, Rng } from './fixtures.js';

const NUMBERS = [
  0,
  1,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 32 + 1,
  2 ** 48,
  Number.MAX_SAFE_INTEGER - 1,
  Number.MAX_SAFE_INTEGER,
];
const INDEXES = [0, 1, 255, 256, 65536, 2 ** 31, 2 ** 32 - 1];

test('block key: 8 bytes big-endian, round trip', () => {
  assert.equal(encodeBlockKey(0).toString('hex'), '0000000000000000');
  assert.equal(encodeBlockKey(0x0102).toString('hex'), '0000000000000102');
  assert.equal(encodeBlockKey(2 ** 32).toString('hex'), '0000000100000000');
  assert.equal(encodeBlockKey(Number.MAX_SAFE_INTEGER).toString('hex'), '001fffffffffffff');
  for (const n of NUMBERS) {
    const key = encodeBlockKey(n);
    assert.equal(key.length, 8);
    assert.equal(decodeBlockKey(key), n);
    assert.equal(decodeBlockKey(new Uint8Array(key)), n);
  }
});

test('block key decodes from a view at a non-zero offset', () => {
  const buf = Buffer.concat([Buffer.from([0xaa, 0xbb, 0xcc]), encodeBlockKey(123456789)]);
  assert.equal(decodeBlockKey(buf.subarray(3)), 123456789);
});

test('tx key: u64 ‖ u32 big-endian, round trip', () => {
  assert.equal(encodeTxKey(1, 2).toString('hex'), '0000000000000001' + '00000002');
  for (const number of NUMBERS) {
    for (const index of INDEXES) {
      const key = encodeTxKey(number, index);
      assert.equal(key.length, 12);
      assert.deepEqual(decodeTxKey(key), { number, index });
    }
  }
  const buf = Buffer.concat([Buffer.from([9, 9]), encodeTxKey(2 ** 32, 7)]);
  assert.deepEqual(decodeTxKey(buf.subarray(2)), { number: 2 ** 32, index: 7 });
});

test('tx key prefix is the block key', () => {
  for (const n of NUMBERS) assert.deepEqual(encodeTxKey(n, 5).subarray(0, 8), encodeBlockKey(n));
});

test('storage key: address ‖ slot ‖ descending block, round trip', () => {
  const rng = new Rng(1);
  for (const number of NUMBERS) {
    const address = rng.bytes(20);
    const slot = rng.bytes(32);
    const key = encodeStorageKey(address, slot, number);
    assert.equal(key.length, 60);
    assert.deepEqual(key.subarray(0, 20), Buffer.from(address));
    assert.deepEqual(key.subarray(20, STORAGE_PREFIX_BYTES), Buffer.from(slot));
    assert.deepEqual(decodeStorageKey(key), { address, slot, number });
  }
  const zero = encodeStorageKey(new Uint8Array(20), new Uint8Array(32), 0);
  assert.equal(zero.subarray(52).toString('hex'), 'ffffffffffffffff');
  assert.equal(
    encodeStorageKey(new Uint8Array(20), new Uint8Array(32), 1).subarray(52).toString('hex'),
    'fffffffffffffffe',
  );
  assert.equal(decodeStorageKey(zero).number, 0);
});

test('block key byte order equals numeric order', () => {
  const rng = new Rng(2);
  const numbers = [...NUMBERS];
  for (let i = 0; i < 500; i++)
    numbers.push(rng.int(2 ** 32) * rng.pick([1, 2 ** 8, 2 ** 16, 2 ** 21]) + rng.int(1000));
  const byBytes = numbers.map(encodeBlockKey).sort(Buffer.compare).map(decodeBlockKey);
  const numeric = [...numbers].sort((a, b) => a - b);
  assert.deepEqual(byBytes, numeric);
});

test('tx key byte order equals (number, index) order', () => {
  const rng = new Rng(3);
  const pairs: Array<[number, number]> = [];
  for (const n of NUMBERS) for (const i of INDEXES) pairs.push([n, i]);
  for (let k = 0; k < 500; k++) pairs.push([rng.int(2 ** 32) * rng.pick([1, 2 ** 16, 2 ** 21]), rng.u32()]);
  const byBytes = pairs
    .map(([n, i]) => encodeTxKey(n, i))
    .sort(Buffer.compare)
    .map((k) => decodeTxKey(k))
    .map(({ number, index }) => [number, index]);
  const numeric = [...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  assert.deepEqual(byBytes, numeric);
});

test('storage keys sort newer blocks first within one address ‖ slot, and group by address ‖ slot', () => {
  const rng = new Rng(4);
  const address = rng.bytes(20);
  const slot = rng.bytes(32);
  const numbers = [...NUMBERS, ...Array.from({ length: 200 }, () => rng.int(2 ** 40))];
  const sorted = numbers
    .map((n) => encodeStorageKey(address, slot, n))
    .sort(Buffer.compare)
    .map((k) => decodeStorageKey(k).number);
  assert.deepEqual(
    sorted,
    [...numbers].sort((a, b) => b - a),
  );

  // Interleave several slots: each address ‖ slot's keys stay contiguous, and newest first.
  const slots = [filled(32, 0), filled(32, 1), filled(32, 0xff), slot];
  const addrs = [filled(20, 0), address, filled(20, 0xff)];
  const keys: Buffer[] = [];
  for (const a of addrs)
    for (const s of slots)
      for (const n of [0, 5, 2 ** 32, Number.MAX_SAFE_INTEGER]) keys.push(encodeStorageKey(a, s, n));
  const decoded = keys.sort(Buffer.compare).map((k) => decodeStorageKey(k));
  for (let i = 1; i < decoded.length; i++) {
    const prev = decoded[i - 1]!;
    const cur = decoded[i]!;
    const prefixCmp = Buffer.compare(Buffer.concat([prev.address, prev.slot]), Buffer.concat([cur.address, cur.slot]));
    assert.ok(prefixCmp <= 0);
    if (prefixCmp === 0) assert.ok(prev.number > cur.number);
  }
});

test('u64 keys without BigInt: the bytes writeBigUInt64BE gives, past 2^53 too, and the same RangeErrors', () => {
  const values = [...NUMBERS, 2 ** 53, 2 ** 60 + 2 ** 12, 2 ** 64 - 2 ** 11];
  for (const n of values) {
    const reference = Buffer.alloc(8);
    reference.writeBigUInt64BE(BigInt(n));
    assert.deepEqual(encodeBlockKey(n), reference);
    assert.deepEqual(encodeTxKey(n, 9).subarray(0, 8), reference);
    const complement = Buffer.alloc(8);
    complement.writeBigUInt64BE(0xffffffffffffffffn - BigInt(n));
    assert.deepEqual(encodeStorageKey(new Uint8Array(20), new Uint8Array(32), n).subarray(52), complement);
    assert.equal(decodeBlockKey(reference), Number(reference.readBigUInt64BE(0)));
  }
  for (const bad of [-1, 0.5, 2 ** 64, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => Buffer.alloc(8).writeBigUInt64BE(BigInt(bad)), RangeError);
    assert.throws(() => encodeBlockKey(bad), RangeError);
    assert.throws(() => encodeTxKey(bad, 0), RangeError);
    assert.throws(() => encodeStorageKey(new Uint8Array(20), new Uint8Array(32), bad), RangeError);
  }
});

test('writeBlockKey and writeTxKey fill a reused buffer with the encoded key', () => {
  const block = Buffer.alloc(8);
  const tx = Buffer.alloc(12);
  for (const n of NUMBERS) {
    assert.equal(writeBlockKey(block, n), block);
    assert.deepEqual(block, encodeBlockKey(n));
    for (const i of INDEXES) {
      assert.equal(writeTxKey(tx, n, i), tx);
      assert.deepEqual(tx, encodeTxKey(n, i));
    }
  }
});

test('writeStorageKey fills a reused buffer with the key encodeStorageKey makes', () => {
  const rng = new Rng(60);
  const key = Buffer.alloc(STORAGE_KEY_BYTES, 0xaa);
  for (const n of NUMBERS) {
    const address = rng.bytes(20);
    const slot = rng.bytes(32);
    assert.equal(writeStorageKey(key, address, slot, n), key);
    assert.deepEqual(key, encodeStorageKey(address, slot, n));
    assert.deepEqual(decodeStorageKey(key), { address, slot, number: n });
  }
});
