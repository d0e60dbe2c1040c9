import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bytesToHex } from '../../../src/chain/hex.js';
import { mappingSlot } from '../../../src/chain/storageSlot.js';
import type { BlockBundle } from '../../../src/chain/types.js';
import { TRANSFER_TOPIC } from '../../../src/synth/events.js';
import { generateStore } from '../../../src/synth/generateStore.js';
import { generateChain, generatePending, markers } from '../../../src/synth/generator.js';
import { StoreReader } from '../../../src/store/reader.js';
import { closeStore, openStore } from '../../../src/store/schema.js';
import { StoreWriter } from '../../../src/store/writer.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-generate-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const OPTS = { blocks: 150, seed: 'store', density: 0.05 };
const chain: BlockBundle[] = [...generateChain(OPTS)];
const hex = bytesToHex;

test('generateStore writes the chain, markers and pending block, read back through StoreReader', async () => {
  const dir = tempDir();
  const result = await generateStore(dir, { ...OPTS, batchBlocks: 16, progress: false });
  assert.equal(result.blocks, 150);
  assert.equal(result.txs, chain.reduce((n, b) => n + b.transactions.length, 0));
  assert.equal(result.logs, chain.reduce((n, b) => n + b.logs.length, 0));
  assert.ok(result.seconds >= 0);

  const store = openStore(dir, { readOnly: true });
  try {
    const reader = new StoreReader(store);
    assert.deepEqual(reader.meta(), { chainId: 1n, earliest: 0, head: 149, ...markers(149, 0) });
    const block = chain[77]!;
    const header = reader.header(77)!;
    assert.equal(hex(header.hash), hex(block.header.hash));
    assert.deepEqual(header.logsBloom, block.header.logsBloom);
    assert.equal(reader.numberByHash(block.header.hash), 77);

    const tx = block.transactions[3]!;
    assert.deepEqual(reader.txLocation(tx.hash), { number: 77, index: 3 });
    assert.equal(hex(reader.transaction(77, 3)!.hash), hex(tx.hash));
    assert.equal(reader.transaction(77, 3)!.nonce, tx.nonce);

    const logs = reader.logs(77);
    assert.equal(logs.length, block.logs.length);
    logs.forEach((log, i) => {
      assert.equal(hex(log.address), hex(block.logs[i]!.address));
      assert.deepEqual(log.topics.map(hex), block.logs[i]!.topics.map(hex));
      assert.equal(log.txIndex, block.logs[i]!.txIndex);
    });

    let checked = 0;
    for (const b of chain.slice(100)) {
      for (const log of b.logs) {
        if (log.topics.length !== 3 || hex(log.topics[0]!) !== hex(TRANSFER_TOPIC)) continue;
        const slot = mappingSlot(log.topics[2]!, 0n);
        const write = [...b.storage].reverse().find((w) => hex(w.address) === hex(log.address) && hex(w.slot) === hex(slot));
        if (!write) continue;
        assert.equal(hex(reader.storageAt(log.address, slot, b.header.number)), hex(write.value));
        checked++;
      }
    }
    assert.ok(checked > 0, 'a balance slot written by a Transfer reads back');

    const pending = reader.pending()!;
    assert.equal(pending.header.number, 150);
    assert.equal(hex(pending.header.hash), hex(generatePending(OPTS, chain[149]!.header).header.hash));
  } finally {
    await closeStore(store);
  }
});

test('generateStore continues a store holding the start of the same chain, and refuses another chain', async () => {
  const dir = tempDir();
  const store = openStore(dir);
  new StoreWriter(store).append({ blocks: chain.slice(0, 40), chainId: 1n });
  await closeStore(store);

  const result = await generateStore(dir, { ...OPTS, progress: false });
  assert.equal(result.blocks, 110);
  const again = await generateStore(dir, { ...OPTS, progress: false });
  assert.equal(again.blocks, 0);

  const check = openStore(dir, { readOnly: true });
  try {
    const reader = new StoreReader(check);
    assert.equal(reader.meta()!.head, 149);
    for (const n of [40, 41, 149]) assert.equal(hex(reader.header(n)!.hash), hex(chain[n]!.header.hash));
    assert.equal(reader.pending()!.header.number, 150);
  } finally {
    await closeStore(check);
  }
  await assert.rejects(generateStore(dir, { ...OPTS, seed: 'another', progress: false }), /another chain/);
});

test('without a pending block the stored one is cleared', async () => {
  const dir = tempDir();
  await generateStore(dir, { blocks: 10, seed: 'nopending', density: 0.05, pending: false });
  const store = openStore(dir, { readOnly: true });
  try {
    assert.equal(new StoreReader(store).pending(), undefined);
  } finally {
    await closeStore(store);
  }
});
