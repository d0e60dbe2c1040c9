/**
 * What a request body costs under the rate limit (its calls, counted without parsing), the 429
 * reply, and the in-flight count a drain waits for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_BATCH_ITEMS } from '#src/config.js';
import { InFlight } from '#src/http/drain.js';
import { callCount, refusedBody, tooManyRequests } from '#src/http/rateLimit.js';
import { BatchOverBurstError, RateLimitedError } from '#src/rpc/errors.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'eth_getLogs',
  params: [{ address: ['0x1', '0x2'], topics: [['0xa', '0xb'], null] }],
});

test('a single request costs 1, a batch costs its items', () => {
  assert.equal(callCount(bytes(JSON.stringify(call(1)))), 1);
  for (const n of [1, 2, 7, MAX_BATCH_ITEMS]) {
    const batch = Array.from({ length: n }, (_, i) => call(i));
    assert.equal(callCount(bytes(JSON.stringify(batch))), n, `compact batch of ${n}`);
    assert.equal(callCount(bytes(JSON.stringify(batch, null, 2))), n, `indented batch of ${n}`);
  }
  assert.equal(
    callCount(bytes(' \r\n\t[1, "a", null, {"x": [1, 2]}, [3, 4], true]')),
    6,
    'any item counts, nesting does not',
  );
});

test('commas, brackets and escaped quotes inside strings are not items', () => {
  assert.equal(callCount(bytes('[{"method":"a,b],[{"},{"method":"\\",]"}]')), 2);
  assert.equal(callCount(bytes('["\\\\", ","]')), 2);
});

test('a batch that runs no call costs 1: empty, or over the batch limit', () => {
  assert.equal(callCount(bytes('[]')), 1);
  assert.equal(callCount(bytes(' [ ] ')), 1);
  assert.equal(callCount(bytes(JSON.stringify(Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, i) => call(i))))), 1);
});

test('a malformed body costs what its top level looks like, at least 1', () => {
  assert.equal(callCount(bytes('')), 1);
  assert.equal(callCount(bytes('not json')), 1);
  assert.equal(callCount(bytes('[{"a":1},{"b":')), 2);
  assert.equal(callCount(bytes('["unterminated')), 1);
});

test('429 with Retry-After in whole seconds, rounded up; none for a batch over the burst', () => {
  const waited = tooManyRequests(
    new RateLimitedError(1_200, 5),
    bytes('{"jsonrpc":"2.0","id":7,"method":"eth_chainId"}'),
  );
  assert.equal(waited.status, '429 Too Many Requests');
  assert.deepEqual(waited.headers, [['Retry-After', '2']]);
  assert.deepEqual(JSON.parse(waited.body), {
    jsonrpc: '2.0',
    id: 7,
    error: {
      code: -32005,
      message: 'project ID request rate exceeded',
      data: { allowed_rps: 5, backoff_seconds: 1.2 },
    },
  });
  assert.deepEqual(
    tooManyRequests(new RateLimitedError(3, 500), bytes('{}')).headers,
    [['Retry-After', '1']],
    'at least one second',
  );
  const never = tooManyRequests(new BatchOverBurstError(20, 10), bytes('[{"id":1},{"id":2}]'));
  assert.deepEqual(never.headers, []);
  assert.deepEqual(JSON.parse(never.body)[1], {
    jsonrpc: '2.0',
    id: 2,
    error: { code: -32005, message: 'batch of 20 calls exceeds the rate limit burst of 10' },
  });
});

test("a refusal keeps each call's id: an array for a batch, id null where there is none to keep", () => {
  const refusal = new BatchOverBurstError(3, 2);
  const error = refusal.toJSON();
  const cases: [string, unknown][] = [
    ['{"jsonrpc":"2.0","id":"a","method":"x"}', { jsonrpc: '2.0', id: 'a', error }],
    [
      '[{"id":1},{"id":"two"},{"method":"notification"},{"id":{"bad":1}},5]',
      [1, 'two', null, null, null].map((id) => ({ jsonrpc: '2.0', id, error })),
    ],
    ['not json', { jsonrpc: '2.0', id: null, error }],
    ['[]', { jsonrpc: '2.0', id: null, error }],
    [`[${'{"id":1},'.repeat(MAX_BATCH_ITEMS)}{"id":1}]`, { jsonrpc: '2.0', id: null, error }],
  ];
  for (const [body, expected] of cases)
    assert.deepEqual(JSON.parse(refusedBody(refusal, bytes(body))), expected, body.slice(0, 60));
});

test('a drain resolves when the last request leaves, or at its bound with the count left', async () => {
  const idle = new InFlight();
  assert.equal(await idle.drain(1_000), 0, 'nothing in flight: at once');
  assert.equal(idle.closing, true);

  const flight = new InFlight();
  const a = flight.enter();
  const b = flight.enter();
  assert.equal(flight.size, 2);
  const drained = flight.drain(60_000);
  a();
  a();
  assert.equal(flight.size, 1, 'leaving twice counts once');
  b();
  assert.equal(await drained, 0);

  const stuck = new InFlight();
  stuck.enter();
  assert.equal(await stuck.drain(1), 1, 'one request left at the bound');
  assert.equal(await new InFlight().drain(0), 0);
});
