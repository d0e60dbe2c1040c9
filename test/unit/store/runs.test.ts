/**
 * Frozen runs (store/runs.ts, freezer.ts, runChunks.ts, runFilter.ts): the encodings round-trip, a
 * filter never rules out a key it holds, and against a real LMDB store written by StoreWriter the
 * transaction-hash and storage lookups give what the blocks wrote, through freezing, merges across
 * levels, deep rollbacks below the freeze point, and the same runs whatever the batches' cut.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import type { BlockBundle } from '#src/chain/types.js';
import {
  FREEZE_BLOCKS,
  FREEZE_LAG,
  Freezer,
  FrozenBatch,
  freezesWholeUnits,
  freezeTarget,
  MERGE_FAN_IN,
  mergeFilterRebuilds,
  mergeUnits,
} from '#src/store/freezer.js';
import { decodeBlockKey, encodeBlockKey, encodeStorageKey } from '#src/store/keys.js';
import { StoreReader } from '#src/store/reader.js';
import {
  CHUNK_BYTES,
  decodeRunChunkKey,
  decodeRunFilterKey,
  decodeStorageChunk,
  decodeTxEntry,
  encodeRunChunkKey,
  encodeRunFilterKey,
  encodeStorageChunk,
  encodeTxEntry,
  KEY_WORDS,
  RunKind,
  runStartKey,
  sharedKeyBytes,
} from '#src/store/runChunks.js';
import {
  filterAdd,
  filterAddHashes,
  filterAddTxEntry,
  filterBytes,
  filterMayHold,
  storageKeyHash,
  txKeyHash,
} from '#src/store/runFilter.js';
import { readManifest, storageKeyNumber, writeInvertedNumber } from '#src/store/runs.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { verifyStore } from '#src/store/verify.js';
import { StoreWriter } from '#src/store/writer.js';
import { generateChain, linkBlock } from '#src/synth/generator.js';
import { diffStores } from '../../support/storeDiff.js';

test('a transaction-run entry round-trips', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.integer({ min: 0, max: 2 ** 40 - 1 }),
      fc.integer({ min: 0, max: 2 ** 24 - 1 }),
      (hash, number, index) => {
        const decoded = decodeTxEntry(encodeTxEntry(hash, number, index));
        assert.deepEqual(decoded, { prefix: hash.slice(0, 8), number, index });
      },
    ),
  );
  assert.throws(() => encodeTxEntry(new Uint8Array(32), 2 ** 40, 0), RangeError);
  assert.throws(() => encodeTxEntry(new Uint8Array(32), 0, 2 ** 24), RangeError);
});

test('chunk and filter keys round-trip', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      fc.uint8Array({ minLength: 8, maxLength: 60 }),
      (id, last) => {
        assert.deepEqual(decodeRunChunkKey(encodeRunChunkKey(id, last)), { id, last });
        for (const kind of [RunKind.Tx, RunKind.Storage])
          assert.deepEqual(decodeRunFilterKey(encodeRunFilterKey(kind, id)), { kind, id });
      },
    ),
  );
});

test("a storage key's block number is written and read back", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (number) => {
      const key = encodeStorageKey(new Uint8Array(20), new Uint8Array(32), number);
      assert.equal(storageKeyNumber(key), number);
      const again = Buffer.alloc(60);
      writeInvertedNumber(again, number);
      assert.deepEqual(again.subarray(52), key.subarray(52));
    }),
  );
});

test('a storage chunk round-trips sorted entries, sharing prefixes', () => {
  const entry = fc.record({
    key: fc.uint8Array({ minLength: 60, maxLength: 60 }),
    value: fc.uint8Array({ maxLength: 32 }),
  });
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 40 }), (raw) => {
      const seen = new Set<string>();
      const entries = raw
        .map((e) => ({ key: Uint8Array.from(e.key.map((b, i) => (i < 20 ? 7 : b))), value: e.value }))
        .sort((a, b) => Buffer.compare(a.key, b.key))
        .filter((e) => !seen.has(Buffer.from(e.key).toString('hex')) && seen.add(Buffer.from(e.key).toString('hex')));
      assert.deepEqual(decodeStorageChunk(encodeStorageChunk(entries)), entries);
    }),
  );
});

test('sharedKeyBytes counts the leading bytes two storage keys share, word by word as byte by byte', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 60, maxLength: 60 }),
      fc.integer({ min: 0, max: 60 }),
      fc.uint8Array({ minLength: 60, maxLength: 60 }),
      (a, shared, tail) => {
        const x = Buffer.alloc(60);
        const y = Buffer.alloc(60);
        x.set(a);
        y.set(a.subarray(0, shared));
        y.set(tail.subarray(shared), shared);
        let want = 0;
        while (want < 60 && x[want] === y[want]) want++;
        const words = (key: Buffer) => new Uint32Array(key.buffer, key.byteOffset, KEY_WORDS);
        assert.equal(sharedKeyBytes(x, words(x), y, words(y)), want);
        assert.equal(sharedKeyBytes(y, words(y), x, words(x)), want);
      },
    ),
  );
});

test('a chunk of CHUNK_BYTES fills one overflow page of a real LMDB store, a byte more takes two', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-chunk-'));
  const store = openStore(dir);
  try {
    for (const [id, bytes] of [
      [1, CHUNK_BYTES],
      [2, CHUNK_BYTES + 1],
    ] as const) {
      const before = store.txRuns.getStats() as { overflowPages: number };
      await store.txRuns.put(encodeRunChunkKey(id, Buffer.alloc(8)), Buffer.alloc(bytes, 7));
      const after = store.txRuns.getStats() as { overflowPages: number };
      assert.equal(after.overflowPages - before.overflowPages, bytes === CHUNK_BYTES ? 1 : 2, `${bytes} bytes`);
    }
  } finally {
    await closeStore(store);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a filter holds every key added to it', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ minLength: 60, maxLength: 60 }), { minLength: 1, maxLength: 200 }), (keys) => {
      const tx = new Uint8Array(filterBytes(keys.length));
      const storage = new Uint8Array(filterBytes(keys.length));
      for (const key of keys) {
        filterAdd(tx, txKeyHash(key));
        filterAdd(storage, storageKeyHash(key));
      }
      for (const key of keys)
        assert.ok(filterMayHold(tx, txKeyHash(key)) && filterMayHold(storage, storageKeyHash(key)));
    }),
  );
});

/** The filter bits a key sets, by the definition: probe i is (h1 + i · h2) mod 2^32, taken modulo the filter's bits. */
function expectedBits(bytes: number, h1: number, h2: number): Set<number> {
  const bits = bytes * 8;
  const out = new Set<number>();
  for (let i = 0, h = h1 >>> 0; i < 6; i++, h = (h + h2) >>> 0) out.add(h % bits);
  return out;
}

function setBits(filter: Uint8Array): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < filter.length * 8; i++) if (filter[i >>> 3]! & (1 << (i & 7))) out.add(i);
  return out;
}

test('a key sets the bits of its definition, for any hashes and filter size', () => {
  const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
  fc.assert(
    fc.property(u32, u32, fc.integer({ min: 1, max: 1 << 20 }), (h1, h2, keys) => {
      const bytes = filterBytes(keys);
      const filter = new Uint8Array(bytes);
      filterAddHashes(filter, h1, h2 | 1);
      assert.deepEqual(setBits(filter), expectedBits(bytes, h1, (h2 | 1) >>> 0));
    }),
  );
  // Hashes next to multiples of the filter's bits, where a quotient computed in floating point is off by one.
  for (const bytes of [8, 1000, 131_072, 1_234_567]) {
    const bits = bytes * 8;
    for (const h1 of [bits - 1, bits, bits + 1, Math.floor(2 ** 32 / bits) * bits - 1, 2 ** 32 - 1]) {
      const filter = new Uint8Array(bytes);
      filterAddHashes(filter, h1, 1);
      assert.deepEqual(setBits(filter), expectedBits(bytes, h1, 1), `${h1} into ${bits} bits`);
    }
  }
});

test("a transaction-run entry sets the bits of its hash prefix's txKeyHash", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 40, maxLength: 40 }), fc.integer({ min: 0, max: 24 }), (bytes, offset) => {
      const byEntry = new Uint8Array(filterBytes(3));
      const byHash = new Uint8Array(filterBytes(3));
      filterAddTxEntry(byEntry, bytes, offset);
      filterAdd(byHash, txKeyHash(bytes.subarray(offset, offset + 8)));
      assert.deepEqual(byEntry, byHash);
    }),
  );
});

test('a filter rules out most absent keys', () => {
  const filter = new Uint8Array(filterBytes(10_000));
  for (let i = 0; i < 10_000; i++) filterAdd(filter, storageKeyHash(encodeStorageKey(new Uint8Array(20), u256(i), 0)));
  let passed = 0;
  for (let i = 10_000; i < 20_000; i++)
    if (filterMayHold(filter, storageKeyHash(encodeStorageKey(new Uint8Array(20), u256(i), 0)))) passed++;
  assert.ok(passed < 500, `${passed} of 10,000 absent keys passed`);
});

function u256(n: number): Uint8Array {
  const out = new Uint8Array(32);
  Buffer.from(out.buffer).writeUInt32BE(n, 28);
  return out;
}

test('the freeze target trails the head by FREEZE_LAG or reaches the finalized block, in whole units', () => {
  const U = FREEZE_BLOCKS;
  const cases: { head: number; finalized?: number; target: number; whole: boolean }[] = [
    { head: U + FREEZE_LAG - 2, target: -1, whole: false },
    { head: U + FREEZE_LAG - 1, target: U - 1, whole: true },
    { head: 3 * U + FREEZE_LAG + 5, target: 3 * U - 1, whole: false },
    // A finalized block behind the lag's point changes nothing.
    { head: 4 * U + 20, finalized: 2 * U, target: 3 * U - 1, whole: false },
    // One past it reaches further: its last complete unit.
    { head: 4 * U + 20, finalized: 4 * U - 2, target: 3 * U - 1, whole: false },
    { head: 4 * U + 20, finalized: 4 * U - 1, target: 4 * U - 1, whole: true },
    // A finalized head (a bulk copy far behind the node's head) freezes every complete unit.
    { head: 4 * U - 1, finalized: 4 * U - 1, target: 4 * U - 1, whole: true },
    { head: 4 * U + 9, finalized: 4 * U + 9, target: 4 * U - 1, whole: false },
    // A marker past the head counts as the head.
    { head: 2 * U - 1, finalized: 9 * U, target: 2 * U - 1, whole: true },
  ];
  for (const { head, finalized, target, whole } of cases) {
    assert.equal(freezeTarget(head, finalized), target, `target at ${head}, finalized ${finalized}`);
    assert.equal(freezesWholeUnits(head, finalized), whole, `whole units at ${head}, finalized ${finalized}`);
  }
});

/** A chain long enough for one merge to level 1, whole (it takes mergeUnits(1) units), and level-0 runs after it. */
// The units of one level-1 merge from its start to its last step (the next starts a unit later).
const BLOCKS = (MERGE_FAN_IN + mergeUnits(1) - 1) * FREEZE_BLOCKS + FREEZE_LAG + 40;
const DENSITY = 0.004;
/** Blocks a batch in the steps test: a merge into level 1 then goes on over about twenty batches, each checked. */
const STEP_BATCH = Math.ceil((mergeUnits(1) * FREEZE_BLOCKS) / 20);

/**
 * The blocks in batches of 1 to 64 (one a batch for the first two units), from a fixed sequence: commits that fall at
 * every place of a unit, in far fewer than one a block.
 */
function unevenBatches(blocks: BlockBundle[]): BlockBundle[][] {
  const out: BlockBundle[][] = [];
  let size = 1;
  for (let at = 0; at < blocks.length; at += size) {
    size = at < 2 * FREEZE_BLOCKS ? 1 : ((at * 2654435761) >>> 26) + 1;
    out.push(blocks.slice(at, at + size));
  }
  return out;
}

async function withStores(count: number, body: (stores: Store[]) => void | Promise<void>): Promise<void> {
  const dirs = Array.from({ length: count }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-runs-test-')));
  const stores = dirs.map((dir) => openStore(dir));
  try {
    await body(stores);
  } finally {
    for (const store of stores) await closeStore(store);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What the blocks wrote: each transaction's place, each slot's writes by block. */
class Expected {
  readonly txs = new Map<string, { number: number; index: number }>();
  readonly slots = new Map<string, { number: number; value: Uint8Array }[]>();

  add(block: BlockBundle): void {
    block.transactions.forEach((tx, index) =>
      this.txs.set(Buffer.from(tx.hash).toString('hex'), { number: block.header.number, index }),
    );
    for (const w of block.storage) {
      const name = Buffer.concat([w.address, w.slot]).toString('hex');
      const list = this.slots.get(name) ?? [];
      list.push({ number: block.header.number, value: w.value });
      this.slots.set(name, list);
    }
  }

  /** Forgets blocks above `to`. */
  rollback(to: number): void {
    for (const [hash, at] of this.txs) if (at.number > to) this.txs.delete(hash);
    for (const [name, list] of this.slots)
      this.slots.set(
        name,
        list.filter((w) => w.number <= to),
      );
  }

  /** Checks every transaction and, for a sample of slots, the value at several blocks. */
  check(reader: StoreReader, head: number, what: string): void {
    for (const [hash, at] of this.txs)
      assert.deepEqual(reader.txLocation(Buffer.from(hash, 'hex')), at, `${what}: transaction ${hash}`);
    let i = 0;
    for (const [name, writes] of this.slots) {
      if (i++ % 7 !== 0) continue;
      const key = Buffer.from(name, 'hex');
      for (const w of writes.slice(0, 6)) {
        for (const n of [w.number - 1, w.number, w.number + FREEZE_BLOCKS, head]) {
          if (n < 0) continue;
          const newest = writes.filter((x) => x.number <= n).at(-1);
          const want = new Uint8Array(32);
          if (newest) want.set(newest.value, 32 - newest.value.length);
          assert.deepEqual(
            reader.storageAt(key.subarray(0, 20), key.subarray(20), n),
            want,
            `${what}: slot ${name} at ${n}`,
          );
        }
      }
    }
    assert.equal(reader.txLocation(new Uint8Array(32).fill(0xab)), undefined, `${what}: an absent hash`);
  }
}

test('lookups through freezing, merges and deep rollbacks; the same runs whatever the batches', async () => {
  const blocks = [...generateChain({ blocks: BLOCKS, seed: 'runs', density: DENSITY })];
  await withStores(2, async ([a, b]) => {
    const expected = new Expected();
    const writerA = new StoreWriter(a!);
    const writerB = new StoreWriter(b!);
    const reader = new StoreReader(a!);
    // Store a in uneven batches, checked after several; store b in batches of 1 to 64 blocks (one a batch for the
    // first units, as the follow mode commits), so that its commits fall at every place of a unit.
    const cuts = [1, 200, 333, 700, 1500, 2200, BLOCKS];
    let at = 0;
    for (const cut of cuts) {
      writerA.append({ blocks: blocks.slice(at, cut), chainId: 1n });
      blocks.slice(at, cut).forEach((block) => expected.add(block));
      at = cut;
      expected.check(reader, cut - 1, `after block ${cut - 1}`);
    }
    for (const batch of unevenBatches(blocks)) writerB.append({ blocks: batch, chainId: 1n });
    assert.deepEqual(diffStores(a!, b!), []);
    const manifest = readManifest(a!)!;
    assert.equal(manifest.frozenTo, freezeTarget(BLOCKS - 1));
    assert.ok(
      manifest.runs.some((r) => r.level === 1) && manifest.runs.some((r) => r.level === 0),
      JSON.stringify(manifest.runs),
    );
    assert.ok(
      a!.txByHash.getKeysCount() <
        blocks.slice(manifest.frozenTo + 1).reduce((n, block) => n + block.transactions.length, 0) + 1,
    );
    // Frozen blocks keep no storage-write list (their writes are in the runs); recent blocks keep theirs.
    const listed = [...a!.storageWrites.getKeys()].map((key) => decodeBlockKey(key));
    assert.ok(listed.length > 0 && listed.every((n) => n > manifest.frozenTo), `${listed[0]} <= ${manifest.frozenTo}`);
    assert.deepEqual(verifyStore(a!).problems, []);
    const kept = encodeBlockKey(manifest.frozenTo);
    a!.storageWrites.putSync(kept, Buffer.alloc(52));
    assert.deepEqual(verifyStore(a!).problems, [
      `block ${manifest.frozenTo}: a storage-write list kept for a frozen block`,
    ]);
    a!.storageWrites.removeSync(kept);

    // A rollback deep into the frozen blocks (into the level-1 run), then another branch.
    const to = 5 * FREEZE_BLOCKS + 17;
    const branch = [
      ...generateChain({ blocks: BLOCKS + 300, seed: 'runs-branch', density: DENSITY, startNumber: 0 }),
    ].slice(to + 1);
    const parent = blocks[to]!.header.hash;
    const linked = relink(branch, parent);
    writerA.append({ rollbackTo: to, blocks: linked });
    expected.rollback(to);
    linked.forEach((block) => expected.add(block));
    const head = linked.at(-1)!.header.number;
    expected.check(reader, head, 'after the deep rollback');
    for (const block of blocks.slice(to + 1, to + 50)) {
      for (const tx of block.transactions) {
        if (!expected.txs.has(Buffer.from(tx.hash).toString('hex')))
          assert.equal(reader.txLocation(tx.hash), undefined, 'an orphaned transaction');
      }
    }
    assert.deepEqual(verifyStore(a!).problems, []);
  });
});

test('finalized blocks freeze in the batch that brings them; the same store in uneven batches', async () => {
  const blocks = [...generateChain({ blocks: BLOCKS, seed: 'runs-final', density: DENSITY })];
  /** The transactions of blocks after `n` up to `head`. */
  const txsAfter = (n: number, head: number) =>
    blocks.slice(n + 1, head + 1).reduce((sum, block) => sum + block.transactions.length, 0);
  await withStores(3, async ([a, b, c]) => {
    const expected = new Expected();
    const writerA = new StoreWriter(a!);
    const reader = new StoreReader(a!);
    // Store a: batches whose finalized block (64 behind, as generate marks) ends a unit, and two that do not.
    const cuts = [FREEZE_BLOCKS + 64, 2 * FREEZE_BLOCKS + 64, 2 * FREEZE_BLOCKS + 200, 5 * FREEZE_BLOCKS + 64, BLOCKS];
    let at = 0;
    for (const cut of cuts) {
      const head = cut - 1;
      writerA.append({ blocks: blocks.slice(at, cut), chainId: 1n, safe: head - 32, finalized: head - 64 });
      blocks.slice(at, cut).forEach((block) => expected.add(block));
      at = cut;
      const frozenTo = readManifest(a!)!.frozenTo;
      assert.equal(frozenTo, freezeTarget(head, head - 64), `frozen after block ${head}`);
      // Only the blocks after the freeze point are in the recent B-tree.
      assert.equal(a!.txByHash.getKeysCount(), txsAfter(frozenTo, head), `recent transactions after block ${head}`);
      expected.check(reader, head, `after block ${head}`);
    }
    // Store b: uneven batches with the same markers; store c without markers, then a batch that only marks.
    const writerB = new StoreWriter(b!);
    for (const batch of unevenBatches(blocks)) {
      const n = batch.at(-1)!.header.number;
      writerB.append({ blocks: batch, chainId: 1n, safe: Math.max(0, n - 32), finalized: Math.max(0, n - 64) });
    }
    assert.deepEqual(diffStores(a!, b!), []);
    const writerC = new StoreWriter(c!);
    writerC.append({ blocks, chainId: 1n });
    assert.equal(readManifest(c!)!.frozenTo, freezeTarget(BLOCKS - 1));
    writerC.append({ blocks: [], safe: BLOCKS - 33, finalized: BLOCKS - 65 });
    assert.deepEqual(diffStores(a!, c!), []);
    assert.deepEqual(verifyStore(a!).problems, []);

    // A rollback below the finalized block (a node that reorganised past finality) is still exact.
    const to = readManifest(a!)!.frozenTo - 3;
    const branch = [...generateChain({ blocks: BLOCKS + 10, seed: 'runs-final-branch', density: DENSITY })];
    const linked = relink(branch.slice(to + 1), blocks[to]!.header.hash);
    writerA.append({ rollbackTo: to, blocks: linked, finalized: to });
    expected.rollback(to);
    linked.forEach((block) => expected.add(block));
    expected.check(reader, linked.at(-1)!.header.number, 'after a rollback past the finalized block');
    assert.deepEqual(verifyStore(a!).problems, []);
  });
});

/** The blocks with each parent hash set to the block before (the first to `parent`) and their hashes recomputed. */
function relink(blocks: BlockBundle[], parent: Uint8Array): BlockBundle[] {
  return blocks.map((block) => {
    const linked = linkBlock(block, parent);
    parent = linked.header.hash;
    return linked;
  });
}

test("entries sharing a hash prefix stay in one chunk, grown past a chunk's count", async () => {
  await withStores(1, async ([store]) => {
    const batch = new FrozenBatch();
    // 250 entries of distinct prefixes below the shared one, then 300 of one prefix (as one transaction included in
    // many blocks would give), then one above it: the first chunk must take all 550, the last entry a chunk of its own.
    for (let i = 0; i < 250; i++) batch.addTx(Buffer.concat([Uint8Array.of(1, i), new Uint8Array(30)]), i, 0);
    for (let i = 0; i < 300; i++) batch.addTx(new Uint8Array(32).fill(9), 250 + Math.floor(i / 100), i % 100);
    batch.addTx(new Uint8Array(32).fill(0xee), 253, 100);
    store!.env.transactionSync(() => new Freezer(store!).freeze(0, FREEZE_BLOCKS - 1, 0, batch));
    const chunks = [...store!.txRuns.getRange({})].map(({ key, value }) => ({
      last: Buffer.from(decodeRunChunkKey(key).last).toString('hex'),
      entries: value.length / 16,
    }));
    assert.deepEqual(chunks, [
      { last: '0909090909090909', entries: 550 },
      { last: 'eeeeeeeeeeeeeeee', entries: 1 },
    ]);
    const entries = [...store!.txRuns.getRange({})][0]!.value;
    assert.deepEqual(decodeTxEntry(entries.subarray(549 * 16, 550 * 16)), {
      prefix: new Uint8Array(8).fill(9),
      number: 252,
      index: 99,
    });
  });
});

test('a merge goes on in steps, its inputs serving lookups; a new writer resumes it to the same store', async () => {
  const blocks = [...generateChain({ blocks: BLOCKS, seed: 'steps', density: DENSITY })];
  await withStores(2, async ([a, b]) => {
    const expected = new Expected();
    const writerA = new StoreWriter(a!);
    let inProgress = 0;
    let previousKept = false;
    let inputChunks: number | undefined;
    let freed = false;
    const keptReader = new StoreReader(b!);
    for (let at = 0; at < BLOCKS; at += STEP_BATCH) {
      const batch = blocks.slice(at, at + STEP_BATCH);
      writerA.append({ blocks: batch, chainId: 1n });
      // Store b: a writer a batch, as after a restart; every other one keeps the merge's filters when it is done, so
      // that the next takes them up, the others leave them to be rebuilt from the merge's chunks.
      const rebuilds = mergeFilterRebuilds();
      const before = readManifest(b!)?.merges ?? [];
      const resumed = before.some((m) => m.txs + m.storage > 0);
      const writerB = new StoreWriter(b!);
      writerB.append({ blocks: batch, chainId: 1n });
      // A writer holds a merge's filters (and keeps them) only once it has taken a step of it.
      const stepped = JSON.stringify(readManifest(b!)?.merges ?? []) !== JSON.stringify(before);
      const kept = (at / STEP_BATCH) % 2 === 0 && stepped;
      if (kept) writerB.saveMergeFilters();
      if (resumed && previousKept) assert.equal(mergeFilterRebuilds(), rebuilds, `batch at ${at}: kept filters`);
      previousKept = kept;
      batch.forEach((block) => expected.add(block));
      const merges = readManifest(b!)?.merges ?? [];
      if (merges.length === 0) continue;
      inProgress++;
      // The steps free the inputs' chunks they have passed.
      const chunks = merges[0]!.inputs.reduce((total, id) => total + runChunkCount(b!, id), 0);
      inputChunks ??= chunks;
      if (chunks < inputChunks) freed = true;
      assert.deepEqual(
        merges.map((m) => m.level),
        [1],
      );
      expected.check(new StoreReader(b!), at + batch.length - 1, `block ${at + batch.length - 1}, a merge in progress`);
      // A reader kept across the steps (as serve's is) extends the merged run's fence as chunks are added.
      expected.check(keptReader, at + batch.length - 1, `block ${at + batch.length - 1}, a reader kept across steps`);
      assert.deepEqual(verifyStore(b!).problems, [], `block ${at + batch.length - 1}`);
    }
    // A merge's units make about twenty batches; a writer that found no kept filter rebuilt them.
    assert.ok(inProgress >= 16, `a merge seen in progress after ${inProgress} batches`);
    assert.ok(mergeFilterRebuilds() >= 1, `${mergeFilterRebuilds()} rebuilds`);
    assert.ok(freed, `the inputs' ${inputChunks} chunks were not freed as the merge went on`);
    const manifest = readManifest(b!)!;
    assert.deepEqual(manifest.merges, []);
    assert.equal(manifest.runs.filter((r) => r.level === 1).length, 1);
    assert.deepEqual(diffStores(a!, b!), []);
  });
});

test('a rollback into the inputs of a merge in progress finishes the merge, then cuts the merged run', async () => {
  const blocks = [...generateChain({ blocks: BLOCKS, seed: 'steps-cut', density: DENSITY })];
  await withStores(1, async ([store]) => {
    const writer = new StoreWriter(store!);
    const expected = new Expected();
    let at = 0;
    while (readManifest(store!)?.merges.length !== 1 || readManifest(store!)!.merges[0]!.part !== 'storage') {
      writer.append({ blocks: blocks.slice(at, at + 32), chainId: 1n });
      blocks.slice(at, at + 32).forEach((block) => expected.add(block));
      at += 32;
      assert.ok(at < BLOCKS, 'a merge reaches its storage part');
    }
    const merge = readManifest(store!)!.merges[0]!;
    const lastInput = readManifest(store!)!.runs.find((r) => r.id === merge.inputs.at(-1))!;
    const to = lastInput.from + 10;
    const branch = relink(
      [...generateChain({ blocks: at + 64, seed: 'steps-cut-branch', density: DENSITY })].slice(to + 1),
      blocks[to]!.header.hash,
    );
    writer.append({ rollbackTo: to, blocks: branch });
    expected.rollback(to);
    branch.forEach((block) => expected.add(block));
    const after = readManifest(store!)!;
    assert.deepEqual(after.merges, []);
    const merged = after.runs.find((r) => r.id === merge.id);
    assert.ok(merged && merged.level === 1 && merged.to === to, JSON.stringify(merged));
    for (const id of merge.inputs) {
      const range = { start: runStartKey(id), end: runStartKey(id + 1) };
      assert.equal(store!.txRuns.getKeysCount(range) + store!.storageRuns.getKeysCount(range), 0, `input ${id}`);
    }
    assert.deepEqual(verifyStore(store!).problems, []);
    expected.check(new StoreReader(store!), branch.at(-1)!.header.number, 'after the rollback');
    // The level fills again with the branch's units, and their merge runs.
    let head = branch.at(-1)!.header.number;
    const more = relink(
      [
        ...generateChain({
          blocks: head + 1 + MERGE_FAN_IN * FREEZE_BLOCKS,
          seed: 'steps-cut-more',
          density: DENSITY,
        }),
      ].slice(head + 1),
      branch.at(-1)!.header.hash,
    );
    writer.append({ blocks: more });
    more.forEach((block) => expected.add(block));
    head = more.at(-1)!.header.number;
    const last = readManifest(store!)!;
    assert.ok(last.runs.filter((r) => r.level === 1).length + last.merges.length >= 2, JSON.stringify(last.merges));
    assert.deepEqual(verifyStore(store!).problems, []);
    expected.check(new StoreReader(store!), head, 'after the merge again');
  });
});

/** The chunks of run `id`, transaction and storage. */
function runChunkCount(store: Store, id: number): number {
  const range = { start: runStartKey(id), end: runStartKey(id + 1) };
  return store.txRuns.getKeysCount(range) + store.storageRuns.getKeysCount(range);
}
