/**
 * The fork schedule: fixed block numbers (table-driven), monotone in the block number, and a chain
 * whose blocks do not depend on its length (fast-check): a shorter chain is the start of a longer one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bytesToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { encodeHeader, encodeTx } from '#src/store/codec.js';
import { encodeLogs } from '#src/store/logsRecord.js';
import { FORK_SCHEDULE, Fork, forkOf } from '#src/synth/forks.js';
import { generateChain } from '#src/synth/generator.js';

/** Every byte a block stores: header, transactions, logs, storage writes. */
function fingerprint(b: BlockBundle): string {
  return [
    encodeHeader(b.header).toString('hex'),
    ...b.transactions.map((t) => encodeTx(t).toString('hex')),
    encodeLogs(b.logs).toString('hex'),
    ...b.storage.map((w) => bytesToHex(w.address) + bytesToHex(w.slot) + bytesToHex(w.value)),
  ].join('|');
}

test('each fork from its fixed first block: London 0, Shanghai 8, Cancun 16, Prague 24 and on', () => {
  assert.deepEqual({ ...FORK_SCHEDULE }, { london: 0, shanghai: 8, cancun: 16, prague: 24 });
  const table: [number, Fork][] = [
    [0, Fork.London],
    [7, Fork.London],
    [8, Fork.Shanghai],
    [15, Fork.Shanghai],
    [16, Fork.Cancun],
    [23, Fork.Cancun],
    [24, Fork.Prague],
    [25, Fork.Prague],
    [4_096, Fork.Prague],
    [2 ** 40, Fork.Prague],
  ];
  for (const [number, fork] of table) assert.equal(forkOf(number), fork, `block ${number}`);
});

test('property: the fork never goes back as the block number grows', () => {
  fc.assert(
    fc.property(fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 40 }), (a, b) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      assert.ok(forkOf(low) <= forkOf(high), `blocks ${low} and ${high}`);
    }),
    { numRuns: 500 },
  );
});

test('property: a chain does not depend on its length: the shorter is the start of the longer, block for block', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(0.01, 0.03),
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 1, max: 12 }),
      fc.constantFrom(0, 5, 20),
      (density, blocks, more, startNumber) => {
        const seed = 'forks';
        const short = [...generateChain({ seed, density, blocks, startNumber })].map(fingerprint);
        const long = [...generateChain({ seed, density, blocks: blocks + more, startNumber })].map(fingerprint);
        assert.deepEqual(long.slice(0, blocks), short);
      },
    ),
    { numRuns: 25 },
  );
});
