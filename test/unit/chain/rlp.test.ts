import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bigIntToBytes, bytesToHex } from '#src/chain/hex.js';
import { type RlpItem, rlpEncode } from '#src/chain/rlp.js';

const str = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const enc = (item: RlpItem): string => bytesToHex(rlpEncode(item));

// Vectors from the RLP section of the Ethereum yellow paper / ethereum.org RLP spec.

test('the string "dog"', () => {
  assert.equal(enc(str('dog')), '0x83646f67');
});

test('the list ["cat", "dog"]', () => {
  assert.equal(enc([str('cat'), str('dog')]), '0xc88363617483646f67');
});

test('the empty string', () => {
  assert.equal(enc(new Uint8Array(0)), '0x80');
});

test('the empty list', () => {
  assert.equal(enc([]), '0xc0');
});

test('the integer 0 (empty bytes)', () => {
  assert.equal(enc(bigIntToBytes(0n)), '0x80');
});

test('the encoded integer 0 (single byte 0x00)', () => {
  assert.equal(enc(Uint8Array.of(0x00)), '0x00');
});

test('the encoded integer 15 (0x0f)', () => {
  assert.equal(enc(bigIntToBytes(15n)), '0x0f');
  assert.equal(enc(Uint8Array.of(0x0f)), '0x0f');
});

test('the encoded integer 1024 (0x0400)', () => {
  assert.equal(enc(bigIntToBytes(1024n)), '0x820400');
});

test('single bytes: below 0x80 stand alone, 0x80 and up get a prefix', () => {
  assert.equal(enc(Uint8Array.of(0x7f)), '0x7f');
  assert.equal(enc(Uint8Array.of(0x80)), '0x8180');
  assert.equal(enc(Uint8Array.of(0xff)), '0x81ff');
});

test('the set-theoretic representation of three [ [], [[]], [ [], [[]] ] ]', () => {
  assert.equal(enc([[], [[]], [[], [[]]]]), '0xc7c0c1c0c3c0c1c0');
});

test('the 56-byte string "Lorem ipsum dolor sit amet, consectetur adipisicing elit"', () => {
  const lorem = 'Lorem ipsum dolor sit amet, consectetur adipisicing elit';
  assert.equal(lorem.length, 56);
  assert.equal(enc(str(lorem)), '0xb838' + Buffer.from(lorem, 'utf8').toString('hex'));
});

test('a 55-byte string keeps the short form; 55/56-byte list bodies switch forms', () => {
  const s55 = new Uint8Array(55).fill(0x61);
  assert.equal(enc(s55), '0xb7' + '61'.repeat(55));
  // A list whose body is 55 bytes: one 54-byte string (prefix 0xb6 + 54 bytes).
  assert.equal(enc([new Uint8Array(54).fill(0x61)]), '0xf7b6' + '61'.repeat(54));
  // A list whose body is 56 bytes: one 55-byte string.
  assert.equal(enc([s55]), '0xf838b7' + '61'.repeat(55));
});

test('long strings use a multi-byte big-endian length', () => {
  const s1024 = new Uint8Array(1024).fill(0x61);
  assert.equal(enc(s1024), '0xb90400' + '61'.repeat(1024));
  const s256 = new Uint8Array(256);
  assert.equal(enc(s256).slice(0, 8), '0xb90100');
  const s70000 = new Uint8Array(70000);
  assert.equal(enc(s70000).slice(0, 10), '0xba011170');
  assert.equal(rlpEncode(s70000).length, 70004);
});
