/**
 * The default number of HTTP threads: one per core but the spare one, never none, and what
 * httpThreadCount runs when nothing is asked for and when a count is.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { defaultHttpThreads, httpThreadCount } from '#src/http/threads.js';
import { uwsNative } from '#src/http/uws.js';
import { createLogger } from '#src/logger.js';

test('defaultHttpThreads: the cores but one, at least one', () => {
  const cases: [number, number][] = [
    [1, 1],
    [2, 1],
    [3, 2],
    [4, 3],
    [16, 15],
    [64, 63],
  ];
  for (const [cores, threads] of cases) assert.equal(defaultHttpThreads(cores), threads, `${cores} cores`);
  assert.equal(defaultHttpThreads(), defaultHttpThreads(availableParallelism()));
});

test('httpThreadCount: the default when none are asked for, the count asked for otherwise', () => {
  const logger = createLogger('error');
  assert.equal(httpThreadCount(undefined, logger), uwsNative ? defaultHttpThreads() : 1);
  assert.equal(httpThreadCount(1, logger), 1);
  assert.equal(httpThreadCount(3, logger), uwsNative ? 3 : 1);
});
