/**
 * genesisStorage: the alloc's non-zero storage words, keys with or without 0x and of any length up
 * to 32 bytes (left-padded), accounts without storage skipped; malformed files refused naming the
 * place.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '#src/chain/hex.js';
import { NodeDataError } from '#src/ingest/errors.js';
import { genesisStorage } from '#src/ingest/genesis.js';

const A = '11'.repeat(20);
const B = '22'.repeat(20);
const word = (hex: string) => '0x' + hex.padStart(64, '0');

test('the alloc storage, as 32-byte slots and words, zero words left out', () => {
  const writes = genesisStorage({
    config: { chainId: 1 },
    alloc: {
      [A]: { balance: '0x1', storage: { '0x01': '0x2a', [word('2')]: word('0'), a3: 'ff' } },
      ['0x' + B]: { balance: '0x5' },
      ['0X' + B.toUpperCase()]: { storage: { [word('abc')]: '0xABC' } },
    },
  });
  assert.deepEqual(
    writes.map((w) => [bytesToHex(w.address), bytesToHex(w.slot), bytesToHex(w.value)]),
    [
      ['0x' + A, word('1'), word('2a')],
      ['0x' + A, word('a3'), word('ff')],
      ['0x' + B, word('abc'), word('abc')],
    ],
  );
  assert.deepEqual(genesisStorage({ config: {} }), [], 'no alloc: nothing');
});

test('malformed genesis files are refused, naming what is wrong', () => {
  const cases: [unknown, RegExp][] = [
    [[], /g\.json: not a JSON object/],
    [{ alloc: [] }, /alloc is not an object/],
    [{ alloc: { '0x1234': {} } }, /alloc key 0x1234 is not a 20-byte address/],
    [{ alloc: { [A]: { storage: [] } } }, /storage is not an object/],
    [{ alloc: { [A]: { storage: { zz: '0x1' } } } }, /storage key zz is not a storage slot/],
    [{ alloc: { [A]: { storage: { '0x1': 5 } } } }, /is not a 32-byte word/],
    [{ alloc: { [A]: { storage: { '0x1': '0x' + '11'.repeat(33) } } } }, /is not a 32-byte word/],
  ];
  for (const [json, message] of cases) {
    assert.throws(
      () => genesisStorage(json, 'g.json'),
      (error: unknown) => error instanceof NodeDataError && message.test(error.message),
      JSON.stringify(json),
    );
  }
});
