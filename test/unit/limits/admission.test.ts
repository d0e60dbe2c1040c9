/**
 * Admission of log queries and streams: slots per key and per process, the fair queue (round-robin
 * by key), the queue bounds and their refusals, a waiting query whose caller goes away, the rate
 * cost of a range, and the refusal counters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Admission, admitFor, type Release, rateCost } from '#src/limits/admission.js';
import { RateLimiter } from '#src/limits/rateLimiter.js';
import { LimitRefusals } from '#src/limits/refusals.js';
import { QueryCancelledError } from '#src/logs/errors.js';
import { RateLimitedError, TooManyConcurrentError } from '#src/rpc/errors.js';

/** A slot taken at once (not queued). */
function now(slot: Release | Promise<Release>): Release {
  assert.equal(typeof slot, 'function', 'admitted at once');
  return slot as Release;
}

test('per key and per process: within both at once, past either queued, past the queue refused with -32005', () => {
  const refusals = new LimitRefusals();
  const admission = new Admission({ queriesPerKey: 2, queries: 3, queuePerKey: 1, queue: 2 }, refusals);
  now(admission.query('a'));
  now(admission.query('a'));
  assert.ok(admission.query('a') instanceof Promise, "past the key's two: queued");
  const refused = (() => {
    try {
      admission.query('a');
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  assert.ok(refused instanceof TooManyConcurrentError);
  assert.deepEqual(refused.toJSON(), {
    code: -32005,
    message: 'too many concurrent requests',
    data: { limit: 'log queries per key', max: 2, backoff_seconds: 1 },
  });
  now(admission.query('b'));
  assert.ok(admission.query('c') instanceof Promise, "past the process's three: queued");
  assert.throws(() => admission.query('d'), TooManyConcurrentError, 'the process queue of two is full');
  assert.equal(refusals.get('log_queries'), 2);
  assert.deepEqual([admission.queries, admission.queued], [3, 2]);
});

test('the queue is served round-robin by key: a key with many waiting does not go ahead of one with one', async () => {
  const admission = new Admission({ queriesPerKey: 1, queries: 1, queuePerKey: 10, queue: 100 });
  const order: string[] = [];
  const first = now(admission.query('heavy'));
  const keys = ['heavy', 'heavy', 'heavy', 'light', 'other'];
  // Each query, once admitted, notes its key and frees its slot for the next.
  const done = keys.map((key) =>
    (admission.query(key) as Promise<Release>).then((release) => (order.push(key), release())),
  );
  first();
  await Promise.all(done);
  assert.deepEqual(order, ['light', 'other', 'heavy', 'heavy', 'heavy'], 'the key served last waits behind the others');
});

test('a waiting query whose caller goes away leaves the queue and is rejected with QueryCancelledError', async () => {
  const admission = new Admission({ queriesPerKey: 1, queries: 1 });
  const release = now(admission.query('a'));
  const abort = new AbortController();
  const waiting = admission.query('a', abort.signal);
  assert.equal(admission.queued, 1);
  abort.abort();
  await assert.rejects(waiting as Promise<Release>, QueryCancelledError);
  assert.equal(admission.queued, 0);
  release();
  assert.equal(admission.queries, 0, 'the slot freed goes to nobody');
  assert.throws(() => admission.query('a', abort.signal), QueryCancelledError, 'already gone: not even queued');
});

test('streams: per key and per process, refused at once, a release gives the slot back once', () => {
  const refusals = new LimitRefusals();
  const admission = new Admission({ streamsPerKey: 1, streams: 2 }, refusals);
  const a = admission.stream('a');
  assert.throws(() => admission.stream('a'), TooManyConcurrentError);
  const b = admission.stream('b');
  assert.throws(() => admission.stream('c'), TooManyConcurrentError);
  a();
  a();
  assert.equal(admission.openStreams, 1);
  admission.stream('c');
  b();
  assert.equal(refusals.get('streams'), 2);
});

test('limits must be whole numbers, at least one (queues: at least zero)', () => {
  assert.throws(() => new Admission({ queries: 0 }), RangeError);
  assert.throws(() => new Admission({ queriesPerKey: 1.5 }), RangeError);
  new Admission({ queue: 0, queuePerKey: 0 });
});

test('rate cost: whole calls per blocksPerCall of the range, at most the burst, none when off', () => {
  const table: [number, number, number, number][] = [
    [0, 10_000, 100, 0],
    [9_999, 10_000, 100, 0],
    [10_000, 10_000, 100, 1],
    [21_000_000, 10_000, 100, 100],
    [21_000_000, 10_000, 5_000, 2_100],
    [21_000_000, 0, 100, 0],
  ];
  for (const [blocks, per, burst, cost] of table) assert.equal(rateCost(blocks, per, burst), cost, `${blocks} blocks`);
});

test(
  "admitFor charges the key's rate limit by the range before " +
    'its turn, and refuses when the tokens do not cover it',
  async () => {
    const limiter = new RateLimiter({ perSecond: 0.001, burst: 10 });
    const gate = { admission: new Admission(), rateLimit: limiter, rateCostBlocks: 100 };
    const admit = admitFor(gate, 'k');
    (admit(800) as Release)();
    assert.ok(limiter.check('k', 3) instanceof RateLimitedError, '8 of 10 tokens spent');
    assert.throws(() => admit(300), RateLimitedError);
    assert.equal(gate.admission.queries, 0);
  },
);
