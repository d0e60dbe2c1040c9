/**
 * X-Ethlogd-Min-Head on a real uWS front: a request whose floor the store's head has reached is
 * answered at once; one above it waits and is answered (with an X-Ethlogd-Head at or above its
 * floor) once the head gets there; one the head does not reach in time gets 503, a JSON-RPC error and
 * Retry-After (a balancer retries it on another replica); a malformed floor gets 400; a client that
 * leaves while its request waits costs nothing. The head is the test's own counter, read by the front
 * as it reads a store's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type HttpServer, startHttpServer } from '#src/http/server.js';
import { createLogger } from '#src/logger.js';
import type { RpcHandler } from '#src/rpc/handler.js';
import { exchange } from '../support/harness.js';

/**
 * Longest the test's front lets a request wait for its floor: long enough that only the head moving ends a wait the
 * test releases.
 */
const WAIT_MS = 30_000;
/** The short wait of the front that runs out. */
const SHORT_WAIT_MS = 20;

let head: number | undefined = 100;
/** Called each time the front reads the head. */
let onRead: (() => void) | undefined;
const readHead = (): number | undefined => {
  onRead?.();
  return head;
};
/** Answers with the request echoed and the head the handler ran at. */
const handler: RpcHandler = {
  handle(body: Uint8Array): string {
    const request = JSON.parse(Buffer.from(body).toString('utf8')) as { id: unknown };
    return JSON.stringify({ jsonrpc: '2.0', id: request.id, result: head });
  },
};
const storeHead = () => (head === undefined ? undefined : Buffer.from(String(head)));

let server: HttpServer;
let short: HttpServer;

before(async () => {
  const logger = createLogger('silent');
  server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    handler,
    auth: () => 'valid',
    logger,
    storeHead,
    readHead,
    minHeadWaitMs: WAIT_MS,
  });
  short = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    handler,
    auth: () => 'valid',
    logger,
    storeHead,
    readHead,
    minHeadWaitMs: SHORT_WAIT_MS,
  });
});

after(async () => {
  await server?.close();
  await short?.close();
});

/** POSTs one call to `front` with `minHead` as X-Ethlogd-Min-Head (none when undefined). */
function call(front: HttpServer, minHead?: string) {
  const headers = minHead === undefined ? {} : { 'x-ethlogd-min-head': minHead };
  return exchange(`http://127.0.0.1:${front.port}/v3/key`, {
    body: '{"jsonrpc":"2.0","id":7,"method":"m","params":[]}',
    headers,
  });
}

test('a floor at or below the head, or none, is answered at once', async () => {
  head = 100;
  for (const minHead of [undefined, '0', '99', '100']) {
    const answer = await call(server, minHead);
    assert.equal(answer.status, 200, String(minHead));
    assert.deepEqual(JSON.parse(answer.body.toString()), { jsonrpc: '2.0', id: 7, result: 100 });
    assert.equal(answer.headers['x-ethlogd-head'], '100');
  }
});

test('a floor above the head waits until the head reaches it, and is answered at or above it', {
  timeout: 60_000,
}, async () => {
  head = 100;
  let reads = 0;
  const waited = new Promise<void>((resolve) => {
    onRead = () => {
      // The check on arrival, then the first poll: the request is waiting.
      if (++reads === 2) resolve();
    };
  });
  const answer = call(server, '103');
  await waited;
  onRead = undefined;
  head = 103;
  const got = await answer;
  assert.equal(got.status, 200);
  assert.deepEqual(JSON.parse(got.body.toString()), { jsonrpc: '2.0', id: 7, result: 103 });
  assert.equal(got.headers['x-ethlogd-head'], '103');
});

test('a floor the head does not reach in time: 503, a JSON-RPC error naming both heads, Retry-After', async () => {
  head = 50;
  const answer = await call(short, '60');
  assert.equal(answer.status, 503);
  assert.equal(answer.headers['retry-after'], '1');
  const body = JSON.parse(answer.body.toString()) as { error: { code: number; message: string } };
  assert.equal(body.error.code, -32000);
  assert.match(body.error.message, /head is 50, behind block 60/);
  head = undefined;
  const empty = JSON.parse((await call(short, '1')).body.toString()) as { error: { message: string } };
  assert.match(empty.error.message, /head is no block, behind block 1/);
  head = 100;
});

test('a malformed floor is refused with 400 and a JSON-RPC error', async () => {
  for (const bad of ['0x10', '-1', 'latest', '99999999999999999']) {
    const answer = await call(server, bad);
    assert.equal(answer.status, 400, bad);
    assert.match(JSON.parse(answer.body.toString()).error.message, /X-Ethlogd-Min-Head must be a decimal block number/);
  }
});

test('a client that leaves while its request waits: the front goes on answering', { timeout: 60_000 }, async () => {
  head = 100;
  let reads = 0;
  const waiting = new Promise<void>((resolve) => {
    onRead = () => {
      if (++reads === 2) resolve();
    };
  });
  const controller = new AbortController();
  const left = fetch(`http://127.0.0.1:${server.port}/v3/key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ethlogd-min-head': '200' },
    body: '{"jsonrpc":"2.0","id":1,"method":"m","params":[]}',
    signal: controller.signal,
  });
  await waiting;
  onRead = undefined;
  controller.abort();
  await assert.rejects(left);
  head = 200;
  const answer = await call(server, '200');
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['x-ethlogd-head'], '200');
});
