/**
 * StoreWriter against a real LMDB environment in a temp dir: reorganisations (rollback to an
 * ancestor and a new branch in one transaction), orphans served by hash, indexes and storage
 * history undone, markers clamped, refused rollbacks changing nothing, and the bit-sliced bloom
 * rows of complete segments written, deleted by a rollback below the boundary, rewritten, rebuilt.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { BlockBundle, StorageWrite, Transaction } from '#src/chain/types.js';
import { type BlockRecords, encodeBlockRecords } from '#src/store/blockRecords.js';
import { decodeBloomBitsKey, encodeBlockKey, encodeTxKey } from '#src/store/keys.js';
import { MIN_ORDERED_PUTS } from '#src/store/orderedPuts.js';
import { StoreReader } from '#src/store/reader.js';
import { storedBlockHash } from '#src/store/recordViews.js';
import { ADDRESS_INDEX_FLAG, CHAIN_DATABASES, closeStore, openStore, type Store } from '#src/store/schema.js';
import { BLOOM_BITS, buildSegmentRows, ROW_BYTES, SEGMENT_BLOCKS } from '#src/store/segments.js';
import { ChainContinuityError, StoreWriter } from '#src/store/writer.js';
import { generateChain } from '#src/synth/generator.js';
import { makeHeader, Rng } from './fixtures.js';

async function withStore(body: (store: Store) => void | Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-writer-test-'));
  const store = openStore(dir);
  try {
    await body(store);
  } finally {
    await closeStore(store);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every entry of every chain database (all but the API keys) as hex text, for "nothing changed" comparisons. */
function snapshot(store: Store): Record<string, string[]> {
  const render = (v: unknown): string => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : JSON.stringify(v));
  const out: Record<string, string[]> = {};
  for (const [name, db] of Object.entries(store)) {
    if (name === 'env' || name === 'apiKeys' || typeof (db as { getRange?: unknown })?.getRange !== 'function')
      continue;
    out[name] = [];
    for (const { key, value } of (db as Store['headers']).getRange())
      out[name]!.push(`${render(key)}=${render(value)}`);
  }
  assert.ok('headers' in out && 'bloomBits' in out && 'storageWrites' in out && 'meta' in out);
  return out;
}

/** A fake 32-byte hash derived from parts (the writer never recomputes hashes). */
function fakeHash(...parts: (Uint8Array | string)[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function word(byte: number): Uint8Array {
  return new Uint8Array(32).fill(byte);
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * A replacement branch for `old` (consecutive blocks) under `parent`: same numbers, other hashes
 * (header, transactions), correctly linked; logs kept (their txIndex stays valid); storage replaced.
 */
function forkOf(old: BlockBundle[], parent: Uint8Array, tag: string, storage: StorageWrite[][]): BlockBundle[] {
  let parentHash = parent;
  return old.map((b, i) => {
    const hash = fakeHash(b.header.hash, tag);
    const transactions: Transaction[] = b.transactions.map((tx) => ({ ...tx, hash: fakeHash(tx.hash, tag) }));
    const header = { ...b.header, hash, parentHash, extraData: new TextEncoder().encode(tag) };
    parentHash = hash;
    return { header, transactions, receipts: b.receipts, logs: b.logs, storage: storage[i] ?? [] };
  });
}

/** The expected value of (address, slot) at `n` over the canonical `blocks`: the last write at or before n. */
function expectedStorage(blocks: BlockBundle[], address: Uint8Array, slot: Uint8Array, n: number): Uint8Array {
  let value = new Uint8Array(32);
  for (const b of blocks) {
    if (b.header.number > n) break;
    for (const w of b.storage) {
      if (hex(w.address) === hex(address) && hex(w.slot) === hex(slot)) {
        value = new Uint8Array(32);
        value.set(w.value, 32 - w.value.length);
      }
    }
  }
  return value;
}

const START = 1000;

/** A generated chain of 12 blocks (1000..1011) with extra, controlled storage writes. */
function reorgFixture() {
  const chain = [...generateChain({ blocks: 12, seed: 'writer', density: 0.02, startNumber: START })];
  const A = new Uint8Array(20).fill(0xaa);
  const [S, T, U, V] = [word(1), word(2), word(3), word(4)];
  const at = (n: number) => chain[n - START]!;
  // S: written before the fork point and again on the old branch.
  at(1003).storage = [...at(1003).storage, { address: A, slot: S, value: word(0x11) }];
  at(1008).storage = [...at(1008).storage, { address: A, slot: S, value: word(0x22) }];
  // T: written only by the old branch.
  at(1009).storage = [...at(1009).storage, { address: A, slot: T, value: word(0x33) }];
  // V: written by both branches at the same block number.
  at(1008).storage = [...at(1008).storage, { address: A, slot: V, value: word(0x55) }];
  return { chain, at, A, S, T, U, V };
}

test(
  'reorganisation in one transaction: orphans by hash, ' + 'indexes undone, storage history kept, markers clamped',
  async () => {
    await withStore((store) => {
      const { chain, at, A, S, T, U, V } = reorgFixture();
      const writer = new StoreWriter(store);
      const reader = new StoreReader(store);
      writer.append({ blocks: chain.slice(0, 6), chainId: 1n });
      writer.append({ blocks: chain.slice(6), safe: 1010, finalized: 1009 });
      assert.deepEqual(reader.meta(), { chainId: 1n, earliest: START, head: 1011, safe: 1010, finalized: 1009 });

      const ROLLBACK = 1006;
      const old = chain.slice(ROLLBACK + 1 - START); // 1007..1011
      const branch = forkOf(old.slice(0, 2), at(ROLLBACK).header.hash, 'new', [
        [{ address: A, slot: S, value: word(0x44) }],
        [
          { address: A, slot: U, value: word(0x66) },
          { address: A, slot: V, value: word(0x77) },
        ],
      ]);
      // Re-included transactions: one at the same position (1007, 0), one moved from (1009, 2) to (1008, 1).
      const samePlace = at(1007).transactions[0]!;
      const moved = at(1009).transactions[2]!;
      branch[0]!.transactions[0] = samePlace;
      branch[1]!.transactions[1] = moved;

      writer.append({ rollbackTo: ROLLBACK, blocks: branch });

      assert.deepEqual(reader.meta(), {
        chainId: 1n,
        earliest: START,
        head: 1008,
        safe: ROLLBACK,
        finalized: ROLLBACK,
      });

      // The old branch: served by hash from orphans, whole, and no longer canonical.
      for (const b of old) {
        const orphan = reader.orphan(b.header.hash);
        assert.ok(orphan, `block ${b.header.number} is an orphan`);
        assert.deepEqual(orphan.header, b.header);
        assert.deepEqual(orphan.transactions, b.transactions);
        assert.deepEqual(orphan.logs, b.logs);
        assert.equal(reader.numberByHash(b.header.hash), undefined);
        for (const tx of b.transactions) {
          if (tx === samePlace || tx === moved) continue;
          assert.equal(reader.txLocation(tx.hash), undefined, `old tx ${hex(tx.hash)} of ${b.header.number}`);
        }
      }
      assert.deepEqual(reader.txLocation(samePlace.hash), { number: 1007, index: 0 });
      assert.deepEqual(reader.txLocation(moved.hash), { number: 1008, index: 1 });
      assert.deepEqual(reader.transaction(1008, 1), moved);

      // The new branch is canonical.
      for (const b of branch) {
        const n = b.header.number;
        assert.deepEqual(reader.header(n), b.header);
        assert.equal(reader.numberByHash(b.header.hash), n);
        assert.deepEqual(reader.transactions(n), b.transactions);
        assert.deepEqual(reader.logs(n), b.logs);
        b.transactions.forEach((tx, i) => assert.deepEqual(reader.txLocation(tx.hash), { number: n, index: i }));
        assert.equal(reader.orphan(b.header.hash), undefined);
      }
      // Above the new head nothing is left.
      for (let n = 1009; n <= 1011; n++) {
        assert.equal(reader.header(n), undefined);
        assert.deepEqual(reader.transactions(n), []);
        assert.deepEqual(reader.logs(n), []);
        assert.equal(reader.transaction(n, 0), undefined);
        assert.equal(store.storageWrites.getBinary(encodeBlockKey(n)), undefined);
      }
      // Below the fork point nothing changed.
      for (const b of chain.slice(0, ROLLBACK + 1 - START)) {
        assert.equal(reader.numberByHash(b.header.hash), b.header.number);
        assert.equal(reader.orphan(b.header.hash), undefined);
        b.transactions.forEach((tx, i) =>
          assert.deepEqual(reader.txLocation(tx.hash), { number: b.header.number, index: i }),
        );
      }

      // Storage: the controlled slots...
      assert.deepEqual(reader.storageAt(A, S, 1002), word(0));
      assert.deepEqual(reader.storageAt(A, S, 1003), word(0x11));
      assert.deepEqual(reader.storageAt(A, S, ROLLBACK), word(0x11));
      assert.deepEqual(reader.storageAt(A, S, 1007), word(0x44));
      assert.deepEqual(reader.storageAt(A, S, 1011), word(0x44));
      assert.deepEqual(reader.storageAt(A, T, 1009), word(0), 'a slot written only by the old branch is gone');
      assert.deepEqual(reader.storageAt(A, T, 2_000_000), word(0));
      assert.deepEqual(reader.storageAt(A, U, 1008), word(0x66));
      assert.deepEqual(reader.storageAt(A, V, 1008), word(0x77), 'same block number, new value');
      assert.deepEqual(reader.storageAt(A, V, 1007), word(0));
      // ...and every slot any block of either branch wrote, at every height, against a model of the canonical chain.
      const canonical = [...chain.slice(0, ROLLBACK + 1 - START), ...branch];
      const slots = new Map<string, StorageWrite>();
      for (const b of [...chain, ...branch]) for (const w of b.storage) slots.set(hex(w.address) + hex(w.slot), w);
      assert.ok(slots.size > 40, `enough slots (${slots.size})`);
      for (const w of slots.values()) {
        for (let n = START - 1; n <= 1012; n++) {
          assert.deepEqual(
            reader.storageAt(w.address, w.slot, n),
            expectedStorage(canonical, w.address, w.slot, n),
            `${hex(w.slot)} at ${n}`,
          );
        }
      }
    });
  },
);

test('a refused rollback (below earliest, above head, or with a bad branch) changes nothing', async () => {
  await withStore((store) => {
    const { chain } = reorgFixture();
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    writer.append({ blocks: chain, chainId: 1n, safe: 1010, finalized: 1009 });
    const before = snapshot(store);

    assert.throws(() => writer.append({ rollbackTo: START - 1, blocks: [] }), ChainContinuityError);
    assert.throws(() => writer.append({ rollbackTo: START - 1, blocks: [chain[0]!] }), ChainContinuityError);
    assert.throws(() => writer.append({ rollbackTo: 1012, blocks: [] }), ChainContinuityError);
    assert.throws(
      () => writer.append({ rollbackTo: 1012, blocks: forkOf([chain[11]!], chain[11]!.header.hash, 'x', []) }),
      ChainContinuityError,
    );
    // A valid rollback followed by a block that does not extend the ancestor: the whole batch is undone.
    const badBranch = forkOf(chain.slice(7, 9), chain[0]!.header.hash, 'bad', []);
    assert.throws(() => writer.append({ rollbackTo: 1006, blocks: badBranch, safe: 1000 }), /does not extend/);
    // A valid rollback followed by a wrong number.
    const skipping = forkOf(chain.slice(8, 9), chain[6]!.header.hash, 'skip', []);
    assert.throws(() => writer.append({ rollbackTo: 1006, blocks: skipping }), /expected block 1007/);

    assert.deepEqual(snapshot(store), before);
    assert.deepEqual(reader.meta(), { chainId: 1n, earliest: START, head: 1011, safe: 1010, finalized: 1009 });
    for (const b of chain) assert.equal(reader.orphan(b.header.hash), undefined);

    // Rolling back to the earliest block itself is allowed, with no new blocks.
    writer.append({ rollbackTo: START, blocks: [] });
    assert.deepEqual(reader.meta(), { chainId: 1n, earliest: START, head: START, safe: START, finalized: START });
    assert.equal(reader.orphan(chain[1]!.header.hash)?.header.number, 1001);
    assert.equal(reader.header(1001), undefined);
  });
});

test('a block that returns to the canonical chain leaves orphans, and its transactions are found again', async () => {
  await withStore(async (store) => {
    const { chain } = reorgFixture();
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    writer.append({ blocks: chain, chainId: 1n });
    const old = chain.slice(7);
    const branch = forkOf(old.slice(0, 3), chain[6]!.header.hash, 'side', []);
    writer.append({ rollbackTo: 1006, blocks: branch });
    for (const b of old) assert.ok(reader.orphan(b.header.hash));

    // Back to the first branch: the same blocks, the same hashes.
    writer.append({ rollbackTo: 1006, blocks: old });
    assert.equal(reader.meta()!.head, 1011);
    for (const b of old) {
      assert.equal(reader.orphan(b.header.hash), undefined, `block ${b.header.number} left orphans`);
      assert.equal(reader.numberByHash(b.header.hash), b.header.number);
      b.transactions.forEach((tx, i) =>
        assert.deepEqual(reader.txLocation(tx.hash), { number: b.header.number, index: i }),
      );
    }
    for (const b of branch) {
      assert.ok(reader.orphan(b.header.hash), 'the side branch is now orphaned');
      for (const tx of b.transactions) assert.equal(reader.txLocation(tx.hash), undefined);
    }
    // Everything a fresh store holding the same chain would hold, except orphans and markers
    // (safe/finalized were clamped by the rollbacks).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-writer-fresh-'));
    const other = openStore(dir);
    let fresh: Record<string, string[]>;
    try {
      new StoreWriter(other).append({ blocks: chain, chainId: 1n });
      fresh = snapshot(other);
    } finally {
      await closeStore(other);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const now = snapshot(store);
    for (const s of [now, fresh]) {
      delete s.orphans;
      delete s.meta;
    }
    assert.deepEqual(now, fresh);
  });
});

// ---------------------------------------------------------------------------------------------
// Bloom rows

/** A sparse, valid-looking bloom: a few random bits (some blocks none). */
function sparseBloom(rng: Rng): Uint8Array {
  const bloom = new Uint8Array(256);
  const bits = rng.chance(0.1) ? 0 : 3 * (1 + rng.int(4));
  for (let i = 0; i < bits; i++) {
    const b = rng.int(2048);
    bloom[255 - (b >> 3)]! |= 1 << (b & 7);
  }
  return bloom;
}

/** Hand-built tiny blocks (no transactions, no logs) with sparse blooms, linked under `parent`. */
function tinyBlocks(rng: Rng, first: number, count: number, parent: Uint8Array): BlockBundle[] {
  const out: BlockBundle[] = [];
  let parentHash = parent;
  for (let n = first; n < first + count; n++) {
    const header = { ...makeHeader(rng, n, parentHash), logsBloom: sparseBloom(rng) };
    out.push({ header, transactions: [], receipts: [], logs: [], storage: [] });
    parentHash = header.hash;
  }
  return out;
}

/** The rows stored for `segment`, by bit; missing rows are absent. */
function storedRows(store: Store, segment: number): Map<number, Uint8Array> {
  const rows = new Map<number, Uint8Array>();
  for (const { key, value } of store.bloomBits.getRange()) {
    const k = decodeBloomBitsKey(key);
    if (k.segment === segment) rows.set(k.bit, new Uint8Array(value));
  }
  return rows;
}

/**
 * Checks the stored rows of `segment` against the blooms of `blocks` (the canonical blocks of the
 * segment, by number): 2048 rows of 512 bytes, equal to buildSegmentRows, and, independently of
 * it, bit i of row b set exactly when block start+i's bloom has bit b.
 */
function checkRows(store: Store, segment: number, blocks: Map<number, BlockBundle>): void {
  const rows = storedRows(store, segment);
  assert.equal(rows.size, BLOOM_BITS, `segment ${segment} has ${BLOOM_BITS} rows`);
  const start = segment * SEGMENT_BLOCKS;
  const expected = buildSegmentRows((i) => blocks.get(start + i)?.header.logsBloom);
  for (let bit = 0; bit < BLOOM_BITS; bit++) {
    const row = rows.get(bit)!;
    assert.equal(row.length, ROW_BYTES);
    assert.deepEqual(row, expected[bit], `row ${bit} of segment ${segment}`);
  }
  let set = 0;
  for (let i = 0; i < SEGMENT_BLOCKS; i++) {
    const bloom = blocks.get(start + i)?.header.logsBloom ?? new Uint8Array(256);
    for (let bit = 0; bit < BLOOM_BITS; bit++) {
      const inBloom = (bloom[255 - (bit >> 3)]! >> (bit & 7)) & 1;
      const inRow = (rows.get(bit)![i >> 3]! >> (7 - (i & 7))) & 1;
      if (inBloom !== inRow) assert.fail(`block ${start + i} bit ${bit}: bloom ${inBloom}, row ${inRow}`);
      set += inRow;
    }
  }
  assert.ok(set > 0, 'the rows are not empty');
}

const byNumber = (blocks: BlockBundle[]) => new Map(blocks.map((b) => [b.header.number, b]));

test(
  'bloom rows: written when a segment completes, ' + 'deleted by a rollback below the boundary, rewritten, rebuilt',
  async () => {
    await withStore((store) => {
      const rng = new Rng(4096);
      const writer = new StoreWriter(store);
      const reader = new StoreReader(store);
      const chain = tinyBlocks(rng, 0, SEGMENT_BLOCKS + 10, new Uint8Array(32));

      // Up to the last block but one of segment 0: no rows yet.
      writer.append({ blocks: chain.slice(0, 2000), chainId: 1n });
      writer.append({ blocks: chain.slice(2000, SEGMENT_BLOCKS - 1) });
      assert.equal(storedRows(store, 0).size, 0, 'an open segment has no rows');
      // A batch that crosses the boundary completes segment 0.
      writer.append({ blocks: chain.slice(SEGMENT_BLOCKS - 1) });
      checkRows(store, 0, byNumber(chain));
      assert.equal(storedRows(store, 1).size, 0, 'segment 1 is still open');

      // A rollback that stays at or above the boundary keeps the rows.
      const keep = snapshot(store).bloomBits;
      writer.append({ rollbackTo: SEGMENT_BLOCKS - 1, blocks: [] });
      assert.deepEqual(snapshot(store).bloomBits, keep);

      // A rollback below the boundary deletes them.
      writer.append({ rollbackTo: SEGMENT_BLOCKS - 2, blocks: [] });
      assert.equal(storedRows(store, 0).size, 0, 'rows of a reopened segment are gone');
      assert.equal(reader.meta()!.head, SEGMENT_BLOCKS - 2);

      // Re-appending the same blocks past the boundary rewrites them.
      writer.append({ blocks: chain.slice(SEGMENT_BLOCKS - 1) });
      checkRows(store, 0, byNumber(chain));
      assert.deepEqual(snapshot(store).bloomBits, keep);

      // A reorganisation across the boundary, in one batch: the rows follow the new branch.
      const FORK = SEGMENT_BLOCKS - 20;
      const branch = tinyBlocks(rng, FORK + 1, 40, chain[FORK]!.header.hash);
      writer.append({ rollbackTo: FORK, blocks: branch });
      const canonical = [...chain.slice(0, FORK + 1), ...branch];
      checkRows(store, 0, byNumber(canonical));
      assert.notDeepEqual(snapshot(store).bloomBits, keep);
      assert.equal(reader.meta()!.head, FORK + 40);

      // Deleted rows are rebuilt from the headers; the complete segment and the open one are visited.
      const rebuiltFrom = snapshot(store).bloomBits;
      store.env.transactionSync(() => {
        for (const { key } of store.bloomBits.getRange()) store.bloomBits.remove(key);
      });
      assert.equal(storedRows(store, 0).size, 0);
      assert.equal(writer.rebuildIndexes(), 2);
      checkRows(store, 0, byNumber(canonical));
      assert.deepEqual(snapshot(store).bloomBits, rebuiltFrom);
    });
  },
);

test('bloom rows of a store that starts inside a segment: blocks before the earliest are zero bits', async () => {
  await withStore((store) => {
    const rng = new Rng(77);
    const writer = new StoreWriter(store);
    const FIRST = 2 * SEGMENT_BLOCKS - 96;
    const chain = tinyBlocks(rng, FIRST, 200, rng.bytes(32));
    writer.append({ blocks: chain, chainId: 1n });
    checkRows(store, 1, byNumber(chain));
    assert.equal(storedRows(store, 0).size, 0, 'no rows for a segment the store never held');
    assert.equal(storedRows(store, 2).size, 0);
    // Rebuilding visits the segments from the earliest block's (1 and the open 2, not 0), and writes the same rows.
    const before = snapshot(store).bloomBits;
    assert.equal(writer.rebuildIndexes(), 2);
    assert.deepEqual(snapshot(store).bloomBits, before);
    // A rollback to below the earliest is refused and keeps the rows.
    assert.throws(() => writer.append({ rollbackTo: FIRST - 1, blocks: [] }), ChainContinuityError);
    assert.deepEqual(snapshot(store).bloomBits, before);
  });
});

test('rebuildIndexes on an empty store and on a store with no complete segment', async () => {
  await withStore((store) => {
    const writer = new StoreWriter(store);
    assert.equal(writer.rebuildIndexes(), 0);
    writer.append({ blocks: tinyBlocks(new Rng(1), 0, 10, new Uint8Array(32)), chainId: 1n });
    assert.equal(writer.rebuildIndexes(), 1, 'the open segment is visited');
    assert.equal(storedRows(store, 0).size, 0);
  });
});

/**
 * The write path before MDB_APPEND and key-ordered puts, as a reference: one transaction putting
 * every entry of the blocks one by one, in block order (a rollback and the segment indexes are left
 * to StoreWriter, which writes them as before).
 */
function putOneByOne(store: Store, blocks: BlockRecords[], chainId?: bigint): void {
  store.env.transactionSync(() => {
    if (chainId !== undefined) {
      store.meta.put('chainId', chainId.toString());
      store.meta.put('earliest', blocks[0]!.number);
      store.meta.put(ADDRESS_INDEX_FLAG, true);
    }
    for (const r of blocks) {
      const n = r.number;
      const blockKey = encodeBlockKey(n);
      const hash = Buffer.from(storedBlockHash(r.header));
      store.headers.put(blockKey, r.header);
      store.blockByHash.put(hash, blockKey);
      if (r.txs) store.txs.put(blockKey, r.txs);
      for (let i = 0; i < r.txCount; i++)
        store.txByHash.put(r.txHashes!.subarray(i * 32, i * 32 + 32), encodeTxKey(n, i));
      if (r.txHashes) store.txHashes.put(blockKey, r.txHashes);
      if (r.receipts) store.receipts.put(blockKey, r.receipts);
      store.orphans.remove(hash);
      if (r.logs) store.logs.put(blockKey, r.logs);
      r.storageKeys.forEach((key, i) => store.storage.put(key, r.storageValues[i]!));
      if (r.storageWrites) store.storageWrites.put(blockKey, r.storageWrites);
    }
    store.meta.put('head', blocks.at(-1)!.number);
  });
}

test(
  'appends and key-ordered puts store what plain puts in block order store: ' +
    'across a segment boundary, a reorganisation below it, repeated keys, stray keys above the head',
  async () => {
    await withStore((store) =>
      withStore((reference) => {
        const FIRST = SEGMENT_BLOCKS - 20;
        // Mainnet density: the second batch and the branch put more keys a database than orderedPuts leaves unordered.
        const chain = [...generateChain({ blocks: 90, seed: 'write-order', density: 1, startNumber: FIRST })];
        const at = (n: number) => chain[n - FIRST]!;
        // A transaction hash twice in one batch (the later block's location stays) and a slot written twice in one
        // block (the later value stays).
        at(FIRST + 12).transactions[1] = at(FIRST + 11).transactions[0]!;
        const write = at(FIRST + 13).storage[0]!;
        at(FIRST + 13).storage.push({ ...write, value: word(0x5a) });
        const writer = new StoreWriter(store);
        const referenceWriter = new StoreWriter(reference);
        const records = (blocks: BlockBundle[]) => blocks.map(encodeBlockRecords);
        // The transaction hashes as the writer puts them.
        const txHashPuts: Buffer[] = [];
        const put = store.txByHash.put.bind(store.txByHash);
        store.txByHash.put = (key: Buffer, value: Buffer) => (txHashPuts.push(key), put(key, value));

        const batches = [chain.slice(0, 9), chain.slice(9, 80)];
        for (const [i, blocks] of batches.entries()) {
          txHashPuts.length = 0;
          writer.appendRecords({ blocks: records(blocks), chainId: i === 0 ? 1n : undefined });
          putOneByOne(reference, records(blocks), i === 0 ? 1n : undefined);
        }
        assert.ok(txHashPuts.length >= MIN_ORDERED_PUTS, `${txHashPuts.length} transaction hashes in the second batch`);
        for (let i = 1; i < txHashPuts.length; i++)
          assert.ok(Buffer.compare(txHashPuts[i - 1]!, txHashPuts[i]!) <= 0, 'transaction hashes put in key order');
        assert.ok(new StoreReader(store).meta()!.head >= SEGMENT_BLOCKS, 'segment 0 completed');
        // A reorganisation below the boundary (segment 0 open again), its branch crossing it again.
        const ROLLBACK = SEGMENT_BLOCKS - 4;
        const branch = forkOf(chain.slice(ROLLBACK + 1 - FIRST, 80), at(ROLLBACK).header.hash, 'branch', []);
        writer.appendRecords({ rollbackTo: ROLLBACK, blocks: records(branch) });
        referenceWriter.appendRecords({ rollbackTo: ROLLBACK, blocks: [] });
        putOneByOne(reference, records(branch));
        // Keys above the head that a store should not hold: appending is refused there and the entry put where it
        // belongs.
        const head = branch.at(-1)!.header.number;
        for (const s of [store, reference]) {
          s.env.transactionSync(() => {
            s.headers.put(encodeBlockKey(head + 3), Buffer.from('stray header'));
            s.txs.put(encodeBlockKey(head + 2), Buffer.from('stray transactions'));
          });
        }
        const next = forkOf(
          chain.slice(80),
          branch.at(-1)!.header.hash,
          'next',
          chain.slice(80).map((b) => b.storage),
        );
        writer.appendRecords({ blocks: records(next) });
        putOneByOne(reference, records(next));
        referenceWriter.rebuildIndexes();

        assert.deepEqual(snapshot(store), snapshot(reference));
        const reader = new StoreReader(store);
        assert.deepEqual(reader.txLocation(at(FIRST + 11).transactions[0]!.hash), { number: FIRST + 12, index: 1 });
        assert.deepEqual(reader.storageAt(write.address, write.slot, FIRST + 13), word(0x5a));
        assert.equal(reader.numberByHash(next.at(-1)!.header.hash), next.at(-1)!.header.number);
        // MDB_APPEND leaves full pages full, where plain puts of ascending keys split them in half.
        const leafPages = (s: Store) => (s.headers.getStats() as { treeLeafPageCount: number }).treeLeafPageCount;
        assert.ok(
          leafPages(store) < leafPages(reference),
          `${leafPages(store)} leaf pages of headers appended, ${leafPages(reference)} put`,
        );
      }),
    );
  },
);

test('a batch that does not continue the chain is refused before any put', async () => {
  await withStore((store) => {
    const chain = [...generateChain({ blocks: 12, seed: 'refused', density: 0.05 })];
    const writer = new StoreWriter(store);
    writer.append({ blocks: chain.slice(0, 4), chainId: 1n });
    const before = snapshot(store);
    let writes = 0;
    for (const name of CHAIN_DATABASES) {
      const db = store[name] as unknown as Record<string, (...args: unknown[]) => unknown>;
      for (const method of ['put', 'putSync', 'remove', 'removeSync']) {
        const original = db[method]!;
        db[method] = (...args: unknown[]) => {
          writes++;
          return original.apply(db, args);
        };
      }
    }
    const unlinked = forkOf(chain.slice(10, 11), new Uint8Array(32), 'unlinked', []);
    assert.throws(() => writer.append({ blocks: [...chain.slice(4, 10), ...unlinked] }), /does not extend/);
    assert.throws(() => writer.append({ blocks: [...chain.slice(4, 8), chain[9]!] }), /expected block 8, got 9/);
    assert.equal(writes, 0, 'no chain database was written');
    assert.deepEqual(snapshot(store), before);
    writer.append({ blocks: chain.slice(4) });
    assert.ok(writes > 0);
    assert.equal(new StoreReader(store).meta()!.head, 11);
  });
});
