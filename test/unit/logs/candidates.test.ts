/**
 * Candidate selection over a real store of one complete segment and part of the open one: for
 * random filters and ranges, the candidates are in the range, ascending, and include every block
 * holding a matching log (no false negatives, from the address index and bloom rows of the complete
 * segment and from the per-block blooms of the open one); an address-only filter on the complete
 * segment gives exactly the blocks where the address logged (the address index is exact).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { bloomBits, logsBloom, testBloomBit } from '#src/chain/bloom.js';
import type { BlockBundle, Log } from '#src/chain/types.js';
import { candidateBlocks, candidateQuery } from '#src/logs/candidates.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { SEGMENT_BLOCKS } from '#src/store/segments.js';
import { StoreWriter } from '#src/store/writer.js';
import { makeHeader, Rng } from '../store/fixtures.js';

/** One complete segment and this many blocks of the open one. */
const OPEN_BLOCKS = 300;
const BLOCKS = SEGMENT_BLOCKS + OPEN_BLOCKS;
/** Blocks written per append. */
const BATCH = 512;

const rng = new Rng(16);
const ADDRESSES = Array.from({ length: 6 }, () => rng.bytes(20));
const TOPICS = Array.from({ length: 8 }, () => rng.bytes(32));

let dir: string;
let store: Store;
/** Each block's logs, by number. */
const chain: Log[][] = [];

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-candidates-'));
  store = openStore(dir);
  const writer = new StoreWriter(store);
  let parent = rng.bytes(32);
  for (let start = 0; start < BLOCKS; start += BATCH) {
    const blocks: BlockBundle[] = [];
    for (let n = start; n < Math.min(BLOCKS, start + BATCH); n++) {
      // Sparse logs so blooms tell blocks apart: most blocks have none, some one or two.
      const logs: Log[] = Array.from({ length: rng.pick([0, 0, 0, 1, 2]) }, () => ({
        address: rng.pick(ADDRESSES),
        topics: Array.from({ length: rng.int(4) }, () => rng.pick(TOPICS)),
        data: new Uint8Array(),
        txIndex: 0,
      }));
      const header = { ...makeHeader(rng, n, parent, 0), logsBloom: logsBloom(logs) };
      blocks.push({
        header,
        transactions: [],
        receipts: [],
        logs: logs.map((l) => ({ ...l, txIndex: 0 })),
        storage: [],
      });
      chain.push(logs);
      parent = header.hash;
    }
    writer.append({ blocks, ...(start === 0 ? { chainId: 1n } : {}) });
  }
});

after(async () => {
  await closeStore(store);
  fs.rmSync(dir, { recursive: true, force: true });
});

const equal = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Whether `log` matches: a listed address (or none listed), each position a wildcard or one of its alternatives. */
function matches(log: Log, addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): boolean {
  if (addresses.length > 0 && !addresses.some((a) => equal(a, log.address))) return false;
  if (topics.length > log.topics.length) return false;
  return topics.every((alternatives, i) => alternatives === null || alternatives.some((t) => equal(t, log.topics[i]!)));
}

/** The candidates of [from, to] over every segment it touches, in order. */
function candidates(from: number, to: number, addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): number[] {
  const q = candidateQuery(store, addresses, topics);
  const out: number[] = [];
  for (let segment = Math.floor(from / SEGMENT_BLOCKS); segment <= Math.floor(to / SEGMENT_BLOCKS); segment++)
    out.push(...candidateBlocks(store, segment, from, to, q));
  return out;
}

const filterArb = fc.record({
  addresses: fc.uniqueArray(fc.constantFrom(...ADDRESSES), { maxLength: 2 }),
  topics: fc.array(
    fc.option(fc.uniqueArray(fc.constantFrom(...TOPICS), { minLength: 1, maxLength: 2 }), { nil: null }),
    { maxLength: 3 },
  ),
});
const rangeArb = fc
  .tuple(fc.nat({ max: BLOCKS - 1 }), fc.nat({ max: BLOCKS - 1 }))
  .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);

test('candidates are in range, ascending, and hold every block with a matching log', () => {
  fc.assert(
    fc.property(filterArb, rangeArb, ({ addresses, topics }, [from, to]) => {
      const got = candidates(from, to, addresses, topics);
      for (let i = 0; i < got.length; i++) {
        assert.ok(got[i]! >= from && got[i]! <= to, `${got[i]} in [${from}, ${to}]`);
        if (i > 0) assert.ok(got[i]! > got[i - 1]!, 'ascending');
      }
      const set = new Set(got);
      for (let n = from; n <= to; n++) {
        if (chain[n]!.some((log) => matches(log, addresses, topics)))
          assert.ok(set.has(n), `block ${n} has a match and is a candidate`);
      }
    }),
    { numRuns: 300, seed: 16 },
  );
});

test(
  'the address index is exact: an address-only filter on the ' + 'complete segment gives the blocks where it logged',
  () => {
    for (const address of ADDRESSES) {
      const expected = chain
        .slice(0, SEGMENT_BLOCKS)
        .flatMap((logs, n) => (logs.some((l) => equal(l.address, address)) ? [n] : []));
      assert.ok(expected.length > 0, 'the address logged somewhere');
      assert.deepEqual(candidates(0, SEGMENT_BLOCKS - 1, [address], []), expected);
    }
  },
);

test('no condition: every block of the range, in both segments', () => {
  const from = SEGMENT_BLOCKS - 5;
  const to = SEGMENT_BLOCKS + 5;
  assert.deepEqual(
    candidates(from, to, [], []),
    Array.from({ length: to - from + 1 }, (_, i) => from + i),
  );
});

/**
 * Whether `bloom` may hold a log matching the filter, by the bloom bits of each address and topic (the independent
 * check).
 */
function bloomAdmits(bloom: Uint8Array, addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): boolean {
  const has = (value: Uint8Array) => bloomBits(value).every((bit) => testBloomBit(bloom, bit));
  if (addresses.length > 0 && !addresses.some(has)) return false;
  return topics.every((alternatives) => alternatives === null || alternatives.some(has));
}

test('in the open segment the candidates are exactly the blocks whose own logsBloom admits the filter', () => {
  fc.assert(
    fc.property(filterArb, ({ addresses, topics }) => {
      const expected: number[] = [];
      for (let n = SEGMENT_BLOCKS; n < BLOCKS; n++)
        if (bloomAdmits(logsBloom(chain[n]!), addresses, topics)) expected.push(n);
      assert.deepEqual(candidates(SEGMENT_BLOCKS, BLOCKS - 1, addresses, topics), expected);
      if (addresses.length > 0 || topics.some((p) => p !== null))
        assert.ok(expected.length < OPEN_BLOCKS, 'the filter rules some blocks out');
    }),
    { numRuns: 200, seed: 17 },
  );
});
