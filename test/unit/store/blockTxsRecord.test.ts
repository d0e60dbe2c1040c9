/**
 * The transactions record of a block: any list of transaction records (senders and recipients repeated or not, contract
 * creations without a recipient, inputs of any length) round-trips exactly, through decodeBlockTxs and through
 * BlockTxsReader in any order of access; repeated addresses are kept once; damaged records are refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Transaction } from '#src/chain/types.js';
import { BlockTxsReader, decodeBlockTxs, encodeBlockTxs } from '#src/store/blockTxsRecord.js';
import { decodeTx, encodeTx } from '#src/store/codec.js';
import { generateChain } from '#src/synth/generator.js';

const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const HASH = new Uint8Array(32);

/** A legacy transaction from one of a few senders to one of a few recipients (or none: a creation). */
function transaction(addresses: Uint8Array[]): fc.Arbitrary<Transaction> {
  const address = fc.constantFrom(...addresses);
  return fc
    .record({
      from: address,
      to: fc.option(address, { nil: null }),
      input: fc.uint8Array({ maxLength: 300 }),
      nonce: fc.bigInt({ min: 0n, max: 1n << 64n }),
      r: fc.bigInt({ min: 1n, max: (1n << 256n) - 1n }),
    })
    .map(({ from, to, input, nonce, r }) => ({
      type: 0,
      hash: HASH,
      from,
      to,
      nonce,
      gas: 21_000n,
      value: nonce * 3n,
      input,
      v: 27n,
      r,
      s: r / 2n + 1n,
      gasPrice: 7n,
    }));
}

const records = fc
  .array(bytes(20), { minLength: 1, maxLength: 6 })
  .chain((addresses) => fc.array(transaction(addresses), { maxLength: 30 }))
  .map((txs) => txs.map((tx) => encodeTx(tx)));

test('any block of transaction records round-trips, read whole or one by one in any order', () => {
  fc.assert(
    fc.property(records, fc.array(fc.nat(40)), (list, order) => {
      const raw = encodeBlockTxs(list);
      assert.deepEqual(
        decodeBlockTxs(raw).map((r) => Buffer.from(r)),
        list,
      );
      const reader = new BlockTxsReader().load(raw);
      assert.equal(reader.count, list.length);
      for (let i = 0; i < list.length; i++) assert.deepEqual(Buffer.from(reader.record(i)!), list[i]);
      for (const i of order) {
        const record = reader.record(i);
        if (i < list.length) assert.deepEqual(Buffer.from(record!), list[i]);
        else assert.equal(record, undefined);
      }
      assert.equal(reader.record(-1), undefined);
      assert.equal(reader.record(0.5), undefined);
    }),
    { numRuns: 300 },
  );
});

test("a generated chain's blocks round-trip; a repeated sender or recipient costs a reference, not 20 bytes", () => {
  let repeats = 0;
  for (const block of generateChain({ blocks: 30, seed: 'block-txs', density: 1 })) {
    const list = block.transactions.map((tx) => encodeTx(tx));
    const raw = encodeBlockTxs(list);
    assert.deepEqual(
      decodeBlockTxs(raw).map((r) => Buffer.from(r)),
      list,
    );
    const reader = new BlockTxsReader().load(raw);
    block.transactions.forEach((tx, i) => assert.deepEqual(decodeTx(reader.record(i)!, tx.hash), tx));
    const seen = new Set<string>();
    let repeated = 0;
    for (const tx of block.transactions)
      for (const a of tx.to ? [tx.from, tx.to] : [tx.from]) {
        const key = Buffer.from(a).toString('hex');
        if (seen.has(key)) repeated++;
        seen.add(key);
      }
    const plain = list.reduce((sum, r) => sum + r.length, 0);
    // Each record costs at most 3 bytes of length and 2 of literal markers beyond its bytes; each repeat saves at least
    // 20 − 3.
    assert.ok(raw.length <= plain + 5 * list.length + 3 - 17 * repeated, `block ${block.header.number}`);
    repeats += repeated;
  }
  assert.ok(repeats > 100, `repeated addresses at mainnet density: ${repeats}`);
});

test('a same-address transfer (sender is recipient) round-trips', () => {
  const a = new Uint8Array(20).fill(5);
  const tx = encodeTx({
    type: 0,
    hash: HASH,
    from: a,
    to: a,
    nonce: 1n,
    gas: 1n,
    value: 1n,
    input: new Uint8Array(0),
    v: 27n,
    r: 1n,
    s: 1n,
  });
  const raw = encodeBlockTxs([tx, tx]);
  assert.deepEqual(
    decodeBlockTxs(raw).map((r) => Buffer.from(r)),
    [tx, tx],
  );
});

test('a damaged transactions record is refused, not read past its end', () => {
  const list = [...generateChain({ blocks: 2, seed: 'block-txs-damage', density: 0.2 })]
    .flatMap((b) => b.transactions)
    .map((tx) => encodeTx(tx));
  assert.ok(list.length >= 2);
  const raw = encodeBlockTxs(list);
  for (const cut of [1, 5, raw.length >> 1, raw.length - 1]) {
    assert.throws(() => decodeBlockTxs(raw.subarray(0, cut)), RangeError, `cut at ${cut}`);
    // The reader stays within the bytes it has: a transaction past the cut is undefined, not read from beyond it.
    const reader = new BlockTxsReader().load(raw.subarray(0, cut));
    assert.equal(reader.record(list.length - 1), undefined, `cut at ${cut}`);
  }
  assert.equal(new BlockTxsReader().load(Buffer.from([0x80, 0x80])).count, 0, 'a count that runs past the bytes');
  assert.throws(() => decodeBlockTxs(Buffer.concat([raw, Buffer.from([0])])), RangeError);
  // A reference forward (to bytes after it): the first transaction's sender made to point past itself.
  const forward = Buffer.from(raw);
  const first = 1 + (forward[1]! >= 0x80 ? 2 : 1);
  forward[first + 2] = 0x7f;
  assert.throws(() => decodeBlockTxs(forward), RangeError);
});
