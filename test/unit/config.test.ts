/**
 * The limits and defaults of src/config.ts that are computed: the log workers' niceness by cores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_WORKER_NICE, logWorkerNice } from '#src/config.js';

test('the log workers are niced only where another core can run the HTTP thread', () => {
  const cases: [number, number][] = [
    [1, 0],
    [2, LOG_WORKER_NICE],
    [64, LOG_WORKER_NICE],
  ];
  for (const [cores, nice] of cases) assert.equal(logWorkerNice(cores), nice, `${cores} cores`);
});
