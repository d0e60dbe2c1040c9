/**
 * The access log of a real service, its pino output captured in memory: one info line per HTTP
 * request with the kind of path, the JSON-RPC methods (an unknown one by its name, cut short) and
 * error codes, the status, duration, body bytes in and out (out as sent, compressed) and the key's
 * id, the API key itself nowhere in the output; refusals (401, 413) logged; sampling (one in N,
 * refusals always) and off; and `serve --http-threads 2` in a child process, whose every stderr
 * line is a whole JSON line, the worker thread's request lines among them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { MAX_BODY_BYTES } from '#src/config.js';
import type { AccessLogMode } from '#src/http/accessLog.js';
import { MAX_TRACED_METHOD_CHARS } from '#src/rpc/observe.js';
import { type RunningService, startService } from '#src/service.js';
import { startCli } from '../support/child.js';
import { exchange, makeDataset, type TestDataset } from '../support/harness.js';
import { type CapturedLogger, captureLogger, type LogRecord } from '../support/logCapture.js';

let dataset: TestDataset;

before(async () => {
  dataset = await makeDataset(20, 0.3, 'access-log');
});

after(() => dataset.remove());

/**
 * A service over the dataset with one HTTP thread (its lines are written before its answers go out) logging into
 * `captured`.
 */
function serve(captured: CapturedLogger, accessLog?: AccessLogMode): Promise<RunningService> {
  return startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: captured.logger,
    threads: 1,
    httpThreads: 1,
    accessLog,
  });
}

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });

/** POSTs `body` (serialised) to `/v3/<key>` and returns the status. */
async function post(service: RunningService, key: string, body: unknown): Promise<number> {
  return (await exchange(`${service.url}/v3/${key}`, { body: JSON.stringify(body) })).status;
}

/** The id the log shows for `key`: the first 8 hex digits of its sha256. */
const idOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** Whether `record` is an access log line. */
const isRequest = (record: LogRecord) => record.msg === 'request';

/**
 * Opens a WebSocket to `url` and resolves with the upgrade's status: 101 when it opened (then closes it), else the
 * refusal's.
 */
function upgrade(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    socket.once('error', reject);
  });
}

describe('one line per request', () => {
  let captured: CapturedLogger;
  let service: RunningService;

  before(async () => {
    captured = captureLogger('info');
    service = await serve(captured);
  });

  after(() => service.close());

  test('every kind of request gets its line: methods, codes, status, bytes and the key id; never the key', async () => {
    const from = captured.lines.length;
    const rpc = `${service.url}/v3/${dataset.key}`;
    const unknown = `eth_${'x'.repeat(100)}`;
    const logsBody = JSON.stringify(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]));

    assert.equal(await post(service, dataset.key, call('eth_chainId')), 200);
    assert.equal(
      await post(service, dataset.key, [
        call('eth_blockNumber', [], 1),
        call('eth_chainId', [], 2),
        call('eth_blockNumber', [], 3),
        call(unknown, [], 4),
      ]),
      200,
    );
    assert.equal(await post(service, dataset.key, call('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }])), 200);
    const logs = await exchange(rpc, { body: logsBody, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(logs.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(logs.body).length > logs.body.length);
    assert.equal(await post(service, dataset.revokedKey, call('eth_chainId')), 401);
    assert.equal(await post(service, '', call('eth_chainId')), 401);
    assert.equal((await exchange(rpc, { body: '{}', headers: { 'content-type': 'text/plain' } })).status, 415);
    const tooLarge = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    assert.equal((await exchange(rpc, { body: tooLarge })).status, 413);
    assert.equal((await exchange(`${service.url}/health`, { method: 'GET' })).status, 200);
    assert.equal((await exchange(`${service.url}/ready`, { method: 'HEAD' })).status, 200);
    assert.equal((await exchange(`${service.url}/metrics`, { method: 'GET' })).status, 200);
    assert.equal((await exchange(`${service.url}/nowhere/${dataset.key}`, { method: 'GET' })).status, 404);
    assert.equal((await exchange(rpc, { method: 'OPTIONS' })).status, 204);
    assert.equal((await exchange(rpc, { method: 'GET' })).status, 405);
    assert.equal(await upgrade(`${service.url.replace('http', 'ws')}/ws/v3/${dataset.key}`), 101);
    assert.equal(await upgrade(`${service.url.replace('http', 'ws')}/ws/v3/${dataset.revokedKey}`), 401);

    const lines = await captured.waitFor(isRequest, 16, from);
    assert.equal(lines.length, 16, 'one line per request');
    const pick = (line: LogRecord, fields: string[]) => Object.fromEntries(fields.map((f) => [f, line[f]]));
    for (const line of lines) {
      assert.equal(line.level, 'info');
      assert.ok(typeof line.ms === 'number' && line.ms >= 0, `ms ${String(line.ms)}`);
      assert.ok(typeof line.bytesIn === 'number' && typeof line.bytesOut === 'number');
    }
    const [
      single,
      batch,
      invalid,
      getLogs,
      revoked,
      missing,
      unsupported,
      large,
      health,
      ready,
      metrics,
      nowhere,
      preflight,
      get,
      ws,
      wsRevoked,
    ] = lines as LogRecord[];
    const rpcFields = ['path', 'http', 'status', 'methods', 'calls', 'errors', 'codes', 'batch', 'key', 'encoding'];
    assert.deepEqual(pick(single!, rpcFields), {
      path: 'rpc',
      http: 'POST',
      status: 200,
      methods: ['eth_chainId'],
      calls: 1,
      errors: 0,
      codes: [],
      batch: false,
      key: idOf(dataset.key),
      encoding: undefined,
    });
    assert.deepEqual(single!.bytesIn, JSON.stringify(call('eth_chainId')).length);
    assert.deepEqual(single!.bytesOut, '{"jsonrpc":"2.0","id":1,"result":"0x1"}'.length);
    assert.deepEqual(pick(batch!, ['methods', 'calls', 'errors', 'codes', 'batch']), {
      methods: ['eth_blockNumber', 'eth_chainId', `${unknown.slice(0, MAX_TRACED_METHOD_CHARS)}…`],
      calls: 4,
      errors: 1,
      codes: [-32601],
      batch: true,
    });
    assert.deepEqual(pick(invalid!, ['status', 'methods', 'errors', 'codes']), {
      status: 200,
      methods: ['eth_getLogs'],
      errors: 1,
      codes: [-32602],
    });
    assert.deepEqual(pick(getLogs!, ['status', 'methods', 'encoding', 'bytesIn', 'bytesOut']), {
      status: 200,
      methods: ['eth_getLogs'],
      encoding: 'gzip',
      bytesIn: logsBody.length,
      bytesOut: logs.body.length,
    });
    assert.deepEqual(pick(revoked!, ['path', 'status', 'calls', 'key']), {
      path: 'rpc',
      status: 401,
      calls: 0,
      key: idOf(dataset.revokedKey),
    });
    assert.deepEqual(pick(missing!, ['path', 'status', 'key']), { path: 'rpc', status: 401, key: undefined });
    assert.equal(unsupported!.status, 415);
    // Refused by its Content-Length before any of the body is read.
    assert.deepEqual(pick(large!, ['path', 'status', 'bytesIn', 'key']), {
      path: 'rpc',
      status: 413,
      bytesIn: 0,
      key: idOf(dataset.key),
    });
    assert.deepEqual(pick(health!, ['path', 'http', 'status', 'bytesOut', 'key', 'methods']), {
      path: 'health',
      http: 'GET',
      status: 200,
      bytesOut: '{"status":"ok"}'.length,
      key: undefined,
      methods: undefined,
    });
    assert.deepEqual(pick(ready!, ['path', 'http', 'status', 'bytesOut']), {
      path: 'ready',
      http: 'HEAD',
      status: 200,
      bytesOut: 0,
    });
    assert.deepEqual(pick(metrics!, ['path', 'status']), { path: 'metrics', status: 200 });
    assert.deepEqual(pick(nowhere!, ['path', 'http', 'status', 'key']), {
      path: 'not-found',
      http: 'GET',
      status: 404,
      key: undefined,
    });
    assert.deepEqual(pick(preflight!, ['path', 'http', 'status']), { path: 'rpc', http: 'OPTIONS', status: 204 });
    assert.deepEqual(pick(get!, ['path', 'http', 'status']), { path: 'rpc', http: 'GET', status: 405 });
    assert.deepEqual(pick(ws!, ['path', 'http', 'status', 'key']), {
      path: 'ws-upgrade',
      http: 'GET',
      status: 101,
      key: idOf(dataset.key),
    });
    assert.deepEqual(pick(wsRevoked!, ['path', 'status', 'key']), {
      path: 'ws-upgrade',
      status: 401,
      key: idOf(dataset.revokedKey),
    });

    const output = captured.lines.join('\n');
    for (const secret of [dataset.key, dataset.revokedKey])
      assert.ok(!output.includes(secret), 'no API key in the log');
    assert.ok(!output.includes('/v3/'), 'no API path in the log');
  });

  test('a client that leaves before its answer is logged as 499', async () => {
    const from = captured.lines.length;
    const socket = net.connect(service.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /v3/${dataset.key} HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
        'application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
    );
    socket.end();
    const [line] = await captured.waitFor(isRequest, 1, from);
    assert.deepEqual({ status: line!.status, key: line!.key }, { status: 499, key: idOf(dataset.key) });
  });
});

describe('sampling and off', () => {
  test('sample:3 writes one line in three, and every 401 and 413', async () => {
    const captured = captureLogger('info');
    const service = await serve(captured, { sample: 3 });
    try {
      for (let i = 1; i <= 7; i++) assert.equal(await post(service, dataset.key, call('eth_chainId', [], i)), 200);
      assert.equal(await post(service, dataset.revokedKey, call('eth_chainId', [], 8)), 401);
      assert.equal(
        (await exchange(`${service.url}/v3/${dataset.key}`, { body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20) })).status,
        413,
      );
      for (let i = 10; i <= 12; i++) assert.equal(await post(service, dataset.key, call('eth_chainId', [], i)), 200);
      const lines = await captured.waitFor(isRequest, 5);
      assert.deepEqual(
        lines.map((l) => l.status),
        [200, 200, 401, 413, 200],
        'requests 3 and 6, the 401 and the 413, and request 12',
      );
    } finally {
      await service.close();
    }
  });

  test('off writes no request line, and neither does a logger above info; other lines still come', async () => {
    for (const [captured, mode] of [
      [captureLogger('info'), 'off'],
      [captureLogger('warn'), 'on'],
    ] as const) {
      const service = await serve(captured, mode);
      try {
        assert.equal(await post(service, dataset.key, call('eth_chainId')), 200);
        assert.equal(await post(service, dataset.revokedKey, call('eth_chainId')), 401);
      } finally {
        await service.close();
      }
      assert.equal(captured.records().filter(isRequest).length, 0, mode);
    }
    const quiet = captureLogger('info');
    const service = await serve(quiet, 'off');
    await service.close();
    assert.ok(
      quiet.records().some((r) => r.level === 'info' && String(r.msg).startsWith('listening on http://')),
      'info lines still are',
    );
  });

  test('a bad sample is refused before anything opens', async () => {
    await assert.rejects(serve(captureLogger('info'), { sample: 0 }), /access log sample 0/);
  });
});

describe('serve --http-threads 2 in a child process', () => {
  test(
    'every stderr line is one whole JSON line; ' + "each request has its line, the worker thread's among them",
    async () => {
      const cli = startCli(['serve', '--data', dataset.dir, '--port', '0', '--threads', '1', '--http-threads', '2']);
      try {
        const [first] = (await once(createInterface({ input: cli.child.stdout! }), 'line')) as [string];
        const url = /^listening on (http:\/\/\S+)$/.exec(first)![1]!;
        const REQUESTS = 48;
        // Each on a connection of its own, so the kernel spreads them over both threads.
        await Promise.all(
          Array.from({ length: REQUESTS }, async (_, i) => {
            const res = await exchange(`${url}/v3/${dataset.key}`, {
              body: JSON.stringify(call('eth_chainId', [], i)),
              headers: { connection: 'close' },
            });
            assert.equal(res.status, 200);
          }),
        );
        const logged = () => (cli.stderr().match(/"msg":"request"/g) ?? []).length;
        while (logged() < REQUESTS)
          await Promise.race([
            once(cli.child.stderr!, 'data'),
            cli.exited.then((code) => Promise.reject(new Error(`serve exited (${code}):\n${cli.stderr()}`))),
          ]);
        const lines = cli
          .stderr()
          .split('\n')
          .filter((line) => line !== '');
        const records = lines.map((line) => JSON.parse(line) as LogRecord);
        const requests = records.filter(isRequest);
        assert.equal(requests.length, REQUESTS);
        assert.ok(
          requests.some((r) => r.thread === 1),
          "the worker thread's lines reach stderr",
        );
        assert.ok(!cli.stderr().includes(dataset.key));
      } finally {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
    },
  );
});
