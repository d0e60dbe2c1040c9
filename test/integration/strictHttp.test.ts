/**
 * Hostile HTTP and WebSocket input against the real service (issue 35, part A): each attack gets a
 * clear refusal at once, or, where uWebSockets.js's own parser takes the request before any handler
 * runs, a connection closed without an answer and the request never served (docs/api.md §8); the
 * service stays up and another client's small call still answers; /metrics counts the refusals.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from '#src/config.js';
import {
  makeDataset,
  type RpcResponse,
  startTestService,
  type TestDataset,
  type TestService,
} from '../support/harness.js';

const HOST = '127.0.0.1';
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });

let dataset: TestDataset;
let svc: TestService;
let port: number;

before(async () => {
  dataset = await makeDataset(10, 0.05, 'strict-http');
  svc = await startTestService(dataset);
  port = Number(new URL(svc.service.url).port);
});

after(async () => {
  await svc.close();
  dataset.remove();
});

/** What a raw connection got: the bytes the server sent before it closed, or up to the first whole response. */
interface Received {
  bytes: string;
  /** True when the server closed the connection. */
  closed: boolean;
}

/**
 * Writes `text` (Latin-1) on a new connection and resolves at the first whole response (framed by Content-Length) or at
 * the close.
 */
function send(text: string): Promise<Received> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, HOST, () => socket.write(Buffer.from(text, 'latin1')));
    let got = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      got = Buffer.concat([got, data]);
      const end = got.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(got.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (got.length < end + 4 + length) return;
      socket.destroy();
      resolve({ bytes: got.toString('latin1'), closed: false });
    });
    socket.on('close', () => resolve({ bytes: got.toString('latin1'), closed: true }));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
  });
}

/** A POST head to the API with `headers` lines (each ending in CRLF) after the request line. */
function post(headers: string, version = 'HTTP/1.1'): string {
  return `POST /v3/${dataset.key} ${version}\r\n${headers}\r\n`;
}

/** The status and JSON body of a raw response. */
function parse(received: Received): { status: number; body: RpcResponse } {
  const end = received.bytes.indexOf('\r\n\r\n');
  return {
    status: Number(received.bytes.split(' ')[1]),
    body: JSON.parse(received.bytes.slice(end + 4)) as RpcResponse,
  };
}

/** Asserts another client's small call answers. */
async function othersServed(): Promise<void> {
  assert.equal(await svc.result('eth_blockNumber', []), '0x9', 'another client is answered');
}

/** The value of `ethlogd_refusals_total{reason}`. */
async function refusals(reason: string): Promise<number> {
  const text = await (await fetch(`${svc.service.url}/metrics`)).text();
  return Number(new RegExp(`^ethlogd_refusals_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
}

describe('strict HTTP', () => {
  test('a Content-Length over the limit with 10 bytes sent gets 413 at once, the connection still open', async () => {
    const before = await refusals('body_too_large');
    const got = await send(
      post(`Host: x\r\nContent-Type: application/json\r\nContent-Length: ${6 * 1024 * 1024}\r\n`) + '0123456789',
    );
    assert.equal(got.closed, false, 'answered before any close');
    const { status, body } = parse(got);
    assert.equal(status, 413);
    assert.deepEqual(body.error, { code: -32600, message: `request body too large, limit ${MAX_BODY_BYTES} bytes` });
    assert.equal(await refusals('body_too_large'), before + 1);
    await othersServed();
  });

  test(
    'two different Content-Length headers get 400 and close; ' + 'bytes after the body are never served as a request',
    async () => {
      const before = await refusals('content_length');
      const got = await send(
        post(
          'Host: x\r\nContent-Type: application/json\r\nContent-Length: ' +
            `${CALL.length}\r\nContent-Length: ${CALL.length + 1}\r\n`,
        ) + CALL,
      );
      const { status, body: answer } = parse(got);
      assert.equal(status, 400);
      assert.deepEqual(answer.error, { code: -32600, message: 'conflicting Content-Length headers' });
      assert.match(got.bytes, /\r\nConnection: close\r\n/i);
      // A request smuggled after the body by the first length (a proxy framing it by the second):
      // the connection closes, answering neither.
      const smuggled = `GET /health HTTP/1.1\r\nHost: x\r\n\r\n`;
      const body = CALL + smuggled;
      const cut = await send(
        post(
          'Host: x\r\nContent-Type: application/json\r\nContent-Length: ' +
            `${CALL.length}\r\nContent-Length: ${body.length}\r\n`,
        ) + body,
      );
      assert.deepEqual(cut, { bytes: '', closed: true });
      assert.equal(await refusals('content_length'), before + 2);
      const same = await send(
        post(
          'Host: x\r\nContent-Type: application/json\r\nContent-Length: ' +
            `${CALL.length}\r\nContent-Length: ${CALL.length}\r\n`,
        ) + CALL,
      );
      assert.equal(parse(same).body.result, '0x9', 'the same length twice is one length');
      await othersServed();
    },
  );

  test(
    'uWS closes at once, unanswered and unserved: Transfer-Encoding ' +
      'with Content-Length, invalid lengths, HTTP/1.1 without Host',
    async () => {
      const heads = [
        post(
          'Host: x\r\nContent-Type: application/json\r\nContent-Length: ' +
            `${CALL.length}\r\nTransfer-Encoding: chunked\r\n`,
        ) + `${CALL.length.toString(16)}\r\n${CALL}\r\n0\r\n\r\n`,
        post(`Host: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n`) + CALL,
        post(`Host: x\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n`) + CALL,
        post(`Host: x\r\nContent-Type: application/json\r\nContent-Length: -5\r\n`) + CALL,
        post(`Host: x\r\nContent-Type: application/json\r\nContent-Length: +${CALL.length}\r\n`) + CALL,
        post(`Content-Type: application/json\r\nContent-Length: ${CALL.length}\r\n`) + CALL,
      ];
      for (const head of heads) assert.deepEqual(await send(head), { bytes: '', closed: true }, JSON.stringify(head));
      await othersServed();
    },
  );

  test('uWS holds until its idle timeout, then closes unanswered and unserved: ' +
    'NUL or CR in a value, obs-fold, 49 headers, HTTP/1.0, bare LF', {
    timeout: 60_000,
  }, async () => {
    const headers = (count: number) => Array.from({ length: count }, (_, i) => `X-${i}: v\r\n`).join('');
    const length = `Content-Type: application/json\r\nContent-Length: ${CALL.length}\r\n`;
    const heads = [
      post(`Host: x\r\nX-A: a\0b\r\n${length}`) + CALL,
      post(`Host: x\r\nX-A: a\rb\r\n${length}`) + CALL,
      post(`Host: x\r\nX-A: a\r\n b\r\n${length}`) + CALL,
      post(`Host: x\r\n${headers(46)}${length}`) + CALL,
      post(`Host: x\r\n${length}`, 'HTTP/1.0') + CALL,
      post(`Host x\r\n${length}`) + CALL,
      `POST /v3/${dataset.key} HTTP/1.1\nHost: x\nContent-Type: ` +
        `application/json\nContent-Length: ${CALL.length}\n\n${CALL}`,
    ];
    // All at once: each waits out uWS's 10 s HTTP idle timeout.
    const got = await Promise.all(heads.map(send));
    for (const [i, received] of got.entries())
      assert.deepEqual(received, { bytes: '', closed: true }, JSON.stringify(heads[i]));
    // 48 header lines are still parsed: the limit above is uWS's, not a miscount here.
    assert.equal(parse(await send(post(`Host: x\r\n${headers(45)}${length}`) + CALL)).body.result, '0x9');
    await othersServed();
  });

  test(
    `a body nested deeper than ${MAX_JSON_DEPTH} levels gets -32600 ` +
      `without being parsed; ${MAX_JSON_DEPTH} levels are parsed`,
    async () => {
      const deep = await svc.post('['.repeat(2_500_000));
      assert.equal(deep.status, 200);
      assert.deepEqual((deep.json as RpcResponse).error, {
        code: -32600,
        message: `invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      });
      const nested = '['.repeat(MAX_JSON_DEPTH - 1) + ']'.repeat(MAX_JSON_DEPTH - 1);
      const atLimit = await svc.post(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[],"x":${nested}}`);
      assert.equal(
        (atLimit.json as RpcResponse).result,
        '0x9',
        'the call object and a member nested to exactly the limit',
      );
      await othersServed();
    },
  );
});

describe('strict WebSocket', () => {
  /** Opens a socket with the dataset's key. */
  const open = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${HOST}:${port}/ws/v3/${dataset.key}`);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });

  test('a 6 MiB message closes with 1009 and the reason; the service goes on', async () => {
    const before = await refusals('ws_message_too_large');
    const ws = await open();
    const closed = new Promise<[number, string]>((resolve) =>
      ws.once('close', (code, reason) => resolve([code, String(reason)])),
    );
    ws.send('['.repeat(6 * 1024 * 1024));
    assert.deepEqual(await closed, [1009, `message too large, limit ${MAX_BODY_BYTES} bytes`]);
    assert.equal(await refusals('ws_message_too_large'), before + 1);
    await othersServed();
  });

  test('a deeply nested message, eth_subscribe in it or not, gets -32600 and the socket stays', async () => {
    const ws = await open();
    const answers: RpcResponse[] = [];
    const next = () =>
      new Promise<void>((resolve) =>
        ws.once('message', (data) => (answers.push(JSON.parse(String(data)) as RpcResponse), resolve())),
      );
    for (const text of ['['.repeat(1_000_000), '{"method":"eth_subscribe","params":' + '['.repeat(1_000_000)]) {
      const got = next();
      ws.send(text);
      await got;
    }
    for (const answer of answers)
      assert.deepEqual(answer.error, {
        code: -32600,
        message: `invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      });
    const got = next();
    ws.send(CALL);
    await got;
    assert.equal(answers[2]!.result, '0x9', 'the socket answers on');
    ws.close();
    await othersServed();
  });
});
