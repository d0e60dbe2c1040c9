/**
 * `ethlogd migrate` (store/migrate.ts, run as the CLI): a layout-3 store (the transaction-hash index and the storage
 * history wholly in their B-trees, no runs, transaction records with their hashes and inputs as bytes), a layout-5
 * store (records with their hashes) and a layout-6 store (one record a transaction, a log-address database) are
 * converted in place into exactly the store this layout's writer makes of the same chain, database by database; a
 * second run changes nothing; a store of another older version is refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { decodeBlockTxs } from '#src/store/blockTxsRecord.js';
import { decodeTx, encodeTx, TxForm } from '#src/store/codec.js';
import { decodeBlockKey, encodeBlockKey, encodeTxKey, STORAGE_PREFIX_BYTES } from '#src/store/keys.js';
import { logAddressTable } from '#src/store/logsRecord.js';
import { RUNS_KEY, RUNS_MARK_KEY, readManifest, StorageRunCursor, storageKeyNumber } from '#src/store/runs.js';
import { closeStore, openStore, SCHEMA_VERSION, type Store } from '#src/store/schema.js';
import { verifyStore } from '#src/store/verify.js';
import { StoreWriter } from '#src/store/writer.js';
import { generateChain } from '#src/synth/generator.js';
import { runCli } from '../support/child.js';
import { diffStores } from '../support/storeDiff.js';

/** How many named databases the store's environment holds. */
function databases(store: Store): number {
  return (store.env.getStats() as { entryCount: number }).entryCount;
}

/** Every transaction of a store of this layout: its key in the older layouts (number ‖ index), record and hash. */
function txRecords(store: Store): { key: Buffer; value: Buffer; hash: Buffer }[] {
  const out: { key: Buffer; value: Buffer; hash: Buffer }[] = [];
  for (const { key, value } of store.txs.getRange()) {
    const number = decodeBlockKey(key);
    const hashes = store.txHashes.getBinary(key)!;
    decodeBlockTxs(value).forEach((record, index) => {
      const hash = Buffer.from(hashes.subarray(index * 32, index * 32 + 32));
      out.push({ key: encodeTxKey(number, index), value: Buffer.from(record), hash });
    });
  }
  return out;
}

/**
 * Rewrites a store of this layout as layout 6 wrote it: one record a transaction (keyed number ‖ index, of `form`:
 * layouts 3 and 5 kept other forms), and each block's log addresses in the log-address database too.
 */
function toLayout6(store: Store, form = TxForm.Stored): void {
  const logAddresses = store.env.openDB<Buffer, Buffer>({ name: 'logAddresses', keyEncoding: 'binary' });
  store.env.transactionSync(() => {
    const txs = txRecords(store);
    for (const key of Array.from(store.txs.getKeys(), (k) => Buffer.from(k))) store.txs.remove(key);
    for (const { key, value, hash } of txs)
      store.txs.put(key, form === TxForm.Stored ? value : encodeTx(decodeTx(value, hash), form));
    for (const { key, value } of store.logs.getRange())
      logAddresses.put(Buffer.from(key), Buffer.from(logAddressTable(value)));
    store.meta.put('schemaVersion', 6);
  });
}

/** Rewrites a store of this layout as layout 5 wrote it: layout 6 with each transaction record led by its hash. */
function toLayout5(store: Store): void {
  toLayout6(store, TxForm.Hashed);
  store.meta.putSync('schemaVersion', 5);
}

/**
 * Rewrites a store of this layout as layout 3 wrote it: every transaction hash and storage write back in the B-trees,
 * no runs, transaction records starting with their hashes, inputs as their bytes.
 */
function toLayout3(store: Store): void {
  for (const { key, hash } of txRecords(store)) if (!store.txByHash.doesExist(hash)) store.txByHash.putSync(hash, key);
  // Layout 3 kept transaction inputs as their bytes.
  toLayout6(store, TxForm.Bytes);
  store.env.transactionSync(() => {
    const manifest = readManifest(store);
    // Layout 3 kept every block's storage-write list; this layout drops a frozen block's.
    const writes = new Map<number, Buffer[]>();
    for (const run of manifest?.runs ?? [])
      for (let cursor = new StorageRunCursor(store, run); !cursor.done; cursor.next()) {
        const entry = cursor.reader!;
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
  const dirs = [0, 1, 2, 3, 4].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-migrate-test-')));
  try {
    const blocks = [...generateChain({ blocks: 2_700, seed: 'migrate', density: 0.004 })];
    // Each store is opened for writing once in this process: lmdb-js hangs closing a reopened environment after a write
    // transaction.
    for (const dir of [dirs[0]!, dirs[1]!, dirs[3]!, dirs[4]!]) {
      const store = openStore(dir);
      const writer = new StoreWriter(store);
      for (let at = 0; at < blocks.length; at += 500)
        writer.append({ blocks: blocks.slice(at, at + 500), chainId: 1n });
      if (dir === dirs[1]) toLayout3(store);
      if (dir === dirs[3]) toLayout5(store);
      if (dir === dirs[4]) toLayout6(store);
      await closeStore(store);
    }
    const refused = await runCli(['verify', '--data', dirs[1]!]);
    assert.match(
      refused.stderr,
      new RegExp(
        'layout version 3, this build reads version 8 \\(it lacks the frozen runs and ' +
          "other chains' transactions and fields \\(OP stack, Arbitrum\\), compact transaction inputs, " +
          'transaction records without their hash and one transactions record a block\\): ' +
          'convert it with `ethlogd migrate --data ',
      ),
    );

    const first = await runCli(['migrate', '--data', dirs[1]!]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`layout version 3 → ${SCHEMA_VERSION}: frozen to block (\\d+)`));
    assert.ok(
      first.stderr.split('\n').filter((line) => line.startsWith('frozen to block')).length > 1,
      'several transactions',
    );
    const fresh = openStore(dirs[0]!, { readOnly: true });
    let migrated = openStore(dirs[1]!, { readOnly: true });
    assert.equal(migrated.meta.get('schemaVersion'), SCHEMA_VERSION);
    assert.match(first.stdout, new RegExp(`frozen to block ${readManifest(fresh)!.frozenTo} `));
    assert.deepEqual(diffStores(migrated, fresh), []);
    assert.equal(databases(migrated), databases(fresh), 'the same databases');
    assert.deepEqual(verifyStore(migrated).problems, []);
    await closeStore(migrated);

    // Run again on the converted store, and once on each of the other layouts' stores.
    for (const [dir, version] of [
      [dirs[1]!, SCHEMA_VERSION],
      [dirs[3]!, 5],
      [dirs[4]!, 6],
    ] as const) {
      const run = await runCli(['migrate', '--data', dir]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`layout version ${version} → ${SCHEMA_VERSION}`));
      migrated = openStore(dir, { readOnly: true });
      assert.deepEqual(diffStores(migrated, fresh), [], `from layout ${version}`);
      assert.equal(databases(migrated), databases(fresh), 'the log-address database went');
      if (version === 6) assert.deepEqual(verifyStore(migrated).problems, []);
      await closeStore(migrated);
    }
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
