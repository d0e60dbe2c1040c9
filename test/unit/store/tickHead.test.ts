/**
 * TickHead reads the store's head once per event-loop timer tick (the lifetime of lmdb-js's read
 * snapshot), however many requests ask for it, and reads it again in the next tick.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreReader } from '../../../src/store/reader.js';
import { TickHead } from '../../../src/store/tickHead.js';

/** A reader whose head is `heads[i]` on its i-th read, counting the reads. */
function countingReader(heads: (number | undefined)[]): { reader: StoreReader; reads: () => number } {
  let reads = 0;
  const reader = { head: () => heads[reads++] } as unknown as StoreReader;
  return { reader, reads: () => reads };
}

const nextTick = () => new Promise((resolve) => setTimeout(resolve, 0));

test('one read per tick, a fresh one in the next tick', async () => {
  const { reader, reads } = countingReader([7, 9, undefined]);
  const head = new TickHead(reader);
  for (let i = 0; i < 100; i++) assert.equal(head.get(), 7);
  assert.equal(reads(), 1);
  await nextTick();
  assert.equal(head.get(), 9);
  assert.equal(head.get(), 9);
  assert.equal(reads(), 2);
  await nextTick();
  assert.equal(head.get(), undefined, 'a store without blocks has no head');
  assert.equal(head.get(), undefined);
  assert.equal(reads(), 3);
});
