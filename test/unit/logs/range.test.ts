/**
 * resolveRange over a real store (blocks 5..24, safe 20, finalized 15, a pending block, one
 * reorganised-out block), table-driven: tags and numbers to numbers, the range clamped to the
 * stored blocks, the pending block following `pending`, a block hash to its one block (or its
 * orphan, or nothing); an inverted range and a numeric end past the head are the domain errors.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BlockBundle, BlockId } from '#src/chain/types.js';
import { RangeBeyondHeadError, RangeInvertedError } from '#src/logs/errors.js';
import type { FilterSpec } from '#src/logs/filter.js';
import { resolveRange } from '#src/logs/range.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { makeBundle, Rng } from '../store/fixtures.js';

const FIRST = 5;
const HEAD = 24;

let dir: string;
let store: Store;
let reader: StoreReader;
let orphan: BlockBundle;
const hashes: Uint8Array[] = [];

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-range-'));
  store = openStore(dir);
  const writer = new StoreWriter(store);
  const rng = new Rng(7);
  let parent = rng.bytes(32);
  const blocks: BlockBundle[] = [];
  for (let n = FIRST; n <= HEAD + 1; n++) {
    const block = makeBundle(rng, n, parent, 1);
    blocks.push(block);
    hashes[n] = block.header.hash;
    parent = block.header.hash;
  }
  writer.append({ blocks, chainId: 1n, safe: 20, finalized: 15 });
  orphan = blocks.at(-1)!;
  writer.append({ rollbackTo: HEAD, blocks: [] });
  writer.append({ blocks: [], pending: makeBundle(rng, HEAD + 1, hashes[HEAD]!, 2) });
  reader = new StoreReader(store);
});

after(async () => {
  await closeStore(store);
  fs.rmSync(dir, { recursive: true, force: true });
});

const tag = (t: 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'): BlockId => ({ tag: t });
const num = (n: number): BlockId => ({ number: n });
const range = (fromBlock: BlockId, toBlock: BlockId): FilterSpec => ({ fromBlock, toBlock, addresses: [], topics: [] });

test('ranges resolve to stored numbers', () => {
  const cases: [FilterSpec, { from: number; to: number; pending: boolean }][] = [
    [range(tag('latest'), tag('latest')), { from: HEAD, to: HEAD, pending: false }],
    [range(tag('earliest'), tag('latest')), { from: FIRST, to: HEAD, pending: false }],
    [range(num(0), num(10)), { from: FIRST, to: 10, pending: false }],
    [range(tag('finalized'), tag('safe')), { from: 15, to: 20, pending: false }],
    [range(num(12), tag('pending')), { from: 12, to: HEAD, pending: true }],
    [range(tag('pending'), tag('pending')), { from: HEAD + 1, to: HEAD, pending: true }],
    [range(num(HEAD), num(HEAD)), { from: HEAD, to: HEAD, pending: false }],
  ];
  for (const [spec, expected] of cases) {
    const r = resolveRange(spec, reader);
    assert.deepEqual({ from: r.from, to: r.to, pending: r.pending !== undefined }, expected, JSON.stringify(spec));
  }
});

test('a block hash selects its block, a reorganised-out one its orphan, an unknown one nothing', () => {
  const at = (hash: Uint8Array) => resolveRange({ ...range(tag('latest'), tag('latest')), blockHash: hash }, reader);
  assert.deepEqual(at(hashes[12]!), { from: 12, to: 12 });
  const gone = at(orphan.header.hash);
  assert.ok(gone.from > gone.to, 'no canonical blocks');
  assert.deepEqual(gone.orphan?.header.hash, orphan.header.hash);
  const unknown = at(new Uint8Array(32).fill(9));
  assert.ok(unknown.from > unknown.to && unknown.orphan === undefined);
});

test('refusals are domain errors carrying the numbers', () => {
  assert.throws(
    () => resolveRange(range(num(20), num(10)), reader),
    (e: unknown) => e instanceof RangeInvertedError && e.from === 20 && e.to === 10,
  );
  assert.throws(
    () => resolveRange(range(tag('safe'), tag('finalized')), reader),
    (e: unknown) => e instanceof RangeInvertedError && e.from === 20 && e.to === 15,
  );
  assert.throws(
    () => resolveRange(range(num(1), num(HEAD + 1)), reader),
    (e: unknown) => e instanceof RangeBeyondHeadError && e.to === HEAD + 1 && e.head === HEAD,
  );
});
