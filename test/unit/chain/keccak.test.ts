import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '#src/chain/hex.js';
import { keccak256 } from '#src/chain/keccak.js';
import { rlpEncode } from '#src/chain/rlp.js';

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

test('keccak256 of the empty input', () => {
  assert.equal(
    bytesToHex(keccak256(new Uint8Array(0))),
    '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
  );
});

test('keccak256 of the ERC-20 Transfer event signature', () => {
  assert.equal(
    bytesToHex(keccak256(utf8('Transfer(address,address,uint256)'))),
    '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  );
});

test('keccak256 of the RLP empty list is the empty uncles hash', () => {
  assert.equal(
    bytesToHex(keccak256(rlpEncode([]))),
    '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
  );
});

test('keccak256 returns 32 bytes and is not SHA3-256', () => {
  const out = keccak256(utf8('abc'));
  assert.equal(out.length, 32);
  // SHA3-256("") is a7ffc6f8…; keccak must differ (different padding).
  assert.notEqual(bytesToHex(keccak256(new Uint8Array(0))).slice(2, 10), 'a7ffc6f8');
});

test('keccak256 hashes a subarray view by its contents only', () => {
  const buf = utf8('xxTransfer(address,address,uint256)yy');
  assert.equal(
    bytesToHex(keccak256(buf.subarray(2, buf.length - 2))),
    '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  );
});
