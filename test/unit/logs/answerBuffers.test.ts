/**
 * A thread's spare answer buffers (logs/answerBuffers.ts): what is lent comes back once, the spares
 * are handed out largest first, and their number and size are bounded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { giveBack, keepSpare, lend, MAX_SPARE_BYTES, SPARE_BUFFERS, takeSpare } from '#src/logs/answerBuffers.js';

/** Empties this thread's spares (the module's state is the thread's). */
function drain(): void {
  while (takeSpare() !== undefined);
}

test('lent memory comes back as a spare once, through any chunk that views it; other chunks are left alone', () => {
  drain();
  const buffer = new ArrayBuffer(1024);
  lend(buffer);
  const chunk = new Uint8Array(buffer, 0, 100);
  giveBack(['text', new Uint8Array(8), chunk]);
  giveBack([chunk]);
  assert.equal(takeSpare(), buffer);
  assert.equal(takeSpare(), undefined, 'given back twice, kept once; the chunk not lent is not kept');
});

test('spares go out largest first', () => {
  drain();
  const sizes = [4096, 1024, 65536, 2048];
  for (const size of sizes) keepSpare(new ArrayBuffer(size));
  const out: number[] = [];
  for (let spare = takeSpare(); spare !== undefined; spare = takeSpare()) out.push(spare.byteLength);
  assert.deepEqual(
    out,
    [...sizes].sort((a, b) => b - a),
  );
});

test('at most SPARE_BUFFERS are kept, none over MAX_SPARE_BYTES', () => {
  drain();
  keepSpare(new ArrayBuffer(MAX_SPARE_BYTES + 1));
  assert.equal(takeSpare(), undefined);
  for (let i = 0; i < SPARE_BUFFERS + 3; i++) keepSpare(new ArrayBuffer(16));
  let kept = 0;
  while (takeSpare() !== undefined) kept++;
  assert.equal(kept, SPARE_BUFFERS);
});
