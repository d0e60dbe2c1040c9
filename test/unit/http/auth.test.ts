import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cachedAuth } from '../../../src/http/auth.js';
import type { AuthStatus } from '../../../src/http/server.js';

/** A key table whose lookups are counted, with a clock the test moves. */
function fixture() {
  const table = new Map<string, AuthStatus>([
    ['good', 'valid'],
    ['old', 'revoked'],
  ]);
  const calls: string[] = [];
  let clock = 0;
  const check = (key: string): AuthStatus => {
    calls.push(key);
    return table.get(key) ?? 'unknown';
  };
  return { table, calls, tick: (ms: number) => (clock += ms), now: () => clock, check };
}

test('valid and revoked answers are reused within the ttl, then checked again', () => {
  const f = fixture();
  const auth = cachedAuth(f.check, { ttlMs: 1000, now: f.now });
  assert.equal(auth('good'), 'valid');
  assert.equal(auth('good'), 'valid');
  assert.equal(auth('old'), 'revoked');
  assert.equal(auth('old'), 'revoked');
  assert.deepEqual(f.calls, ['good', 'old']);
  f.table.set('good', 'revoked');
  f.tick(999);
  assert.equal(auth('good'), 'valid');
  f.tick(1);
  assert.equal(auth('good'), 'revoked');
  assert.deepEqual(f.calls, ['good', 'old', 'good']);
});

test('unknown keys are never remembered, so a new key works at once', () => {
  const f = fixture();
  const auth = cachedAuth(f.check, { ttlMs: 1000, now: f.now });
  assert.equal(auth('new'), 'unknown');
  assert.equal(auth('new'), 'unknown');
  f.table.set('new', 'valid');
  assert.equal(auth('new'), 'valid');
  assert.deepEqual(f.calls, ['new', 'new', 'new']);
});

test('the memo starts over when it holds maxEntries keys', () => {
  const f = fixture();
  for (let i = 0; i < 3; i++) f.table.set(`k${i}`, 'valid');
  const auth = cachedAuth(f.check, { ttlMs: 1000, maxEntries: 2, now: f.now });
  auth('k0');
  auth('k1');
  auth('k2');
  auth('k2');
  auth('k0');
  assert.deepEqual(f.calls, ['k0', 'k1', 'k2', 'k0']);
});
