import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  collectSegmentAddresses,
  decodeSegmentBlocks,
  encodeSegmentBlocks,
  orSegmentBlocks,
} from '#src/store/addressIndex.js';
import { decodeAddressSegmentKey, encodeAddressSegmentKey } from '#src/store/keys.js';
import { encodeLogs, logAddressTable } from '#src/store/logsRecord.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ROW_BYTES, SEGMENT_BLOCKS } from '#src/store/segments.js';
import { StoreWriter } from '#src/store/writer.js';
import { generateChain } from '#src/synth/generator.js';

test('segment block lists round-trip as lists (≤ 255 offsets) and bitmaps (more)', () => {
  for (const n of [0, 1, 2, 254, 255, 256, 1000, SEGMENT_BLOCKS]) {
    const offsets = Array.from({ length: n }, (_, i) => Math.floor((i * SEGMENT_BLOCKS) / Math.max(n, 1)));
    const encoded = encodeSegmentBlocks(offsets);
    if (n <= 255) assert.equal(encoded.length, 2 * n, `${n} offsets are a list`);
    else assert.equal(encoded.length, ROW_BYTES, `${n} offsets are a bitmap`);
    assert.deepEqual(decodeSegmentBlocks(encoded), offsets);
  }
});

test('orSegmentBlocks unions lists and bitmaps in the bloom-row layout', () => {
  const bitmap = new Uint8Array(ROW_BYTES);
  orSegmentBlocks(encodeSegmentBlocks([0, 9]), bitmap);
  orSegmentBlocks(encodeSegmentBlocks(Array.from({ length: 300 }, (_, i) => i * 10)), bitmap);
  assert.equal(bitmap[0], 0x80);
  assert.equal(bitmap[1], 0x40 | 0x20);
  assert.deepEqual(decodeSegmentBlocks(bitmap).slice(0, 4), [0, 9, 10, 20]);
});

test('address-segment keys round-trip and sort by address, then segment', () => {
  const a = new Uint8Array(20).fill(0x11);
  const b = new Uint8Array(20).fill(0x12);
  assert.deepEqual(decodeAddressSegmentKey(encodeAddressSegmentKey(a, 7)), { address: a, segment: 7 });
  const keys = [encodeAddressSegmentKey(b, 0), encodeAddressSegmentKey(a, 2 ** 32 - 1), encodeAddressSegmentKey(a, 1)];
  assert.deepEqual(
    keys.sort(Buffer.compare).map((k) => decodeAddressSegmentKey(k).segment),
    [1, 2 ** 32 - 1, 0],
  );
});

test('the writer indexes each complete segment by address and drops it on a rollback below', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-addr-'));
  const store = openStore(dir);
  try {
    const writer = new StoreWriter(store);
    const blocks = [...generateChain({ blocks: SEGMENT_BLOCKS + 8, seed: 'addr', density: 0.002, pending: false })];
    for (let i = 0; i < blocks.length; i += 512) writer.append({ blocks: blocks.slice(i, i + 512), chainId: 1n });
    const expected = collectSegmentAddresses((i) =>
      blocks[i]!.logs.length ? logAddressTable(encodeLogs(blocks[i]!.logs)) : undefined,
    );
    assert.ok(expected.size > 0);
    for (const [address, offsets] of expected) {
      const value = store.addressSegments.getBinary(encodeAddressSegmentKey(Buffer.from(address, 'latin1'), 0));
      assert.ok(value, 'every address of the segment is indexed');
      assert.deepEqual(decodeSegmentBlocks(value), offsets);
    }
    let count = 0;
    for (const _ of store.addressSegments.getKeys()) count++;
    assert.equal(count, expected.size, 'nothing else is indexed (the open segment is not)');
    writer.append({ rollbackTo: SEGMENT_BLOCKS - 10, blocks: [] });
    count = 0;
    for (const _ of store.addressSegments.getKeys()) count++;
    assert.equal(count, 0, 'the segment is no longer complete');
    assert.equal(writer.rebuildIndexes(), 1);
  } finally {
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
});
