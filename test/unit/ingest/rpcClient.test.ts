/**
 * RpcClient against a local HTTP server that misbehaves on cue: batch answers paired by id in any
 * order, retries with backoff on 503, 429 (honouring Retry-After), timeouts and invalid JSON, no
 * retry on other 4xx, JSON-RPC errors handed back, the in-flight bound, and a stop that cuts a
 * backoff short.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { NodeRequestError, NodeRpcError } from '#src/ingest/errors.js';
import { RpcClient } from '#src/ingest/rpcClient.js';

type Handler = (
  body: { id: number; method: string; params: unknown[] }[],
  res: ServerResponse,
  n: number,
) => void | Promise<void>;

let handler: Handler;
let requests = 0;
let active = 0;
let maxActive = 0;
let url: string;
const sockets = new Set<Socket>();

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    requests++;
    active++;
    maxActive = Math.max(maxActive, active);
    res.on('close', () => active--);
    void handler(JSON.parse(Buffer.concat(chunks).toString()), res, requests);
  });
});
server.on('connection', (s) => {
  sockets.add(s);
  s.once('close', () => sockets.delete(s));
});

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

function reset(h: Handler): void {
  handler = h;
  requests = 0;
  maxActive = 0;
}

const echo = (body: { id: number; method: string; params: unknown[] }[], res: ServerResponse): void => {
  res
    .writeHead(200, { 'Content-Type': 'application/json' })
    .end(JSON.stringify(body.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.params[0] ?? c.method }))));
};

const fast = { retryBaseMs: 1, retryMaxMs: 5 };

test('a batch is one request; answers are paired with their calls by id, in any order', async () => {
  reset((body, res) => {
    const replies = body.map((c) =>
      c.method === 'bad'
        ? { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: 'no such method' } }
        : { jsonrpc: '2.0', id: c.id, result: c.params[0] },
    );
    res.writeHead(200).end(JSON.stringify(replies.reverse()));
  });
  const client = new RpcClient(url, fast);
  const outcomes = await client.batch([
    { method: 'a', params: [1] },
    { method: 'bad', params: [] },
    { method: 'c', params: [null] },
  ]);
  assert.deepEqual(outcomes, [{ result: 1 }, { error: { code: -32601, message: 'no such method' } }, { result: null }]);
  assert.equal(requests, 1);
  await assert.rejects(
    client.call('bad', []),
    (e: unknown) => e instanceof NodeRpcError && e.code === -32601 && e.method === 'bad',
  );
  assert.deepEqual(client.stats, { requests: 2, calls: 4, retries: 0 });
});

test('a batch longer than maxBatchCalls is split into several requests, answers still in call order', async () => {
  reset(echo);
  const client = new RpcClient(url, { ...fast, maxBatchCalls: 4 });
  const calls = Array.from({ length: 10 }, (_, i) => ({ method: 'x', params: [i] }));
  assert.deepEqual(
    await client.batch(calls),
    calls.map((_, i) => ({ result: i })),
  );
  assert.equal(requests, 3);
});

test(
  '503, 429 (with Retry-After), invalid JSON and a hang ' + 'are retried with backoff until an answer comes',
  async () => {
    const started = Date.now();
    reset((body, res, n) => {
      if (n === 1) res.writeHead(503).end('busy');
      else if (n === 2) res.writeHead(429, { 'Retry-After': '0.05' }).end('slow down');
      else if (n === 3) res.writeHead(200).end('{"jsonrpc":');
      else if (n === 4) return;
      else echo(body, res);
    });
    const retried: string[] = [];
    // Only the hang may time out: at 100 ms an echo delayed by a loaded machine was retried too.
    const client = new RpcClient(url, {
      ...fast,
      retryMaxMs: 100,
      timeoutMs: 1000,
      onRetry: (_, e) => retried.push(e.code),
    });
    assert.equal(await client.call('x', ['ok']), 'ok');
    assert.deepEqual(retried, ['http', 'http', 'malformed', 'timeout']);
    assert.equal(client.stats.retries, 4);
    assert.ok(Date.now() - started >= 150, 'Retry-After and the timeout were waited for');
  },
);

test('retries end: the last failure surfaces with its code; a 4xx other than 429 is not retried', async () => {
  reset((_, res) => void res.writeHead(502).end());
  const client = new RpcClient(url, { ...fast, maxRetries: 3 });
  await assert.rejects(
    client.call('x', []),
    (e: unknown) => e instanceof NodeRequestError && e.code === 'http' && e.status === 502,
  );
  assert.equal(requests, 4);
  reset((_, res) => void res.writeHead(413).end('too large'));
  await assert.rejects(
    client.call('x', []),
    (e: unknown) => e instanceof NodeRequestError && e.status === 413 && /too large/.test(e.message),
  );
  assert.equal(requests, 1);
  reset(() => undefined);
  await assert.rejects(
    new RpcClient(url, { ...fast, maxRetries: 1, timeoutMs: 30 }).call('x', []),
    (e: unknown) => e instanceof NodeRequestError && e.code === 'timeout',
  );
});

test('a node that cannot be reached is a network failure', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await assert.rejects(
    new RpcClient(`http://127.0.0.1:${port}`, { ...fast, maxRetries: 1 }).call('x', []),
    (e: unknown) => e instanceof NodeRequestError && e.code === 'network',
  );
});

test('no more than maxInFlight requests are in flight at once', async () => {
  reset(async (body, res) => {
    await new Promise((r) => setTimeout(r, 10));
    echo(body, res);
  });
  const client = new RpcClient(url, { ...fast, maxInFlight: 2 });
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client.call('x', [i])));
  assert.deepEqual(results, [...Array(10).keys()]);
  assert.equal(maxActive, 2);
});

test('a stop aborts the request in flight and cuts a backoff short', async () => {
  reset(() => undefined);
  const stop = new AbortController();
  const client = new RpcClient(url, { timeoutMs: 60_000, signal: stop.signal });
  const pending = client.call('x', []);
  setTimeout(() => stop.abort(new Error('stopped')), 20);
  await assert.rejects(pending, /stopped/);
  reset((_, res) => void res.writeHead(503).end());
  const stop2 = new AbortController();
  const waiting = new RpcClient(url, {
    retryBaseMs: 60_000,
    retryMaxMs: 60_000,
    signal: stop2.signal,
    onRetry: () => stop2.abort(new Error('stopped in backoff')),
  }).call('x', []);
  await assert.rejects(waiting, /stopped in backoff/);
});
