/**
 * verifyStore over real generated stores: a whole store has no problems, and each kind of damage a
 * crash or a bug could leave (a missing or extra record, a stale index, a wrong bloom or row, an
 * entry above the head, a marker out of range, a truncated record) is named. Each damage is made
 * inside a write transaction, checked there (reads see the transaction's writes), then undone by
 * aborting the transaction, so every case starts from the same whole store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeBlockTxs, encodeBlockTxs } from '#src/store/blockTxsRecord.js';
import { decodeHeader, encodeBundle, encodeHeader } from '#src/store/codec.js';
import {
  decodeTxKey,
  encodeAddressSegmentKey,
  encodeBlockKey,
  encodeBloomBitsKey,
  encodeStorageKey,
  encodeTxKey,
} from '#src/store/keys.js';
import { decodeLogs, encodeLogs, logAddressTable } from '#src/store/logsRecord.js';
import { StoreReader } from '#src/store/reader.js';
import { runStartKey, TX_ENTRY_BYTES } from '#src/store/runChunks.js';
import { readManifest, writeManifest } from '#src/store/runs.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { SEGMENT_BLOCKS } from '#src/store/segments.js';
import { type VerifyOptions, type VerifyResult, verifyStore } from '#src/store/verify.js';
import { StoreWriter } from '#src/store/writer.js';
import { generateStore } from '#src/synth/generateStore.js';
import { generateChain, linkBlock } from '#src/synth/generator.js';

/** A small store: block-level damage. */
const SMALL = { blocks: 120, seed: 'verify', density: 0.05 };
/** Past one segment boundary at a low density: bloom rows and the address index of segment 0. */
const SEGMENTED = { blocks: SEGMENT_BLOCKS + 40, seed: 'verify-segments', density: 0.002 };

/** Thrown to abort a damage transaction after the check. */
class Undo extends Error {}

const dirs: string[] = [];

async function makeStore(opts: { blocks: number; seed: string; density: number }): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-verify-'));
  dirs.push(dir);
  await generateStore(dir, { ...opts, pending: true, progress: false });
  return openStore(dir);
}

/** Applies `damage` in a write transaction, verifies inside it (with `options`), and rolls everything back. */
function verifyDamaged(store: Store, damage: () => void, options: VerifyOptions = {}): VerifyResult {
  let result: VerifyResult | undefined;
  assert.throws(
    () =>
      store.env.transactionSync(() => {
        damage();
        result = verifyStore(store, options);
        throw new Undo();
      }),
    Undo,
  );
  return result!;
}

/** Asserts every pattern matches some problem. */
function assertProblems(result: VerifyResult, ...patterns: RegExp[]): void {
  for (const p of patterns)
    assert.ok(
      result.problems.some((line) => p.test(line)),
      `a problem matching ${p} in:\n${result.problems.join('\n')}`,
    );
}

/** The first block from `from` that has logs, and (when `busy`) two transactions and storage writes. */
function blockWithLogs(store: Store, from: number, busy: boolean): number {
  const reader = new StoreReader(store);
  const head = reader.meta()!.head;
  for (let n = from; n <= head; n++) {
    if (reader.logs(n).length === 0) continue;
    if (!busy || (reader.header(n)!.txCount > 1 && store.storageWrites.doesExist(encodeBlockKey(n)))) return n;
  }
  throw new Error(`no block from ${from} to ${head} fits`);
}

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a small store', () => {
  let store: Store;
  let head: number;
  let n: number;

  before(async () => {
    store = await makeStore(SMALL);
    head = SMALL.blocks - 1;
    n = blockWithLogs(store, 10, true);
  });
  after(async () => {
    await closeStore(store);
  });

  test('a whole store has no problems', () => {
    const result = verifyStore(store);
    assert.deepEqual({ ...result, mark: undefined }, { blocks: SMALL.blocks, from: 0, problems: [], mark: undefined });
    assert.equal(result.mark?.to, SMALL.blocks - 1);
  });

  test('a missing transaction, and its dangling hash index', () => {
    const records = decodeBlockTxs(store.txs.getBinary(encodeBlockKey(n))!);
    const r = verifyDamaged(store, () => store.txs.put(encodeBlockKey(n), encodeBlockTxs(records.slice(0, 1))));
    assertProblems(
      r,
      new RegExp(`^block ${n}: transactions 1\\.\\.${records.length - 1} missing$`),
      /^txByHash: 0x[0-9a-f]{64} → 0x[0-9a-f]{24} is not a stored transaction/,
    );
  });

  test('a transaction beyond the header count, and one missing from the hash index', () => {
    const extra = decodeBlockTxs(store.txs.getBinary(encodeBlockKey(n))!)[0]!;
    const next = store.txs.getBinary(encodeBlockKey(n + 1));
    const records = next ? decodeBlockTxs(next) : [];
    const hash = store.txHashes.getBinary(encodeBlockKey(n))!.subarray(0, 32);
    const r = verifyDamaged(store, () => {
      store.txs.put(encodeBlockKey(n + 1), encodeBlockTxs([...records, extra]));
      store.txByHash.remove(hash);
    });
    assertProblems(
      r,
      new RegExp(`^block ${n + 1}: transaction ${records.length} beyond`),
      new RegExp(`^block ${n}: transaction 0 \\(0x[0-9a-f]+\\) is not in txByHash$`),
    );
  });

  test("a block's transaction hashes value missing, out of order, or with a hash too many", () => {
    const key = encodeBlockKey(n);
    const list = store.txHashes.getBinary(key)!;
    const swapped = Buffer.concat([list.subarray(32, 64), list.subarray(0, 32), list.subarray(64)]);
    const count = list.length / 32;
    const problem = (m: number, hashes: number) =>
      new RegExp(`^block ${m}: the transaction hashes value holds ${hashes} hashes for the header's ${count} `);
    assertProblems(
      verifyDamaged(store, () => store.txHashes.remove(key)),
      problem(n, 0),
    );
    // Each transaction's hash is its block's value's: swapped, the hash index names the other transaction.
    assertProblems(
      verifyDamaged(store, () => store.txHashes.put(key, swapped)),
      new RegExp(`^block ${n}: txByHash of transaction 0 points to`),
      new RegExp(`^block ${n}: txByHash of transaction 1 points to`),
    );
    assertProblems(
      verifyDamaged(store, () => store.txHashes.put(key, Buffer.concat([list, list.subarray(0, 32)]))),
      problem(n, count + 1),
    );
  });

  test('a hash index pointing elsewhere', () => {
    const hash = store.txHashes.getBinary(encodeBlockKey(n))!.subarray(0, 32);
    const r = verifyDamaged(store, () => store.txByHash.put(Buffer.from(hash), encodeTxKey(n, 1)));
    assertProblems(r, new RegExp(`^block ${n}: txByHash of transaction 0 points to`));
    assert.equal(decodeTxKey(store.txByHash.getBinary(Buffer.from(hash))!).index, 0, 'the damage was undone');
  });

  test('entries above the head, in every block-keyed database and the storage history', () => {
    const above = head + 3;
    const r = verifyDamaged(store, () => {
      store.headers.put(encodeBlockKey(above), store.headers.getBinary(encodeBlockKey(n))!);
      store.logs.put(encodeBlockKey(above), store.logs.getBinary(encodeBlockKey(n))!);
      store.txs.put(encodeBlockKey(above), store.txs.getBinary(encodeBlockKey(n))!);
      store.storageWrites.put(encodeBlockKey(above), store.storageWrites.getBinary(encodeBlockKey(n))!);
      store.txHashes.put(encodeBlockKey(above), store.txHashes.getBinary(encodeBlockKey(n))!);
      store.storage.put(encodeStorageKey(new Uint8Array(20).fill(1), new Uint8Array(32), above), Buffer.from([7]));
    });
    for (const name of ['headers', 'logs', 'txs', 'storageWrites', 'txHashes'])
      assertProblems(r, new RegExp(`^${name}: an entry for block ${above}, outside 0\\.\\.${head}$`));
    assertProblems(r, new RegExp(`^storage: key 0x0101[0-9a-f]+ is at block ${above}, outside`));
  });

  test('a missing header, and the hash index and parent link around it', () => {
    const r = verifyDamaged(store, () => store.headers.remove(encodeBlockKey(n)));
    assertProblems(
      r,
      new RegExp(`^block ${n}: header missing$`),
      /^blockByHash: .* is not a stored block with that hash$/,
    );
  });

  test("a broken parent link and a logsBloom that is not its logs'", () => {
    const header = decodeHeader(store.headers.getBinary(encodeBlockKey(n))!);
    const damaged = { ...header, parentHash: new Uint8Array(32).fill(9), logsBloom: new Uint8Array(256) };
    const r = verifyDamaged(store, () => store.headers.put(encodeBlockKey(n), encodeHeader(damaged)));
    assertProblems(
      r,
      new RegExp(`^block ${n}: parent hash 0x0909[0-9a-f]+ is not block ${n - 1}'s hash$`),
      new RegExp(`^block ${n}: logsBloom is not the OR`),
    );
  });

  test('a logs record naming a transaction the block lacks', () => {
    const key = encodeBlockKey(n);
    const logs = decodeLogs(store.logs.getBinary(key)!);
    const txCount = decodeHeader(store.headers.getBinary(key)!).txCount;
    const r = verifyDamaged(store, () => {
      store.logs.put(
        key,
        encodeLogs(logs.map((log, i) => (i === logs.length - 1 ? { ...log, txIndex: txCount } : log))),
      );
    });
    assertProblems(r, new RegExp(`^block ${n}: log ${logs.length - 1} names transaction ${txCount} of ${txCount}$`));
  });

  test('a truncated logs record is named, not decoded forever', () => {
    const key = encodeBlockKey(n);
    const record = store.logs.getBinary(key)!;
    const r = verifyDamaged(store, () => store.logs.put(key, record.subarray(0, record.length - 3)));
    assertProblems(r, new RegExp(`^block ${n}: logs record (does not decode|does not round-trip)`));
  });

  test('a storage write without its key, and a key the block does not list', () => {
    const key = encodeBlockKey(n);
    const prefix = store.storageWrites.getBinary(key)!.subarray(0, 52);
    const r = verifyDamaged(store, () => {
      store.storage.remove(encodeStorageKey(prefix.subarray(0, 20), prefix.subarray(20), n));
      store.storage.put(encodeStorageKey(new Uint8Array(20).fill(2), new Uint8Array(32), n + 1), Buffer.from([1]));
    });
    assertProblems(
      r,
      new RegExp(`^block ${n}: storage write 0x[0-9a-f]{104} has no storage key$`),
      new RegExp(`^block ${n + 1}: `),
    );
  });

  test('markers out of range and a pending block that does not follow the head', () => {
    const pending = new StoreReader(store).pending()!;
    const r = verifyDamaged(store, () => {
      store.meta.put('safe', head + 1);
      store.meta.put('finalized', -1);
      store.meta.put('pending', encodeBundle({ ...pending, header: { ...pending.header, number: head + 2 } }));
    });
    assertProblems(
      r,
      /^meta: safe \d+ is not a block number at or below head/,
      /^meta: finalized -1 /,
      new RegExp(`^meta: the pending block is number ${head + 2}, want head \\+ 1`),
    );
  });

  test('orphans must not be canonical', () => {
    const raw = store.headers.getBinary(encodeBlockKey(n))!;
    const hash = Buffer.from(decodeHeader(raw).hash);
    const r = verifyDamaged(store, () =>
      store.orphans.put(
        hash,
        encodeBundle({ header: decodeHeader(raw), transactions: [], receipts: [], logs: [], storage: [] }),
      ),
    );
    assertProblems(r, /^orphans: 0x[0-9a-f]{64} is also canonical$/);
  });

  test('a store without a head holds nothing', () => {
    const r = verifyDamaged(store, () => store.meta.remove('head'));
    assert.equal(r.blocks, 0);
    assertProblems(
      r,
      /^meta: chainId is set but the store has no head$/,
      /^headers: \d+ entries but the store has no head$/,
    );
  });
});

describe('a store past a segment boundary', () => {
  let store: Store;

  before(async () => {
    store = await makeStore(SEGMENTED);
  });
  after(async () => {
    await closeStore(store);
  });

  test('a whole store has no problems', () => {
    const result = verifyStore(store);
    assert.deepEqual(
      { ...result, mark: undefined },
      { blocks: SEGMENTED.blocks, from: 0, problems: [], mark: undefined },
    );
    assert.equal(result.mark?.to, SEGMENTED.blocks - 1);
  });

  test('a wrong bloom row, a missing address-index entry, and indexes of the incomplete segment', () => {
    const n = blockWithLogs(store, 0, false);
    const address = logAddressTable(store.logs.getBinary(encodeBlockKey(n))!).subarray(0, 20);
    const row = store.bloomBits.getBinary(encodeBloomBitsKey(5, 0))!;
    const r = verifyDamaged(store, () => {
      store.bloomBits.put(encodeBloomBitsKey(5, 0), Buffer.from(row.map((b) => b ^ 1)));
      store.addressSegments.remove(encodeAddressSegmentKey(address, 0));
      store.bloomBits.put(encodeBloomBitsKey(7, 1), Buffer.alloc(512));
      store.addressSegments.put(encodeAddressSegmentKey(address, 1), Buffer.from([0, 1]));
    });
    assertProblems(
      r,
      /^segment 0: 1 of 2048 bloom rows missing or not the blocks' blooms$/,
      /^segment 0: 1 of \d+ address-index entries missing or wrong$/,
      /^segment 0: \d+ address-index entries, its blocks have \d+ addresses$/,
      /^bloomBits: a row 0x000700000001 for bit 7 of segment 1, not a complete segment$/,
      /^addressSegments: an entry 0x[0-9a-f]{40}00000001 for segment 1, not a complete segment$/,
    );
    assert.equal(r.problems.length, 5, r.problems.join('\n'));
  });
});

test('a merge in progress: whole, its chunks not counted; a malformed manifest entry is named', async () => {
  // The 32nd unit is frozen at block 8,319: the merge of units 0-31 has taken its first step of 32.
  const store = await makeStore({ blocks: 8_450, seed: 'verify-merge', density: 0.002 });
  try {
    const manifest = readManifest(store)!;
    assert.equal(manifest.merges.length, 1);
    assert.ok(store.txRuns.getKeysCount({ start: runStartKey(manifest.merges[0]!.id) }) > 0, 'the first step wrote');
    assert.deepEqual(verifyStore(store).problems, []);
    const damaged = (change: (m: (typeof manifest.merges)[number]) => void) => () => {
      const m = readManifest(store)!;
      change(m.merges[0]!);
      writeManifest(store, m);
    };
    assertProblems(
      verifyDamaged(
        store,
        damaged((m) => m.inputs.reverse()),
      ),
      /^runs: the merge into run \d+ of level 1 has inputs \d+(, \d+)*, not contiguous runs below it$/,
    );
    assertProblems(
      verifyDamaged(
        store,
        damaged((m) => (m.after = 'ab')),
      ),
      /^runs: the merge into run \d+ stands at part (tx|storage), key 'ab'$/,
    );
    assertProblems(
      verifyDamaged(
        store,
        damaged((m) => (m.id = m.inputs[0]!)),
      ),
      /^runs: the merge into run \d+ has an id in use/,
    );
  } finally {
    await closeStore(store);
  }
});

test('after a mark, only what was written since is checked, until the marked block is replaced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-verify-'));
  dirs.push(dir);
  const store = openStore(dir);
  try {
    const blocks = [...generateChain({ blocks: 1_600, seed: 'verify-since', density: 0.01 })];
    const writer = new StoreWriter(store);
    writer.append({ blocks: blocks.slice(0, 900), chainId: 1n });
    const first = verifyStore(store);
    assert.deepEqual(first.problems, []);
    assert.equal(first.from, 0);
    assert.equal(first.mark?.to, 899);
    assert.ok(first.mark!.runs.length > 0, 'the first 900 blocks are partly frozen');

    writer.append({ blocks: blocks.slice(900), chainId: 1n });
    let total = 0;
    const second = verifyStore(store, { since: first.mark, onBlock: (_, of) => (total = of) });
    assert.deepEqual(second.problems, []);
    assert.equal(second.from, 900);
    assert.equal(total, 700);
    assert.equal(second.mark?.to, 1_599);
    assert.ok(
      second.mark!.runs.some((id) => !first.mark!.runs.includes(id)),
      'runs were made since',
    );

    // Damage after the mark is found; damage before it only by a full check.
    const later = encodeBlockKey(1_000);
    const earlier = encodeBlockKey(100);
    const damage = (key: Buffer) => () => store.txs.remove(key);
    assertProblems(verifyDamaged(store, damage(later), { since: first.mark }), /^block 1000: transactions 0\.\./);
    assert.deepEqual(verifyDamaged(store, damage(earlier), { since: first.mark }).problems, []);
    assertProblems(verifyDamaged(store, damage(earlier)), /^block 100: transactions 0\.\./);
    // A chunk of a run made since the mark is checked; one of a run checked before is not.
    const fresh = second.mark!.runs.find((id) => !first.mark!.runs.includes(id))!;
    const chunkOf = (id: number) => [...store.txRuns.getKeys({ start: runStartKey(id), limit: 1 })][0]!;
    const garble = (id: number) => () => store.txRuns.put(Buffer.from(chunkOf(id)), Buffer.alloc(TX_ENTRY_BYTES));
    assertProblems(verifyDamaged(store, garble(fresh), { since: first.mark }), new RegExp(`^txRuns: run ${fresh}: `));

    // A rollback below the marked block replaces it: the mark no longer fits and everything is checked.
    const branch = [...generateChain({ blocks: 1_700, seed: 'verify-since-branch', density: 0.01 })].slice(1_401);
    let parent = blocks[1_400]!.header.hash;
    const linked = branch.map((block) => {
      const next = linkBlock(block, parent);
      parent = next.header.hash;
      return next;
    });
    writer.append({ rollbackTo: 1_400, blocks: linked, chainId: 1n });
    const third = verifyStore(store, { since: second.mark });
    assert.deepEqual(third.problems, []);
    assert.equal(third.from, 0);
  } finally {
    await closeStore(store);
  }
});
