/**
 * `ethlogd migrate` (store/migrate.ts, run as the CLI): a layout-3 store (the transaction-hash index and the storage
 * history wholly in their B-trees, no runs, transaction records with their hashes and inputs as bytes) and a layout-5
 * store (records with their hashes) are converted in place into exactly the store this layout's writer makes of the
 * same chain, database by database; a second run changes nothing; a store of another older version is refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { decodeTx, encodeTx, TxForm } from '#src/store/codec.js';
import { decodeTxKey, encodeBlockKey, STORAGE_PREFIX_BYTES } from '#src/store/keys.js';
import { RUNS_KEY, RUNS_MARK_KEY, readManifest, storageKeyNumber, storageRunEntries } from '#src/store/runs.js';
import { closeStore, openStore, SCHEMA_VERSION, type Store } from '#src/store/schema.js';
import { verifyStore } from '#src/store/verify.js';
import { StoreWriter } from '#src/store/writer.js';
import { generateChain } from '#src/synth/generator.js';
import { runCli } from '../support/child.js';
import { diffStores } from '../support/storeDiff.js';

/** Every transaction record of a store of this layout, with its key and hash. */
function txRecords(store: Store): { key: Buffer; value: Buffer; hash: Buffer }[] {
  return Array.from(store.txs.getRange(), ({ key, value }) => {
    const { number, index } = decodeTxKey(key);
    const hash = store.txHashes.getBinary(encodeBlockKey(number))!.subarray(index * 32, index * 32 + 32);
    return { key: Buffer.from(key), value: Buffer.from(value), hash: Buffer.from(hash) };
  });
}

/** Rewrites a store of this layout as layout 5 wrote it: each transaction record starts with its hash. */
function toLayout5(store: Store): void {
  store.env.transactionSync(() => {
    for (const { key, value, hash } of txRecords(store))
      store.txs.put(key, encodeTx(decodeTx(value, hash), TxForm.Hashed));
    store.meta.put('schemaVersion', 5);
  });
}

/**
 * Rewrites a store of this layout as layout 3 wrote it: every transaction hash and storage write back in the B-trees,
 * no runs, transaction records starting with their hashes, inputs as their bytes.
 */
function toLayout3(store: Store): void {
  store.env.transactionSync(() => {
    const manifest = readManifest(store);
    for (const { key, value, hash } of txRecords(store)) {
      if (!store.txByHash.doesExist(hash)) store.txByHash.put(hash, key);
      // Layout 3 kept transaction inputs as their bytes.
      store.txs.put(key, encodeTx(decodeTx(value, hash), TxForm.Bytes));
    }
    // Layout 3 kept every block's storage-write list; this layout drops a frozen block's.
    const writes = new Map<number, Buffer[]>();
    for (const run of manifest?.runs ?? [])
      for (const entry of storageRunEntries(store, run)) {
        store.storage.put(Buffer.from(entry.key), Buffer.from(entry.value));
        const number = storageKeyNumber(entry.key);
        writes.set(number, [...(writes.get(number) ?? []), Buffer.from(entry.key.subarray(0, STORAGE_PREFIX_BYTES))]);
      }
    for (const [number, prefixes] of writes) store.storageWrites.put(encodeBlockKey(number), Buffer.concat(prefixes));
    for (const db of [store.txRuns, store.storageRuns, store.runFilters])
      for (const key of Array.from(db.getKeys(), (k) => Buffer.from(k))) db.remove(key);
    store.meta.remove(RUNS_KEY);
    store.meta.remove(RUNS_MARK_KEY);
    store.meta.put('schemaVersion', 3);
  });
}

test('migrate converts a layout-3 store into the store this layout writes', async () => {
  const dirs = [0, 1, 2, 3].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-migrate-test-')));
  try {
    const blocks = [...generateChain({ blocks: 2_700, seed: 'migrate', density: 0.004 })];
    // Each store is opened for writing once in this process: lmdb-js hangs closing a reopened environment after a write
    // transaction.
    for (const dir of [dirs[0]!, dirs[1]!, dirs[3]!]) {
      const store = openStore(dir);
      const writer = new StoreWriter(store);
      for (let at = 0; at < blocks.length; at += 500)
        writer.append({ blocks: blocks.slice(at, at + 500), chainId: 1n });
      if (dir === dirs[1]) toLayout3(store);
      if (dir === dirs[3]) toLayout5(store);
      await closeStore(store);
    }
    const refused = await runCli(['verify', '--data', dirs[1]!]);
    assert.match(
      refused.stderr,
      new RegExp(
        'layout version 3, this build reads version 6 \\(it lacks the frozen runs and ' +
          "other chains' transactions and fields \\(OP stack, Arbitrum\\), compact " +
          'transaction inputs and transaction records without their hash\\): convert it with `ethlogd migrate --data ',
      ),
    );

    const first = await runCli(['migrate', '--data', dirs[1]!]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /layout version 3 → 6: frozen to block (\d+)/);
    assert.ok(
      first.stderr.split('\n').filter((line) => line.startsWith('frozen to block')).length > 1,
      'several transactions',
    );
    const fresh = openStore(dirs[0]!, { readOnly: true });
    let migrated = openStore(dirs[1]!, { readOnly: true });
    assert.equal(migrated.meta.get('schemaVersion'), SCHEMA_VERSION);
    assert.match(first.stdout, new RegExp(`frozen to block ${readManifest(fresh)!.frozenTo} `));
    assert.deepEqual(diffStores(migrated, fresh), []);
    assert.deepEqual(verifyStore(migrated).problems, []);
    await closeStore(migrated);

    const again = await runCli(['migrate', '--data', dirs[1]!]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /layout version 6 → 6/);
    migrated = openStore(dirs[1]!, { readOnly: true });
    assert.deepEqual(diffStores(migrated, fresh), []);
    await closeStore(migrated);

    const fromFive = await runCli(['migrate', '--data', dirs[3]!]);
    assert.equal(fromFive.code, 0, fromFive.stderr);
    assert.match(fromFive.stdout, /layout version 5 → 6/);
    migrated = openStore(dirs[3]!, { readOnly: true });
    assert.deepEqual(diffStores(migrated, fresh), []);
    assert.deepEqual(verifyStore(migrated).problems, []);
    await closeStore(migrated);
    await closeStore(fresh);

    const older = openStore(dirs[2]!);
    older.meta.putSync('schemaVersion', 2);
    await closeStore(older);
    const tooOld = await runCli(['migrate', '--data', dirs[2]!]);
    assert.notEqual(tooOld.code, 0);
    assert.match(tooOld.stderr, /layout version 2/);
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
