/**
 * Chunk planning and file names (src/export/chunks.ts): cryo's layout, table-driven, and the
 * properties that chunks tile a range exactly and every name parses back to its chunk.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { chunkFileName, networkName, parseChunkFileName, planChunks } from '#src/export/chunks.js';

test('network names follow cryo table, else network_{id}', () => {
  const cases: [bigint, string][] = [
    [1n, 'ethereum'],
    [10n, 'optimism'],
    [8453n, 'base'],
    [11155111n, 'sepolia'],
    [31337n, 'network_31337'],
  ];
  for (const [id, name] of cases) assert.equal(networkName(id), name);
});

test('file names: zero-padded to 8 digits, the last block inclusive, longer numbers kept whole', () => {
  const cases: [number, number, string][] = [
    [0, 999, 'ethereum__logs__00000000_to_00000999.parquet'],
    [1000, 1499, 'ethereum__logs__00001000_to_00001499.parquet'],
    [123_456_789, 123_456_789, 'ethereum__logs__123456789_to_123456789.parquet'],
  ];
  for (const [from, to, name] of cases) assert.equal(chunkFileName('ethereum', 'logs', { from, to }), name);
});

test('planChunks cuts from the first block, the last chunk shorter', () => {
  assert.deepEqual(planChunks(0, 2499, 1000), [
    { from: 0, to: 999 },
    { from: 1000, to: 1999 },
    { from: 2000, to: 2499 },
  ]);
  assert.deepEqual(planChunks(5, 5, 1000), [{ from: 5, to: 5 }]);
  assert.deepEqual(planChunks(6, 5, 1000), []);
  assert.throws(() => planChunks(0, 10, 0), RangeError);
});

test('chunks tile the range in order, none longer than the size', () => {
  fc.assert(
    fc.property(fc.nat(1_000_000), fc.nat(20_000), fc.integer({ min: 1, max: 5_000 }), (from, span, size) => {
      const chunks = planChunks(from, from + span, size);
      let next = from;
      for (const c of chunks) {
        assert.equal(c.from, next);
        assert.ok(c.to >= c.from && c.to - c.from < size);
        next = c.to + 1;
      }
      assert.equal(next, from + span + 1);
    }),
  );
});

test('every file name parses back to its chunk; other names do not parse', () => {
  fc.assert(
    fc.property(fc.nat(2 ** 40), fc.nat(100_000), (from, span) => {
      const chunk = { from, to: from + span };
      assert.deepEqual(parseChunkFileName(chunkFileName('base', 'receipts', chunk), 'base', 'receipts'), chunk);
      assert.equal(parseChunkFileName(chunkFileName('base', 'receipts', chunk), 'base', 'logs'), undefined);
    }),
  );
  for (const name of [
    'ethereum__logs__0_to_9.parquet',
    'ethereum__logs__00000000_to_00000009.parquet.tmp',
    'ethereum__logs__00000000_to_00000009',
  ]) {
    assert.equal(parseChunkFileName(name, 'ethereum', 'logs'), undefined, name);
  }
});
