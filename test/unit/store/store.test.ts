import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { open } from 'lmdb';
import type { BlockBundle, StorageWrite } from '#src/chain/types.js';
import {
  checkApiKey,
  constantTimeEqual,
  createApiKey,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
} from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, type OpenStoreOptions, openStore, SCHEMA_VERSION, type Store } from '#src/store/schema.js';
import { verifyStore } from '#src/store/verify.js';
import { ChainContinuityError, StoreWriter } from '#src/store/writer.js';
import { filled, makeBundle, Rng } from './fixtures.js';

const ZERO_WORD = new Uint8Array(32);

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-store-test-'));
}

/** Opens a fresh store in a temp dir, runs `body`, then closes the store and removes the dir. */
async function withStore(body: (store: Store, dir: string) => void | Promise<void>): Promise<void> {
  const dir = tempDir();
  const store = openStore(dir);
  try {
    await body(store, dir);
  } finally {
    await closeStore(store);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every entry of every database, rendered as text, for before/after comparisons. */
function snapshot(store: Store): Record<string, string[]> {
  const render = (v: unknown): string => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : JSON.stringify(v));
  const out: Record<string, string[]> = {};
  const dbs = {
    meta: store.meta,
    headers: store.headers,
    blockByHash: store.blockByHash,
    orphans: store.orphans,
    txs: store.txs,
    txByHash: store.txByHash,
    logs: store.logs,
    storage: store.storage,
    apiKeys: store.apiKeys,
  } as const;
  for (const [name, db] of Object.entries(dbs)) {
    out[name] = [];
    for (const { key, value } of (db as Store['headers']).getRange())
      out[name]!.push(`${render(key)}=${render(value)}`);
  }
  return out;
}

function word(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.padStart(64, '0'), 'hex'));
}

/** The increment of a 32-byte slot: the key that sorts right after it. */
function nextSlot(slot: Uint8Array): Uint8Array {
  const out = Uint8Array.from(slot);
  for (let i = 31; i >= 0; i--) {
    out[i] = (out[i]! + 1) & 0xff;
    if (out[i] !== 0) break;
  }
  return out;
}

interface Chain {
  rng: Rng;
  batch1: BlockBundle[];
  batch2: BlockBundle[];
  pending: BlockBundle;
  addrA: Uint8Array;
  addrB: Uint8Array;
  slotS: Uint8Array;
  slotT: Uint8Array;
  /** Per (address, slot) label, the writes in block order: [block, 32-byte value]. */
  history: Record<string, Array<[number, Uint8Array]>>;
}

/** Blocks 100-102 then 103-105 with storage writes, and a pending block 106. */
function buildChain(): Chain {
  const rng = new Rng(0x5703e);
  const addrA = rng.bytes(20);
  const addrB = Uint8Array.of(0, 0, 0, ...rng.bytes(17));
  const slotS = word('0');
  const slotT = rng.bytes(32);
  const slotS1 = nextSlot(slotS);
  const X = word('2a');
  const Y = filled(32, 0xff);
  const Z = word('0100'); // leading zero bytes, trailing zero byte
  const W = Uint8Array.of(0x80, ...new Uint8Array(31));
  const writes: Record<number, StorageWrite[]> = {
    100: [{ address: addrA, slot: slotS, value: X }],
    101: [{ address: addrA, slot: slotS1, value: W }],
    102: [
      { address: addrA, slot: slotS, value: Y },
      { address: addrB, slot: slotT, value: W },
    ],
    103: [{ address: addrB, slot: slotS, value: X }],
    104: [{ address: addrA, slot: slotS, value: ZERO_WORD }],
    105: [
      { address: addrA, slot: slotS, value: Z },
      { address: addrB, slot: slotT, value: ZERO_WORD },
    ],
  };
  const txCounts: Record<number, number> = { 100: 2, 101: 0, 102: 3, 103: 1, 104: 300, 105: 4 };
  const blocks: BlockBundle[] = [];
  let parent = rng.bytes(32);
  for (let n = 100; n <= 105; n++) {
    const b = makeBundle(rng, n, parent, txCounts[n]!, writes[n] ?? []);
    blocks.push(b);
    parent = b.header.hash;
  }
  const pending = makeBundle(rng, 106, parent, 2);
  const history: Chain['history'] = {
    AS: [
      [100, X],
      [102, Y],
      [104, ZERO_WORD],
      [105, Z],
    ],
    AS1: [[101, W]],
    AT: [],
    BT: [
      [102, W],
      [105, ZERO_WORD],
    ],
    BS: [[103, X]],
  };
  return { rng, batch1: blocks.slice(0, 3), batch2: blocks.slice(3), pending, addrA, addrB, slotS, slotT, history };
}

function expectedAt(history: Array<[number, Uint8Array]>, number: number): Uint8Array {
  let value: Uint8Array = ZERO_WORD;
  for (const [n, v] of history) if (n <= number) value = v;
  return value;
}

function checkBlocks(reader: StoreReader, blocks: BlockBundle[]): void {
  for (const b of blocks) {
    const n = b.header.number;
    assert.deepStrictEqual(reader.header(n), b.header, `header ${n}`);
    assert.equal(reader.numberByHash(b.header.hash), n);
    assert.deepStrictEqual(reader.transactions(n), b.transactions, `transactions ${n}`);
    assert.deepStrictEqual(
      reader.txHashes(n),
      b.transactions.map((tx) => tx.hash),
    );
    b.transactions.forEach((tx, i) => {
      assert.deepStrictEqual(reader.transaction(n, i), tx);
      assert.deepStrictEqual(reader.txHash(n, i), tx.hash);
      assert.deepStrictEqual(reader.txLocation(tx.hash), { number: n, index: i });
    });
    assert.equal(reader.transaction(n, b.transactions.length), undefined);
    assert.deepStrictEqual(reader.logs(n), b.logs, `logs ${n}`);
    assert.equal(reader.logsRecord(n) === undefined, b.logs.length === 0);
  }
}

test('append two batches and read everything back', async () => {
  await withStore((store) => {
    const chain = buildChain();
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    assert.equal(reader.meta(), undefined);
    assert.equal(writer.meta(), undefined);
    assert.equal(reader.pending(), undefined);

    writer.append({ blocks: chain.batch1, chainId: 1n });
    assert.deepStrictEqual(reader.meta(), { chainId: 1n, earliest: 100, head: 102, safe: 102, finalized: 102 });
    checkBlocks(reader, chain.batch1);
    assert.equal(reader.header(103), undefined);
    assert.equal(reader.header(99), undefined);

    writer.append({ blocks: chain.batch2, safe: 104, finalized: 103, pending: chain.pending });
    assert.deepStrictEqual(reader.meta(), { chainId: 1n, earliest: 100, head: 105, safe: 104, finalized: 103 });
    assert.deepStrictEqual(writer.meta(), reader.meta());
    checkBlocks(reader, [...chain.batch1, ...chain.batch2]);

    assert.equal(reader.header(106), undefined);
    assert.equal(reader.numberByHash(chain.pending.header.hash), undefined);
    assert.equal(reader.txLocation(chain.pending.transactions[0]!.hash), undefined);
    assert.equal(reader.numberByHash(chain.rng.bytes(32)), undefined);
    assert.equal(reader.txLocation(chain.rng.bytes(32)), undefined);
    assert.deepStrictEqual(reader.transactions(106), []);
    assert.deepStrictEqual(reader.txHashes(99), []);
    assert.deepStrictEqual(reader.logs(106), []);
    assert.equal(reader.orphan(chain.batch1[0]!.header.hash), undefined);

    // Block 104 has 300 transactions: indexes past 255 keep their order.
    const big = reader.transactions(104);
    assert.equal(big.length, 300);
    assert.deepStrictEqual(big[256], chain.batch2[1]!.transactions[256]);
  });
});

test(
  'storage history: value at N is the last write at or ' + 'before N, zero before the first, zero write clears',
  async () => {
    await withStore((store) => {
      const chain = buildChain();
      const writer = new StoreWriter(store);
      const reader = new StoreReader(store);
      const { addrA, addrB, slotS, slotT } = chain;
      const slots: Record<string, [Uint8Array, Uint8Array]> = {
        AS: [addrA, slotS],
        AS1: [addrA, nextSlot(slotS)],
        AT: [addrA, slotT],
        BT: [addrB, slotT],
        BS: [addrB, slotS],
      };
      const check = (upTo: number) => {
        for (const [label, [address, slot]] of Object.entries(slots)) {
          for (let n = 0; n <= 110; n = n < 95 ? n + 19 : n + 1) {
            // Only writes already committed count.
            const history = chain.history[label]!.filter(([b]) => b <= upTo);
            const got = reader.storageAt(address, slot, n);
            assert.equal(got.length, 32);
            assert.deepStrictEqual(
              Buffer.from(got).toString('hex'),
              Buffer.from(expectedAt(history, n)).toString('hex'),
              `${label} at ${n} after ${upTo}`,
            );
          }
        }
      };
      check(0);
      writer.append({ blocks: chain.batch1, chainId: 1n });
      check(102);
      writer.append({ blocks: chain.batch2 });
      check(105);

      // Spot checks of the history, spelled out.
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 99), ZERO_WORD);
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 100), word('2a'));
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 101), word('2a'));
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 102), filled(32, 0xff));
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 103), filled(32, 0xff));
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 104), ZERO_WORD);
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, 105), word('0100'));
      assert.deepStrictEqual(reader.storageAt(addrA, slotS, Number.MAX_SAFE_INTEGER), word('0100'));
      // The neighbouring slot written at 101 never leaks into slot S before its first write.
      assert.deepStrictEqual(reader.storageAt(addrA, nextSlot(slotS), 100), ZERO_WORD);
      assert.deepStrictEqual(reader.storageAt(addrA, nextSlot(slotS), 101), Uint8Array.of(0x80, ...new Uint8Array(31)));
      assert.deepStrictEqual(reader.storageAt(addrB, slotT, 104), Uint8Array.of(0x80, ...new Uint8Array(31)));
      assert.deepStrictEqual(reader.storageAt(addrB, slotT, 105), ZERO_WORD);
      assert.deepStrictEqual(reader.storageAt(filled(20, 0xff), filled(32, 0xff), 105), ZERO_WORD);
      assert.deepStrictEqual(reader.storageAt(new Uint8Array(20), new Uint8Array(32), 105), ZERO_WORD);
    });
  },
);

test('pending block: set, kept when not mentioned, cleared with null', async () => {
  await withStore((store) => {
    const chain = buildChain();
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    writer.append({ blocks: chain.batch1, chainId: 1n, pending: chain.batch2[0]! });
    assert.deepStrictEqual(reader.pending(), { ...chain.batch2[0]!, storage: [] });
    writer.append({ blocks: chain.batch2, pending: chain.pending });
    assert.deepStrictEqual(reader.pending(), { ...chain.pending, storage: [] });
    writer.append({ blocks: [], safe: 105 });
    assert.deepStrictEqual(reader.pending(), { ...chain.pending, storage: [] });
    assert.deepStrictEqual(reader.meta(), { chainId: 1n, earliest: 100, head: 105, safe: 105, finalized: 105 });
    writer.append({ blocks: [], pending: null });
    assert.equal(reader.pending(), undefined);
    assert.equal(reader.meta()!.head, 105);
    writer.append({ blocks: [], pending: null });
    assert.equal(reader.pending(), undefined);
  });
});

test('a batch that moves the head without a pending block drops the one built on the old head', async () => {
  await withStore((store) => {
    const chain = buildChain();
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    // generate extending a store, killed after its first batch: the old head's pending block must not outlive it.
    writer.append({ blocks: chain.batch1, chainId: 1n, pending: chain.batch2[0]! });
    writer.append({ blocks: chain.batch2.slice(0, 2) });
    assert.equal(reader.pending(), undefined);
    // (The fixture's blocks carry made-up blooms, which verify names too; the markers are what this test is about.)
    assert.deepEqual(
      verifyStore(store).problems.filter((problem) => problem.startsWith('meta:')),
      [],
    );
  });
});

test(
  'ChainContinuityError: missing chain id, wrong block number, ' +
    'wrong parent hash; failed batches leave nothing behind',
  async () => {
    await withStore((store) => {
      const chain = buildChain();
      const writer = new StoreWriter(store);
      const reader = new StoreReader(store);

      const empty = snapshot(store);
      assert.throws(() => writer.append({ blocks: chain.batch1 }), ChainContinuityError);
      assert.deepStrictEqual(snapshot(store), empty);
      assert.equal(reader.meta(), undefined);

      // A gap inside the first batch: 100 then 102.
      assert.throws(
        () => writer.append({ blocks: [chain.batch1[0]!, chain.batch1[2]!], chainId: 1n }),
        ChainContinuityError,
      );
      assert.deepStrictEqual(snapshot(store), empty);
      assert.equal(reader.header(100), undefined);

      writer.append({ blocks: chain.batch1, chainId: 1n, safe: 101, finalized: 100 });
      const before = snapshot(store);
      const metaBefore = reader.meta();

      const [b103, b104] = chain.batch2 as [BlockBundle, BlockBundle];
      // Wrong number: skipping 103.
      assert.throws(() => writer.append({ blocks: [b104] }), ChainContinuityError);
      // Wrong number: re-appending the head.
      assert.throws(() => writer.append({ blocks: [chain.batch1[2]!] }), ChainContinuityError);
      // Wrong number after a valid first block, with markers and pending in the same batch.
      assert.throws(
        () => writer.append({ blocks: [b103, b103], safe: 103, finalized: 103, pending: chain.pending }),
        ChainContinuityError,
      );
      // Wrong parent hash on the first block of the batch.
      const orphanLike: BlockBundle = { ...b103, header: { ...b103.header, parentHash: chain.rng.bytes(32) } };
      assert.throws(() => writer.append({ blocks: [orphanLike] }), /does not extend/);
      // Wrong parent hash on the second block, after a valid one with storage writes.
      const badChild: BlockBundle = { ...b104, header: { ...b104.header, parentHash: chain.batch1[0]!.header.hash } };
      assert.throws(() => writer.append({ blocks: [b103, badChild], safe: 103, pending: null }), ChainContinuityError);

      assert.deepStrictEqual(snapshot(store), before);
      assert.deepStrictEqual(reader.meta(), metaBefore);
      assert.equal(reader.header(103), undefined);
      assert.equal(reader.numberByHash(b103.header.hash), undefined);
      assert.equal(reader.txLocation(b103.transactions[0]!.hash), undefined);
      assert.deepStrictEqual(reader.storageAt(chain.addrB, chain.slotS, 103), ZERO_WORD);
      assert.equal(reader.pending(), undefined);

      // The store still accepts the right continuation.
      writer.append({ blocks: chain.batch2 });
      checkBlocks(reader, [...chain.batch1, ...chain.batch2]);
      assert.deepStrictEqual(reader.meta(), { chainId: 1n, earliest: 100, head: 105, safe: 101, finalized: 100 });
    });
  },
);

test('a store reopens with its data, read-only too; a foreign schema version is refused', async () => {
  const dir = tempDir();
  try {
    const chain = buildChain();
    let store = openStore(dir);
    new StoreWriter(store).append({ blocks: chain.batch1, chainId: 11155111n });
    await closeStore(store);

    store = openStore(dir, { readOnly: true });
    try {
      const reader = new StoreReader(store);
      assert.deepStrictEqual(reader.meta(), {
        chainId: 11155111n,
        earliest: 100,
        head: 102,
        safe: 102,
        finalized: 102,
      });
      checkBlocks(reader, chain.batch1);
      assert.throws(() => new StoreWriter(store), /read-only/);
    } finally {
      await closeStore(store);
    }

    store = openStore(dir);
    store.meta.putSync('schemaVersion', SCHEMA_VERSION + 1);
    await closeStore(store);
    assert.throws(
      () => openStore(dir),
      new RegExp(
        `has layout version ${SCHEMA_VERSION + 1}, this build reads ` +
          `version ${SCHEMA_VERSION}: it was written by a newer ethlogd`,
      ),
    );
    // Each older version: how an open refuses it (what it lacks, and rebuild or migrate), and the open that does.
    const older: { version: number; options: OpenStoreOptions; message: string }[] = [
      {
        version: 1,
        options: { readOnly: true },
        message:
          'has layout version 1, this build reads version 8 \\(older stores lack the ' +
          "receipts, each block's transaction hashes, the frozen runs and other chains' " +
          'transactions and fields \\(OP stack, Arbitrum\\), compact transaction ' +
          'inputs, transaction records without their hash and one transactions record a block\\): ' +
          'build it again with `ethlogd generate` or `ethlogd ingest`',
      },
      {
        version: 2,
        options: { readOnly: true },
        message:
          'has layout version 2, this build reads version 8 \\(older stores lack ' +
          "each block's transaction hashes, the frozen runs and other chains'",
      },
      {
        version: 3,
        options: { readOnly: true },
        message:
          'has layout version 3, this build reads version 8 \\(it lacks the frozen runs and ' +
          "other chains' transactions and fields \\(OP stack, Arbitrum\\), compact " +
          'transaction inputs, transaction records without their hash and one transactions record a block\\): ' +
          'convert it with ' +
          '`ethlogd migrate --data ',
      },
      // Migrating opens a writable store only.
      { version: 3, options: { readOnly: true, migrating: true }, message: 'has layout version 3' },
      {
        version: 4,
        options: { migrating: true },
        message:
          'has layout version 4, this build reads version 8 \\(older stores lack compact transaction inputs, ' +
          'transaction records without their hash and one transactions record a block\\): build it again',
      },
      {
        version: 5,
        options: { readOnly: true },
        message:
          'has layout version 5, this build reads version 8 \\(it lacks transaction records ' +
          'without their hash and one transactions record a block\\): convert it with `ethlogd migrate --data ',
      },
      {
        version: 6,
        options: { readOnly: true },
        message:
          'has layout version 6, this build reads version 8 \\(it lacks one transactions record a block\\): ' +
          'convert it with `ethlogd migrate --data ',
      },
    ];
    for (const { version, options, message } of older) {
      const env = open({ path: dir, maxDbs: 16 });
      env.openDB({ name: 'meta' }).putSync('schemaVersion', version);
      await env.close();
      assert.throws(() => openStore(dir, options), new RegExp(message), `version ${version}`);
    }
    // Layout 7 is this one with no merge in progress: read as it is, marked as this version by a writable open.
    const env = open({ path: dir, maxDbs: 16 });
    env.openDB({ name: 'meta' }).putSync('schemaVersion', 7);
    await env.close();
    for (const readOnly of [true, false]) {
      const opened = openStore(dir, { readOnly });
      assert.equal(opened.meta.get('schemaVersion'), readOnly ? 7 : SCHEMA_VERSION);
      await closeStore(opened);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Resolves after the timers of 0 ms set before it (checkApiKey's end of tick among them) have run. */
const nextTick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

test('api keys: checks stay exact past the memo of presented keys, after a key is created or removed', async () => {
  const dir = tempDir();
  const store = openStore(dir);
  try {
    const k1 = createApiKey(store, 'alice');
    assert.equal(checkApiKey(store, k1), 'valid');
    for (let i = 0; i < 10_050; i++) assert.equal(checkApiKey(store, `flood-${i}`), 'unknown');
    assert.equal(checkApiKey(store, k1), 'valid');
    const unknownFirst = 'a'.repeat(64);
    assert.equal(checkApiKey(store, unknownFirst), 'unknown');
    // Written as another process writes: this tick's checks answer as before, the next tick's see it.
    store.apiKeys.putSync(hashApiKey(unknownFirst), { label: 'late', created: Date.now(), revoked: null });
    await nextTick();
    assert.equal(
      checkApiKey(store, unknownFirst),
      'valid',
      'a key stored after it was refused is accepted from the next tick on',
    );
    assert.equal(checkApiKey(store, k1), 'valid');
    store.apiKeys.removeSync(hashApiKey(k1));
    assert.equal(checkApiKey(store, k1), 'valid', 'within a tick a checked key answers as it did');
    await nextTick();
    assert.equal(checkApiKey(store, k1), 'unknown', 'a removed key is refused from the next tick on');
    assert.equal(checkApiKey(store, unknownFirst), 'valid');
    assert.equal(revokeApiKey(store, unknownFirst), true);
    assert.equal(checkApiKey(store, unknownFirst), 'revoked', 'a key this thread revokes is refused at once');
  } finally {
    await closeStore(store);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('api keys: constantTimeEqual is string equality', () => {
  const cases: [string, string, boolean][] = [
    ['', '', true],
    ['a', 'a', true],
    ['ab', 'ba', false],
    ['abc', 'abd', false],
    ['abc', 'ab', false],
    ['ab', 'abc', false],
    ['a'.repeat(64), 'a'.repeat(64), true],
    ['a'.repeat(63) + 'b', 'a'.repeat(64), false],
    ['\u0100', '\u0000', false],
  ];
  for (const [a, b, equal] of cases)
    assert.equal(constantTimeEqual(a, b), equal, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
});

test('api keys: create, list, check, revoke; only the sha256 hash is stored', async () => {
  const dir = tempDir();
  const store = openStore(dir);
  const keys: string[] = [];
  try {
    assert.deepStrictEqual(listApiKeys(store), []);
    const t0 = Date.now();
    const k1 = createApiKey(store, 'alice');
    const k2 = createApiKey(store, 'bob');
    keys.push(k1, k2);
    assert.match(k1, /^[0-9a-f]{64}$/);
    assert.notEqual(k1, k2);

    const list = listApiKeys(store);
    assert.equal(list.length, 2);
    const byLabel = new Map(list.map((e) => [e.label, e]));
    const alice = byLabel.get('alice')!;
    assert.equal(alice.id, createHash('sha256').update(k1, 'utf8').digest('hex'));
    assert.equal(alice.id, hashApiKey(k1).toString('hex'));
    assert.equal(byLabel.get('bob')!.id, hashApiKey(k2).toString('hex'));
    assert.equal(alice.revoked, null);
    assert.ok(alice.created >= t0 && alice.created <= Date.now());
    const listed = JSON.stringify(list);
    for (const k of keys) {
      assert.equal(listed.includes(k), false, 'a raw key appears in the listing');
      assert.equal(listed.includes(Buffer.from(k, 'hex').toString('base64')), false);
    }

    assert.equal(checkApiKey(store, k1), 'valid');
    assert.equal(checkApiKey(store, k2), 'valid');
    assert.equal(checkApiKey(store, 'not-a-key'), 'unknown');
    assert.equal(checkApiKey(store, ''), 'unknown');
    assert.equal(checkApiKey(store, k1.toUpperCase()), 'unknown');

    assert.equal(revokeApiKey(store, 'not-a-key'), false);
    assert.equal(revokeApiKey(store, hashApiKey(k1).toString('hex')), false, 'the id is not the key');
    assert.equal(
      listApiKeys(store).every((e) => e.revoked === null),
      true,
    );

    assert.equal(revokeApiKey(store, k1), true);
    assert.equal(checkApiKey(store, k1), 'revoked');
    assert.equal(checkApiKey(store, k2), 'valid');
    const revokedAt = listApiKeys(store).find((e) => e.label === 'alice')!.revoked;
    assert.equal(typeof revokedAt, 'number');
    assert.equal(revokeApiKey(store, k1), true, 'revoking twice still reports a known key');
    assert.equal(
      listApiKeys(store).find((e) => e.label === 'alice')!.revoked,
      revokedAt,
      'the first revocation time is kept',
    );
    assert.equal(listApiKeys(store).length, 2);
  } finally {
    await closeStore(store);
  }
  try {
    // Nothing on disk holds a raw key, neither as text nor as its bytes.
    const files = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)));
    for (const k of keys) {
      for (const file of files) {
        assert.equal(file.includes(Buffer.from(k, 'utf8')), false, 'raw key text found on disk');
        assert.equal(file.includes(Buffer.from(k, 'hex')), false, 'raw key bytes found on disk');
      }
    }
    assert.equal(
      files.some((file) => file.includes(hashApiKey(keys[0]!))),
      true,
      'the key hash is stored',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a store path whose name has a dot is a directory too (lmdb would take it for a file name)', async () => {
  const parent = tempDir();
  try {
    const dir = path.join(parent, 'chain.v1');
    const store = openStore(dir);
    store.meta.putSync('probe', 1);
    await closeStore(store);
    assert.ok(fs.statSync(dir).isDirectory());
    assert.ok(fs.existsSync(path.join(dir, 'data.mdb')));
    const again = openStore(dir, { readOnly: true });
    assert.equal(again.meta.get('probe'), 1);
    await closeStore(again);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

/** The VmFlags of this process's mapping of the store file in `dir` (/proc/self/smaps), undefined when not mapped. */
function mapFlags(dir: string): string[] | undefined {
  const file = path.join(fs.realpathSync(dir), 'data.mdb');
  const smaps = fs.readFileSync('/proc/self/smaps', 'utf8').split('\n');
  const at = smaps.findIndex((line) => line.endsWith(` ${file}`));
  if (at < 0) return undefined;
  const flags = smaps.slice(at + 1).find((line) => line.startsWith('VmFlags:'));
  return flags?.slice('VmFlags:'.length).trim().split(/\s+/);
}

test('a writable store maps its file advised random (no read-ahead); a read-only one keeps read-ahead', async () => {
  const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-store-map-')));
  try {
    const writable = openStore(dirs[0]!);
    const seeded = openStore(dirs[1]!);
    await closeStore(seeded);
    const readOnly = openStore(dirs[1]!, { readOnly: true });
    // 'rr' is the kernel's mark of a mapping advised MADV_RANDOM (LMDB's MDB_NORDAHEAD).
    assert.ok(mapFlags(dirs[0]!)?.includes('rr'), `writable: ${mapFlags(dirs[0]!)?.join(' ')}`);
    const readFlags = mapFlags(dirs[1]!);
    assert.ok(readFlags !== undefined && !readFlags.includes('rr'), `read-only: ${readFlags?.join(' ')}`);
    await closeStore(writable);
    await closeStore(readOnly);
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
