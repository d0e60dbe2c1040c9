/**
 * blockThreads: generate builds blocks in one worker thread per core by default, and in the
 * writer's thread on a machine of one core.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { defaultGenerateThreads } from '#src/synth/blockThreads.js';

test('the default generating threads: none on one core, one per core from two cores on', () => {
  for (const [cores, threads] of [
    [1, 0],
    [2, 2],
    [3, 3],
    [8, 8],
    [64, 64],
  ] as const) {
    assert.equal(defaultGenerateThreads(cores), threads, `${cores} cores`);
  }
  assert.equal(
    defaultGenerateThreads(),
    defaultGenerateThreads(availableParallelism()),
    "this machine's cores by default",
  );
});
