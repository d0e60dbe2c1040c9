import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '#src/chain/hex.js';
import { mappingSlot, mappingSlotAt, slotWord } from '#src/chain/storageSlot.js';

const holder = hexToBytes('0x3328f7f4a1d1c57c35df56bbf0c9dcafca309c49', 20)!;

/** The rule computed another way: hex text concatenation hashed by @noble/hashes directly. */
function reference(keyHex: string, slot: number): string {
  const pre = keyHex.slice(2).padStart(64, '0') + slot.toString(16).padStart(64, '0');
  return '0x' + Buffer.from(keccak_256(Buffer.from(pre, 'hex'))).toString('hex');
}

test('mapping[0] at slot 0 is keccak256 of 64 zero bytes (the well-known zero-pair hash)', () => {
  assert.equal(
    bytesToHex(mappingSlot(new Uint8Array(20), 0n)),
    '0xad3228b676f7d3cd4284a5443f17f1962b36e491b30a40b2405849e597ba5fb5',
  );
});

test('balances[holder] at slot 0 and slot 3 follow keccak256(pad32(holder) ‖ pad32(slot))', () => {
  assert.equal(bytesToHex(mappingSlot(holder, 0n)), reference('0x3328f7f4a1d1c57c35df56bbf0c9dcafca309c49', 0));
  assert.equal(bytesToHex(mappingSlot(holder, 3n)), reference('0x3328f7f4a1d1c57c35df56bbf0c9dcafca309c49', 3));
  assert.notEqual(bytesToHex(mappingSlot(holder, 0n)), bytesToHex(mappingSlot(holder, 1n)));
});

test('a padded 32-byte key gives the same slot as the 20-byte address', () => {
  const padded = new Uint8Array(32);
  padded.set(holder, 12);
  assert.deepEqual(mappingSlot(padded, 0n), mappingSlot(holder, 0n));
});

test('nested mappings apply the rule to the outer slot word', () => {
  const spender = hexToBytes('0x' + '11'.repeat(20), 20)!;
  const inner = mappingSlot(holder, 1n);
  const expected = keccak_256(Buffer.concat([Buffer.alloc(12), Buffer.from(spender), Buffer.from(inner)]));
  assert.deepEqual(mappingSlotAt(spender, inner), new Uint8Array(expected));
});

test('slot words are 32-byte big-endian; out-of-range slots are refused', () => {
  assert.equal(bytesToHex(slotWord(8n)), '0x' + '00'.repeat(31) + '08');
  assert.equal(bytesToHex(slotWord((1n << 256n) - 1n)), '0x' + 'ff'.repeat(32));
  assert.throws(() => slotWord(-1n), RangeError);
  assert.throws(() => slotWord(1n << 256n), RangeError);
  assert.throws(() => mappingSlotAt(new Uint8Array(33), slotWord(0n)), RangeError);
});
