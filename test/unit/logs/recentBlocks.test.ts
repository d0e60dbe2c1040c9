/**
 * What a thread remembers of read blocks (logs/recentBlocks.ts), over a real store: the header
 * fields equal the stored ones, read again they come from memory, and after
 * a reorganisation replaces a block the next query's memory gives the new block's, not the
 * remembered ones.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BlockBundle } from '#src/chain/types.js';
import { recentBlocks } from '#src/logs/recentBlocks.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { makeBundle, Rng } from '../store/fixtures.js';

const BLOCKS = 6;
const rng = new Rng(61);
let dir: string;
let store: Store;
const chain: BlockBundle[] = [];

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-recent-'));
  store = openStore(dir);
  let parent = rng.bytes(32);
  for (let n = 0; n < BLOCKS; n++) {
    const block = makeBundle(rng, n, parent, 3);
    chain.push(block);
    parent = block.header.hash;
  }
  new StoreWriter(store).append({ blocks: chain, chainId: 1n });
});

after(async () => {
  await closeStore(store);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('header fields equal the stored ones, and are remembered', () => {
  const recent = recentBlocks(store);
  for (const { header } of chain) {
    const facts = recent.header(header.number)!;
    assert.deepEqual(facts.hash, header.hash);
    assert.deepEqual(facts.bloom, header.logsBloom);
    assert.equal(facts.timestamp, Number(header.timestamp));
    assert.equal(recent.header(header.number), facts, 'the second read is the remembered object');
  }
  assert.equal(recent.header(BLOCKS), undefined, 'a block not stored');
});

test('after a reorganisation the next query reads the new blocks', () => {
  const before = recentBlocks(store);
  const last = chain[BLOCKS - 1]!;
  const oldHash = before.header(last.header.number)!.hash;
  const replacement = makeBundle(rng, last.header.number, last.header.parentHash, 2);
  new StoreWriter(store).append({ rollbackTo: last.header.number - 1, blocks: [replacement] });

  const after = recentBlocks(store);
  assert.notDeepEqual(after.header(last.header.number)!.hash, oldHash);
  assert.deepEqual(after.header(last.header.number)!.hash, replacement.header.hash);
  assert.deepEqual(after.header(0)!.hash, chain[0]!.header.hash);
});
