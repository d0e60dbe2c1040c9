/**
 * StoreReader's markers: a default reader reads the head, the earliest block and the rollback count
 * on every call, so an in-process write is seen at once; a perTick reader reads them once per
 * event-loop timer tick (lmdb-js's read snapshot lives as long) and sees the write from the next tick.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { makeBundle, Rng } from './fixtures.js';

const nextTick = () => new Promise((resolve) => setTimeout(resolve, 0));

test('markers: read on every call by default, once per tick with perTick', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-reader-test-'));
  const store = openStore(dir);
  try {
    const rng = new Rng(5);
    const writer = new StoreWriter(store);
    const first = makeBundle(rng, 0, new Uint8Array(32), 1);
    writer.append({ blocks: [first], chainId: 1n });
    const always = new StoreReader(store);
    const perTick = new StoreReader(store, { perTick: true });
    await nextTick();
    assert.deepEqual([perTick.head(), perTick.earliest(), perTick.rollbacks()], [0, 0, 0]);
    const second = makeBundle(rng, 1, first.header.hash, 1);
    writer.append({ blocks: [second] });
    assert.equal(always.head(), 1, 'a default reader sees the write at once');
    assert.equal(perTick.head(), 0, 'a perTick reader keeps the tick’s head');
    await nextTick();
    assert.equal(perTick.head(), 1, 'and reads it again in the next tick');

    writer.append({ rollbackTo: 0, blocks: [makeBundle(rng, 1, first.header.hash, 2)] });
    assert.equal(always.rollbacks(), 1);
    assert.equal(perTick.rollbacks(), 0);
    await nextTick();
    assert.deepEqual([perTick.head(), perTick.earliest(), perTick.rollbacks()], [1, 0, 1]);
  } finally {
    await closeStore(store);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
