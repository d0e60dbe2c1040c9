/**
 * The per-key token buckets on an injected clock: the burst, the refill, all-or-nothing costs, the
 * refusals and their waits, independent keys, and the bound on the number of buckets; limiters on
 * one shared buffer (other threads' included) spending from the same buckets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { RateLimiter } from '#src/limits/rateLimiter.js';
import { BatchOverBurstError, RateLimitedError } from '#src/rpc/errors.js';

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

test('a full bucket admits the burst, then refuses with the wait until one token is back', () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ perSecond: 10, burst: 3 }, { now: clock.now });
  for (let i = 0; i < 3; i++) assert.equal(limiter.take('a', 1), null, `call ${i}`);
  const refused = limiter.take('a', 1);
  assert.ok(refused instanceof RateLimitedError);
  assert.equal(refused.retryAfterMs, 100);
  assert.deepEqual(refused.toJSON(), {
    code: -32005,
    message: 'project ID request rate exceeded',
    data: { allowed_rps: 10, backoff_seconds: 0.1 },
  });
  clock.advance(99);
  assert.ok(limiter.take('a', 1) instanceof RateLimitedError, 'not yet refilled');
  clock.advance(1);
  assert.equal(limiter.take('a', 1), null, 'one token back after 100 ms');
  assert.ok(limiter.take('a', 1) instanceof RateLimitedError);
});

test('the bucket refills at the rate, never past the burst', () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ perSecond: 2, burst: 4 }, { now: clock.now });
  assert.equal(limiter.take('a', 4), null);
  clock.advance(60_000);
  assert.equal(limiter.take('a', 4), null, 'a minute idle refills to the burst');
  assert.ok(limiter.take('a', 1) instanceof RateLimitedError, 'and no further');
  clock.advance(1_000);
  assert.equal(limiter.take('a', 2), null, 'two tokens a second');
});

test('a cost the bucket cannot pay whole is refused whole and spends nothing', () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ perSecond: 1, burst: 5 }, { now: clock.now });
  assert.equal(limiter.take('a', 3), null);
  const refused = limiter.take('a', 3);
  assert.ok(refused instanceof RateLimitedError);
  assert.equal(refused.retryAfterMs, 1_000, 'one more token is missing');
  assert.equal(limiter.take('a', 2), null, 'the refused request spent nothing');
  assert.ok(limiter.take('a', 1) instanceof RateLimitedError);
});

test('a cost above the burst is refused without a wait, since none would admit it', () => {
  const limiter = new RateLimiter({ perSecond: 100, burst: 10 }, { now: manualClock().now });
  const refused = limiter.take('a', 11);
  assert.ok(refused instanceof BatchOverBurstError);
  assert.deepEqual(refused.toJSON(), { code: -32005, message: 'batch of 11 calls exceeds the rate limit burst of 10' });
  assert.equal(limiter.take('a', 10), null, 'the bucket is untouched');
});

test('check says what take would, spending nothing and making no bucket', () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, { now: clock.now });
  assert.equal(limiter.check('a', 2), null);
  assert.equal(limiter.size, 0);
  assert.equal(limiter.take('a', 2), null);
  const refused = limiter.check('a', 1);
  assert.ok(refused instanceof RateLimitedError);
  assert.equal(refused.retryAfterMs, 1_000);
  clock.advance(1_000);
  assert.equal(limiter.check('a', 1), null);
  assert.ok(limiter.check('a', 3) instanceof BatchOverBurstError);
});

test('keys have their own buckets; a budget binds the id computed once', () => {
  const ids: string[] = [];
  const limiter = new RateLimiter(
    { perSecond: 1, burst: 1 },
    { now: manualClock().now, idOf: (key) => (ids.push(key), `id:${key}`) },
  );
  const a = limiter.budget('a');
  assert.equal(a.check(1), null);
  assert.equal(a.take(1), null);
  assert.ok(a.take(1) instanceof RateLimitedError);
  assert.equal(limiter.budget('b').take(1), null, 'another key is unaffected');
  assert.deepEqual(ids, ['a', 'b']);
});

test('the number of buckets is capped: full buckets go first, then the oldest', () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, { now: clock.now, maxBuckets: 10 });
  for (let i = 0; i < 10; i++) limiter.take(`k${i}`, 2);
  assert.equal(limiter.size, 10);
  clock.advance(2_000);
  limiter.take('k9', 2);
  limiter.take('new', 1);
  assert.equal(limiter.size, 2, 'the nine refilled buckets were dropped; k9 (spent) and the new one stay');
  assert.ok(limiter.take('k9', 1) instanceof RateLimitedError, 'k9 kept its state');
  for (let i = 0; i < 8; i++) limiter.take(`m${i}`, 2);
  assert.equal(limiter.size, 10);
  limiter.take('last', 1);
  assert.ok(limiter.size <= 10, `${limiter.size} buckets`);
  assert.equal(limiter.take('k9', 2), null, 'the oldest bucket (k9) was evicted: a fresh burst');
});

test('a limit needs a positive rate and a burst of at least one', () => {
  assert.throws(() => new RateLimiter({ perSecond: 0, burst: 1 }), RangeError);
  assert.throws(() => new RateLimiter({ perSecond: 1, burst: 0.5 }), RangeError);
});

test('limiters attached to one buffer share every bucket and the cap', () => {
  const clock = manualClock();
  const first = new RateLimiter({ perSecond: 1, burst: 2 }, { now: clock.now, maxBuckets: 10 });
  const second = new RateLimiter({ perSecond: 1, burst: 2 }, { now: clock.now, buffer: first.buffer });
  assert.equal(first.take('a', 1), null);
  assert.equal(second.take('a', 1), null);
  assert.ok(first.take('a', 1) instanceof RateLimitedError, 'the second spent from the same bucket');
  assert.equal(second.size, 1);
  for (let i = 0; i < 20; i++) second.take(`k${i}`, 2);
  assert.ok(first.size <= 10, `${first.size} buckets: the cap set by the buffer's creator`);
});

test('threads spending from one buffer at once admit exactly the burst', async () => {
  const BURST = 20_000;
  const THREADS = 3;
  const limiter = new RateLimiter({ perSecond: 1e-9, burst: BURST });
  const module = import.meta.resolve('#src/limits/rateLimiter.js');
  // Each thread takes one token at a time, as fast as it can, until the bucket refuses; the counts must add up to the
  // burst.
  const source = `
    import { parentPort, workerData } from 'node:worker_threads';
    const { RateLimiter } = await import(workerData.module);
    const limiter = new RateLimiter({ perSecond: 1e-9, burst: workerData.burst }, { buffer: workerData.buffer });
    let taken = 0;
    while (limiter.take('shared', 1) === null) taken++;
    parentPort.postMessage(taken);
  `;
  const takes = Array.from({ length: THREADS }, () => {
    const worker = new Worker(source, { eval: true, workerData: { module, burst: BURST, buffer: limiter.buffer } });
    return new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  });
  const taken = await Promise.all(takes);
  assert.equal(
    taken.reduce((a, b) => a + b, 0),
    BURST,
    `per thread: ${taken.join(', ')}`,
  );
  assert.ok(limiter.take('shared', 1) instanceof RateLimitedError);
});
