/**
 * The upstream circuit breaker on an injected clock: it opens after the failures in a row, refuses
 * until its backoff has passed, lets one probe through, and doubles its backoff up to the bound.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitBreaker } from '#src/upstream/breaker.js';

test('opens after the failures in a row, probes once after the backoff, doubles it while probes fail', () => {
  let now = 0;
  const breaker = new CircuitBreaker({ failures: 3, baseMs: 100, maxMs: 300, now: () => now });
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(breaker.admit(), { admitted: true, probe: false });
    breaker.failed(false);
  }
  breaker.succeeded(false);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(breaker.admit(), { admitted: true, probe: false });
    breaker.failed(false);
  }
  assert.ok(breaker.open);
  assert.deepEqual(breaker.admit(), { admitted: false, retryInMs: 100 });
  now = 60;
  assert.deepEqual(breaker.admit(), { admitted: false, retryInMs: 40 });
  now = 100;
  assert.deepEqual(breaker.admit(), { admitted: true, probe: true });
  assert.deepEqual(breaker.admit(), { admitted: false, retryInMs: 0 }, 'one probe at a time');
  breaker.failed(true);
  assert.deepEqual(breaker.admit(), { admitted: false, retryInMs: 200 });
  now = 300;
  assert.deepEqual(breaker.admit(), { admitted: true, probe: true });
  breaker.failed(true);
  assert.deepEqual(breaker.admit(), { admitted: false, retryInMs: 300 }, 'bounded by maxMs');
  now = 600;
  assert.deepEqual(breaker.admit(), { admitted: true, probe: true });
  breaker.succeeded(true);
  assert.ok(!breaker.open);
  assert.deepEqual(breaker.admit(), { admitted: true, probe: false });
  breaker.failed(false);
  assert.deepEqual(breaker.admit(), { admitted: true, probe: false }, 'the count starts again');
});

test('a request admitted before it opened does not reopen it longer', () => {
  const now = 0;
  const breaker = new CircuitBreaker({ failures: 1, baseMs: 100, maxMs: 1000, now: () => now });
  breaker.admit();
  breaker.admit();
  breaker.failed(false);
  breaker.failed(false);
  assert.deepEqual(breaker.admit(), { admitted: false, retryInMs: 100 });
});
