/**
 * The HTTP front over real sockets: a real server on an ephemeral port, a real key store, and a small
 * JSON handler written here (this tests the transport, not the JSON-RPC methods).
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DISCARD_MAX_BYTES } from '#src/http/body.js';
import { type HttpServer, startHttpServer } from '#src/http/server.js';
import { uwsImplementation } from '#src/http/uws.js';
import { createLogger } from '#src/logger.js';
import { INVALID_KEY_MESSAGE, missingKeyMessage, REVOKED_KEY_MESSAGE, UNAUTHORIZED } from '#src/rpc/errors.js';
import { JsonParts, type RpcHandler } from '#src/rpc/handler.js';
import { checkApiKey, createApiKey, revokeApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { captureLogger } from '../support/logCapture.js';

const HOST = '127.0.0.1';

/** About 20 MB of JSON with multi-byte characters, so byte and character offsets differ. */
const BIG_BODY = (() => {
  const unit = 'abcdefghij0123456789-é€-';
  const result = unit.repeat(Math.ceil(20_000_000 / Buffer.byteLength(unit)));
  return JSON.stringify({ jsonrpc: '2.0', id: 1, result });
})();
const BIG_BYTES = Buffer.byteLength(BIG_BODY);
const BIG_SHA = createHash('sha256').update(BIG_BODY).digest('hex');

/**
 * BIG_BODY's bytes cut into parts of uneven sizes (one of a single byte), as a log answer is made of a head, chunks and
 * a tail.
 */
const BIG_PARTS = (() => {
  const bytes = Buffer.from(BIG_BODY);
  const cuts = [0, 31, 32, 65_536, 3_000_001, 3_000_002, 11_111_111, bytes.length];
  return cuts.slice(1).map((end, i) => bytes.subarray(cuts[i], end));
})();

/** How many times the `parts` answers were released (JsonParts.release: written or abandoned). */
let partsReleased = 0;

/** Promises the handler holds for `wait` requests, released by the test. */
const waiting: Array<{ release(): void; id: unknown }> = [];
/** Resolved when a `wait` request reaches the handler. */
let onWaitArrived: (() => void) | null = null;

/**
 * The test's JSON handler: echoes the parsed request as `result`; `method` selects other behaviours
 * (a big answer, an async one, a rejected promise, a throw, an answer the test releases).
 */
const echoHandler: RpcHandler = {
  handle(body: Uint8Array): string | JsonParts | Promise<string> {
    const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    const request = JSON.parse(text) as { id?: unknown; method?: string };
    const answer = JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, result: request });
    switch (request.method) {
      case 'big':
        return BIG_BODY;
      case 'parts':
        return new JsonParts(BIG_PARTS, BIG_BYTES, () => partsReleased++);
      case 'async':
        return new Promise((resolve) => setImmediate(() => resolve(answer)));
      case 'reject':
        return Promise.reject(new Error('handler rejected on purpose'));
      case 'throw':
        throw new Error('handler threw on purpose');
      case 'length':
        return JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, result: body.byteLength });
      case 'wait':
        return new Promise((resolve) => {
          waiting.push({ id: request.id, release: () => resolve(answer) });
          onWaitArrived?.();
        });
      default:
        return answer;
    }
  },
};

/** A response read whole. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends one request with node:http and reads the whole answer. */
function request(
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: http.OutgoingHttpHeaders;
    body?: string | Buffer;
    agent?: http.Agent;
  },
): Promise<Answer & { reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        method: options.method ?? 'POST',
        path: options.path,
        headers: options.headers,
        agent: options.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            reusedSocket: req.reusedSocket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A JSON-RPC request body. */
function rpc(method: string, id: unknown = 1, params: unknown[] = []): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** The JSON-RPC error body the front sends for a transport-level refusal. */
function errorOf(code: number, message: string): unknown {
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}

/** Raw HTTP/1.1 request text for a POST of `body` to `path`. */
function rawPost(path: string, body: string, extra = ''): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: ` +
    `application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
  );
}

/** Reads `count` Content-Length-framed responses from a raw socket, in arrival order. */
/** One response read off a raw socket. */
type RawResponse = { status: number; head: string; body: string };

function readRawResponses(socket: net.Socket, count: number): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const out: RawResponse[] = [];
    const onData = (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffered.subarray(0, end).toString('latin1');
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        out.push({
          status: Number(head.split(' ')[1]),
          head,
          body: buffered.subarray(end + 4, end + 4 + length).toString('utf8'),
        });
        buffered = buffered.subarray(end + 4 + length);
        if (out.length === count) {
          socket.off('data', onData);
          resolve(out);
          return;
        }
      }
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.on('close', () => {
      if (out.length < count) reject(new Error(`socket closed after ${out.length} of ${count} responses`));
    });
  });
}

/** Opens a raw TCP connection to the server. */
function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, HOST, () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('HTTP front', () => {
  let dir: string;
  let store: Store;
  let server: HttpServer;
  let small: HttpServer;
  /** Compression on, with the service's defaults. */
  let compressed: HttpServer;
  let key: string;
  let revoked: string;
  const { logger, lines: logs } = captureLogger('debug');
  const base = () => `http://${HOST}:${server.port}`;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ethlogd-http-test-'));
    store = openStore(dir);
    key = createApiKey(store, 'test');
    revoked = createApiKey(store, 'revoked');
    assert.equal(revokeApiKey(store, revoked), true);
    const auth = (k: string) => checkApiKey(store, k);
    server = await startHttpServer({ host: HOST, port: 0, handler: echoHandler, auth, logger });
    small = await startHttpServer({ host: HOST, port: 0, handler: echoHandler, auth, maxBodyBytes: 1000, logger });
    compressed = await startHttpServer({ host: HOST, port: 0, handler: echoHandler, auth, logger, compression: {} });
  });

  after(async () => {
    server.close();
    small.close();
    compressed.close();
    await closeStore(store);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('listens on an ephemeral port and logs (at debug) which uWebSockets.js build runs', () => {
    assert.ok(server.port > 0 && server.port !== small.port);
    assert.equal(server.host, HOST);
    assert.ok(
      logs.some((l) => l.includes(`:${server.port}`) && l.includes(`uWebSockets.js ${uwsImplementation}`)),
      logs.join('\n'),
    );
  });

  test('refuses a port that is already taken', async () => {
    await assert.rejects(
      startHttpServer({
        host: HOST,
        port: server.port,
        handler: echoHandler,
        auth: () => 'valid',
        logger: createLogger('silent'),
      }),
      /cannot listen/,
    );
  });

  test('a good POST is answered 200 with the handler output, as JSON, with CORS', async () => {
    const res = await fetch(`${base()}/v3/${key}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: rpc('echo', 7, ['a']),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await res.json(), {
      jsonrpc: '2.0',
      id: 7,
      result: { jsonrpc: '2.0', id: 7, method: 'echo', params: ['a'] },
    });
  });

  test('Content-Type parameters are accepted, and a query string is ignored', async () => {
    const res = await request(server.port, {
      path: `/v3/${key}?source=test`,
      headers: { 'Content-Type': 'Application/JSON; charset=utf-8' },
      body: rpc('echo', 'x'),
    });
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { id: string }).id, 'x');
  });

  test('an async answer (a promise) is sent when it resolves', async () => {
    const res = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: rpc('async', 3),
    });
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { id: number }).id, 3);
  });

  test('missing, unknown and revoked keys get 401 with the JSON-RPC error', async () => {
    const cases: Array<[string, string]> = [
      ['/v3/', missingKeyMessage('in the path, POST /v3/<API_KEY>')],
      ['/v3', missingKeyMessage('in the path, POST /v3/<API_KEY>')],
      [`/v3/${'0'.repeat(64)}`, INVALID_KEY_MESSAGE],
      [`/v3/${revoked}`, REVOKED_KEY_MESSAGE],
    ];
    for (const [p, message] of cases) {
      const res = await request(server.port, {
        path: p,
        headers: { 'content-type': 'application/json' },
        body: rpc('echo'),
      });
      assert.equal(res.status, 401, p);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.deepEqual(JSON.parse(res.body), errorOf(UNAUTHORIZED, message), p);
    }
  });

  test('other paths get 404 with a JSON body', async () => {
    for (const [method, p] of [
      ['POST', '/'],
      ['GET', '/'],
      ['POST', '/v2/abc'],
      ['POST', '/v3abc'],
      ['POST', `/v3/${key}/extra`],
      ['OPTIONS', '/other'],
    ] as const) {
      const res = await request(server.port, {
        method,
        path: p,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(res.status, 404, `${method} ${p}`);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal((JSON.parse(res.body) as { error: { code: number } }).error.code, -32600);
    }
  });

  test('other methods on /v3 get 405 with Allow, and HEAD gets no body', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await request(server.port, { method, path: `/v3/${key}` });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'POST, OPTIONS');
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.deepEqual(JSON.parse(res.body), errorOf(-32600, 'method not allowed, use POST'));
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const head = await request(server.port, { method: 'HEAD', path: '/v3', agent });
    assert.equal(head.status, 405);
    assert.equal(head.body, '');
    const next = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: rpc('echo', 2),
      agent,
    });
    assert.equal(next.status, 200);
    assert.equal(next.reusedSocket, true);
    agent.destroy();
  });

  test('a wrong or missing Content-Type gets 415', async () => {
    for (const contentType of ['text/plain', 'application/jsonx', 'application/x-www-form-urlencoded', undefined]) {
      const headers: http.OutgoingHttpHeaders = contentType === undefined ? {} : { 'content-type': contentType };
      const res = await request(server.port, { path: `/v3/${key}`, headers, body: rpc('echo') });
      assert.equal(res.status, 415, String(contentType));
      assert.equal(res.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(res.body), errorOf(-32600, 'unsupported content type, use application/json'));
    }
  });

  test('auth is checked before the Content-Type', async () => {
    const res = await request(server.port, {
      path: `/v3/${revoked}`,
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    assert.equal(res.status, 401);
  });

  test('CORS preflight gets 204 with the allowed methods and headers', async () => {
    const res = await request(server.port, {
      method: 'OPTIONS',
      path: `/v3/${key}`,
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, x-trace',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.body, '');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-methods'], 'POST, OPTIONS');
    assert.equal(res.headers['access-control-allow-headers'], 'content-type, x-trace');
    assert.equal(res.headers['access-control-max-age'], '86400');
    const plain = await request(server.port, { method: 'OPTIONS', path: '/v3' });
    assert.equal(plain.status, 204);
    assert.equal(plain.headers['access-control-allow-headers'], 'Content-Type');
  });

  test('a body at the limit is read; one byte over gets 413', async () => {
    const fits = JSON.stringify({ method: 'length', pad: '' });
    const atLimit = JSON.stringify({ method: 'length', pad: 'p'.repeat(1000 - Buffer.byteLength(fits)) });
    assert.equal(Buffer.byteLength(atLimit), 1000);
    const ok = await request(small.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: atLimit,
    });
    assert.equal(ok.status, 200);
    assert.equal((JSON.parse(ok.body) as { result: number }).result, 1000);
    const over = await request(small.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: atLimit + ' ',
    });
    assert.equal(over.status, 413);
    assert.equal(over.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(over.body), errorOf(-32600, 'request body too large, limit 1000 bytes'));
  });

  test(
    'a body announced over 5 MiB gets 413 before it is sent; ' +
      'uWS skips it and the connection answers the next request',
    async () => {
      const socket = await connect(server.port);
      const length = 5 * 1024 * 1024 + 1;
      const first = readRawResponses(socket, 1);
      socket.write(
        `POST /v3/${key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      );
      const [res] = (await first) as [RawResponse];
      assert.equal(res.status, 413);
      assert.doesNotMatch(res.head, /connection: close/i);
      assert.deepEqual(JSON.parse(res.body), errorOf(-32600, `request body too large, limit ${5 * 1024 * 1024} bytes`));
      const next = readRawResponses(socket, 1);
      const body = JSON.stringify({ method: 'length' });
      socket.write(' '.repeat(length));
      socket.write(
        `POST /v3/${key} HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
          `application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const [answer] = (await next) as [RawResponse];
      assert.equal(answer.status, 200);
      assert.equal((JSON.parse(answer.body) as { result: number }).result, body.length);
      socket.destroy();
    },
  );

  test('a body announced over DISCARD_MAX_BYTES gets 413 before any body is sent', async () => {
    const socket = await connect(server.port);
    const answers = readRawResponses(socket, 1);
    socket.write(
      `POST /v3/${key} HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${DISCARD_MAX_BYTES + 1}\r\n\r\n`,
    );
    const [res] = (await answers) as [RawResponse];
    assert.equal(res.status, 413);
    socket.destroy();
  });

  test('a chunked body over the limit is dropped to its end and answered 413', async () => {
    const answer = await new Promise<{ status: number; body: string; closed: Promise<void> }>((resolve, reject) => {
      const req = http.request(
        {
          host: HOST,
          port: small.port,
          method: 'POST',
          path: `/v3/${key}`,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              closed: new Promise((done) => (req.socket?.destroyed ? done() : req.socket?.once('close', () => done()))),
            }),
          );
        },
      );
      req.on('error', reject);
      req.write('x'.repeat(600));
      req.write('x'.repeat(600));
      req.end('x'.repeat(600));
    });
    assert.equal(answer.status, 413);
    assert.deepEqual(JSON.parse(answer.body), errorOf(-32600, 'request body too large, limit 1000 bytes'));
    await answer.closed;
  });

  test('a 6 MB upload through fetch from another thread gets 413, not a reset connection', async () => {
    // On another thread the upload runs while the server answers, as from any other client.
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      fetch(workerData, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(6_000_000),
      }).then(
        async (res) => parentPort.postMessage({ status: res.status, body: await res.text() }),
        (error) => parentPort.postMessage({ error: String(error.cause ?? error) }),
      );
    `;
    for (let i = 0; i < 5; i++) {
      const worker = new Worker(source, { eval: true, workerData: `${base()}/v3/${key}` });
      const [answer] = (await once(worker, 'message')) as [{ status?: number; body?: string; error?: string }];
      await worker.terminate();
      assert.equal(answer.error, undefined);
      assert.equal(answer.status, 413);
      assert.equal((JSON.parse(answer.body!) as { error: { code: number } }).error.code, -32600);
    }
  });

  test('a multi-chunk body is reassembled exactly', async () => {
    const pad = 'ü'.repeat(1_500_000);
    const body = JSON.stringify({ method: 'echo', id: 9, pad });
    const res = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { result: { pad: string } }).result.pad, pad);
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = http.request(
        {
          host: HOST,
          port: server.port,
          method: 'POST',
          path: `/v3/${key}`,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () =>
            resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      req.on('error', reject);
      const bytes = Buffer.from(body);
      for (let i = 0; i < bytes.length; i += 100_000) req.write(bytes.subarray(i, i + 100_000));
      req.end();
    });
    assert.equal(chunked.status, 200);
    assert.equal((JSON.parse(chunked.body) as { result: { pad: string } }).result.pad, pad);
  });

  test('a 20 MB answer arrives intact', async () => {
    const res = await fetch(`${base()}/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc('big'),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(BIG_BYTES));
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.length, BIG_BYTES);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), BIG_SHA);
  });

  test('a 20 MB answer to a paused reader waits for it, while the server keeps answering others', async () => {
    const result = await new Promise<{ bytes: Buffer; readWhilePaused: number }>((resolve, reject) => {
      const req = http.request(
        {
          host: HOST,
          port: server.port,
          method: 'POST',
          path: `/v3/${key}`,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let paused = false;
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            if (paused) return;
            paused = true;
            res.pause();
            request(server.port, {
              path: `/v3/${key}`,
              headers: { 'content-type': 'application/json' },
              body: rpc('echo', 'other'),
            }).then((other) => {
              assert.equal(other.status, 200);
              const readWhilePaused = req.socket?.bytesRead ?? 0;
              res.on('end', () => resolve({ bytes: Buffer.concat(chunks), readWhilePaused }));
              res.resume();
            }, reject);
          });
        },
      );
      req.on('error', reject);
      req.end(rpc('big'));
    });
    assert.ok(result.readWhilePaused < BIG_BYTES, `read ${result.readWhilePaused} of ${BIG_BYTES} while paused`);
    assert.equal(result.bytes.length, BIG_BYTES);
    assert.equal(createHash('sha256').update(result.bytes).digest('hex'), BIG_SHA);
  });

  /** Asks for `method`'s answer and reads it in small steps (a pause after every chunk): its headers and bytes. */
  const readSlowly = (method: string): Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: HOST,
          port: server.port,
          method: 'POST',
          path: `/v3/${key}`,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            res.pause();
            setImmediate(() => res.resume());
          });
          res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(rpc(method));
    });

  test('a slow reader taking the answer in small steps gets it intact', async () => {
    const { bytes } = await readSlowly('big');
    assert.equal(bytes.length, BIG_BYTES);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), BIG_SHA);
  });

  test('an answer in parts reaches a slow reader intact, and its parts are released once it is written', async () => {
    const released = partsReleased;
    const { headers, bytes } = await readSlowly('parts');
    assert.equal(headers['content-length'], String(BIG_BYTES));
    assert.equal(bytes.length, BIG_BYTES);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), BIG_SHA);
    assert.equal(partsReleased, released + 1);
  });

  test('keep-alive: two requests share one socket', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const headers = { 'content-type': 'application/json' };
    const first = await request(server.port, { path: `/v3/${key}`, headers, body: rpc('echo', 1), agent });
    const second = await request(server.port, { path: `/v3/${key}`, headers, body: rpc('async', 2), agent });
    const third = await request(server.port, { path: `/v3/${revoked}`, headers, body: rpc('echo', 3), agent });
    const fourth = await request(server.port, { path: `/v3/${key}`, headers, body: rpc('echo', 4), agent });
    assert.deepEqual([first.status, second.status, third.status, fourth.status], [200, 200, 401, 200]);
    assert.deepEqual(
      [first.reusedSocket, second.reusedSocket, third.reusedSocket, fourth.reusedSocket],
      [false, true, true, true],
    );
    assert.equal((JSON.parse(fourth.body) as { id: number }).id, 4);
    agent.destroy();
  });

  test('pipelining: requests written back to back are answered in order', async () => {
    const socket = await connect(server.port);
    const answers = readRawResponses(socket, 4);
    socket.write(
      rawPost(`/v3/${key}`, rpc('echo', 'first')) +
        rawPost(`/v3/${revoked}`, rpc('echo', 'second')) +
        rawPost(`/v3/${key}`, rpc('echo', 'third')) +
        `GET /v3/${key} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const [a, b, c, d] = (await answers) as [RawResponse, RawResponse, RawResponse, RawResponse];
    assert.deepEqual([a.status, b.status, c.status, d.status], [200, 401, 200, 405]);
    assert.equal((JSON.parse(a.body) as { id: string }).id, 'first');
    assert.deepEqual(JSON.parse(b.body), errorOf(UNAUTHORIZED, REVOKED_KEY_MESSAGE));
    assert.equal((JSON.parse(c.body) as { id: string }).id, 'third');
    socket.destroy();
  });

  test('a refused request with a large body leaves the connection usable', async () => {
    const socket = await connect(server.port);
    const answers = readRawResponses(socket, 3);
    const big = JSON.stringify({ pad: 'z'.repeat(300_000) });
    socket.write(
      rawPost(`/v3/${revoked}`, big) +
        rawPost(`/v3/${key}`, big, '').replace('application/json', 'text/plain') +
        rawPost(`/v3/${key}`, rpc('echo', 'last')),
    );
    const [a, b, c] = (await answers) as [RawResponse, RawResponse, RawResponse];
    assert.deepEqual([a.status, b.status, c.status], [401, 415, 200]);
    assert.equal((JSON.parse(c.body) as { id: string }).id, 'last');
    socket.destroy();
  });

  test('a client that aborts mid-body does not disturb the server', async () => {
    const socket = await connect(server.port);
    socket.write(
      `POST /v3/${key} HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
        'application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
    );
    socket.destroy();
    const res = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: rpc('echo', 'after'),
    });
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { id: string }).id, 'after');
  });

  test('a client that leaves while its answer is pending is never written to', async () => {
    const socket = await connect(server.port);
    const arrived = new Promise<void>((resolve) => (onWaitArrived = resolve));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(rawPost(`/v3/${key}`, rpc('wait', 'gone')));
    await arrived;
    onWaitArrived = null;
    socket.destroy();
    await closed;
    const between = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: rpc('echo', 'between'),
    });
    assert.equal(between.status, 200);
    const held = waiting.splice(0);
    assert.equal(held.length, 1);
    held[0]!.release();
    await new Promise((resolve) => setImmediate(resolve));
    const res = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: rpc('echo', 'after'),
    });
    assert.equal(res.status, 200);
    assert.ok(!logs.some((l) => l.includes('writing an answer failed')), logs.join('\n'));
  });

  /** Asks `port` for the big answer (or `method`'s) with `headers` and goes away at its first bytes. */
  const leaveAfterFirstBytes = (port: number, headers: http.OutgoingHttpHeaders, method = 'big'): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: HOST,
          port,
          method: 'POST',
          path: `/v3/${key}`,
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ECONNRESET') reject(err);
      });
      req.end(rpc(method));
    });

  test('a client that leaves during a 20 MB answer does not disturb the server', async () => {
    await leaveAfterFirstBytes(server.port, {});
    const res = await request(server.port, {
      path: `/v3/${key}`,
      headers: { 'content-type': 'application/json' },
      body: rpc('echo', 'after'),
    });
    assert.equal(res.status, 200);
  });

  test('a client that leaves during an answer in parts has its parts released, and the server goes on', async () => {
    const released = partsReleased;
    await leaveAfterFirstBytes(server.port, {}, 'parts');
    // The close reaches the server's loop as an event of its own: requests on other sockets go on until it has.
    for (let i = 0; i < 1000 && partsReleased === released; i++) {
      const res = await request(server.port, {
        path: `/v3/${key}`,
        headers: { 'content-type': 'application/json' },
        body: rpc('echo', 'after'),
      });
      assert.equal(res.status, 200);
    }
    assert.equal(partsReleased, released + 1);
  });

  test('compressed, an answer in parts arrives intact and its parts are released', async () => {
    const released = partsReleased;
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const req = http.request(
        {
          host: HOST,
          port: compressed.port,
          method: 'POST',
          path: `/v3/${key}`,
          headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(rpc('parts'));
    });
    assert.equal(createHash('sha256').update(gunzipSync(raw)).digest('hex'), BIG_SHA);
    assert.equal(partsReleased, released + 1);
  });

  test('compressed, a 20 MB answer of multi-byte text arrives intact, chunked, in either coding', async () => {
    for (const [accept, decode] of [
      ['gzip', gunzipSync],
      ['br', brotliDecompressSync],
    ] as const) {
      const raw = await new Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
        const req = http.request(
          {
            host: HOST,
            port: compressed.port,
            method: 'POST',
            path: `/v3/${key}`,
            headers: { 'content-type': 'application/json', 'accept-encoding': accept },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(rpc('big'));
      });
      assert.equal(raw.headers['content-encoding'], accept);
      assert.equal(raw.headers['transfer-encoding'], 'chunked');
      const bytes = decode(raw.bytes);
      assert.equal(bytes.length, BIG_BYTES, accept);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), BIG_SHA, accept);
    }
  });

  test('a client that leaves during a 20 MB compressed answer does not disturb the server', async () => {
    for (const accept of ['gzip', 'br']) {
      await leaveAfterFirstBytes(compressed.port, { 'accept-encoding': accept });
      const res = await request(compressed.port, {
        path: `/v3/${key}`,
        headers: { 'content-type': 'application/json', 'accept-encoding': accept },
        body: rpc('echo', 'after'),
      });
      assert.equal(res.status, 200);
      assert.equal((JSON.parse(res.body) as { id: string }).id, 'after');
    }
  });

  test('a rejected promise or a throw from the handler gives 200 with -32603, logged', async () => {
    for (const method of ['reject', 'throw']) {
      const before = logs.length;
      const res = await request(server.port, {
        path: `/v3/${key}`,
        headers: { 'content-type': 'application/json' },
        body: rpc(method),
      });
      assert.equal(res.status, 200, method);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(res.body), errorOf(-32603, 'internal error'));
      assert.ok(
        logs.slice(before).some((l) => l.includes(`handler ${method === 'reject' ? 'rejected' : 'threw'} on purpose`)),
      );
    }
  });

  test('close() stops listening and drops open connections', async () => {
    const extra = await startHttpServer({
      host: HOST,
      port: 0,
      handler: echoHandler,
      auth: () => 'valid',
      logger: createLogger('silent'),
    });
    const socket = await connect(extra.port);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    extra.close();
    await closed;
    await assert.rejects(connect(extra.port), /ECONNREFUSED/);
    extra.close();
  });
});
