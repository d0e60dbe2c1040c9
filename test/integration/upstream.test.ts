/**
 * Forwarding to an upstream node (serve --upstream) against a fake node (fakeNode.ts) through the
 * real service: what is sent (block tags pinned to the store's markers, calls chunked, methods off
 * the list never sent), how a node that hangs, drops the connection, answers HTTP 500, garbage or
 * a huge body is answered (-32011 / -32015 within the timeout, the service staying up), the circuit
 * breaker, the per-key budget of forwarded calls, the metrics, the access log, WebSocket and HTTP
 * threads, and the upstream URL's secrets absent from every answer and log line.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { type RunningService, type ServiceOptions, startService } from '#src/service.js';
import { type FakeNode, startFakeNode } from '../support/fakeNode.js';
import { makeDataset, type RpcResponse, type TestDataset } from '../support/harness.js';
import { type CapturedLogger, captureLogger } from '../support/logCapture.js';
import { until } from '../support/poll.js';

const BLOCKS = 40;
const HEAD = BLOCKS - 1;
const TIMEOUT_MS = 300;
const MAX_RESPONSE_BYTES = 1_000_000;

/** The secrets of the upstream URL: its user part, a key in its path, one in its query. */
const USER_SECRET = 'userpw-9f3c1d';
const PATH_SECRET = 'pathkey-77ab02';
const QUERY_SECRET = 'querykey-51e0aa';

let dataset: TestDataset;
let node: FakeNode;
let upstreamUrl: string;
let logs: CapturedLogger;
let svc: RunningService;
/** Every answer body any test read, for the secrets check. */
const bodies: string[] = [];

/** Starts the service over the dataset forwarding to the fake node, with `extra` options. */
function start(
  extra: Partial<ServiceOptions> = {},
  upstream: Partial<NonNullable<ServiceOptions['upstream']>> = {},
): Promise<RunningService> {
  return startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: logs.logger,
    threads: 1,
    httpThreads: 1,
    upstream: {
      url: upstreamUrl,
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      headWaitMs: 50,
      breaker: { failures: 3, baseMs: 200, maxMs: 400 },
      ...upstream,
    },
    ...extra,
  });
}

/** POSTs `body` to `service` and returns the parsed answer (kept for the secrets check). */
async function post(body: unknown, service = svc, key = dataset.key): Promise<unknown> {
  const res = await fetch(`${service.url}/v3/${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  bodies.push(text);
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as unknown;
}

/** Calls `method` with `params` and returns the whole response. */
async function call(method: string, params: unknown[] = [], service = svc): Promise<RpcResponse> {
  return (await post({ jsonrpc: '2.0', id: 7, method, params }, service)) as RpcResponse;
}

/** The params the fake received in the echo `response`. */
function sentParams(response: RpcResponse): unknown[] {
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  return (response.result as { params: unknown[] }).params;
}

/** Asserts a forwarded call still goes through (the service is up and the breaker closed). */
async function stillForwards(): Promise<void> {
  node.fate = () => 'echo';
  const res = await call('eth_gasPrice');
  assert.deepEqual(res.result, { method: 'eth_gasPrice', params: [] });
}

before(async () => {
  dataset = await makeDataset(BLOCKS, 0.05, 'upstream');
  node = await startFakeNode();
  upstreamUrl = `http://user:${USER_SECRET}@127.0.0.1:${node.port}/v2/${PATH_SECRET}?apikey=${QUERY_SECRET}`;
  logs = captureLogger('debug');
  svc = await start();
});

after(async () => {
  await svc.close();
  await node.close();
  dataset.remove();
});

describe('what is sent', () => {
  test('latest, safe and finalized are pinned to the store; pending, hashes and numbers go as they are', async () => {
    const safe = Number(((await call('eth_getBlockByNumber', ['safe', false])).result as { number: string }).number);
    const finalized = Number(
      ((await call('eth_getBlockByNumber', ['finalized', false])).result as { number: string }).number,
    );
    assert.ok(safe > 0 && safe < HEAD, `safe ${safe} trails the head`);
    const hex = (n: number) => '0x' + n.toString(16);
    const to = '0x' + '11'.repeat(20);
    const hash = '0x' + 'ab'.repeat(32);
    const cases: [string, unknown[], unknown[]][] = [
      ['eth_call', [{ to }, 'latest'], [{ to }, hex(HEAD)]],
      ['eth_call', [{ to }], [{ to }, hex(HEAD)]],
      ['eth_call', [{ to }, 'safe'], [{ to }, hex(safe)]],
      ['eth_getBalance', [to, 'finalized'], [to, hex(finalized)]],
      ['eth_getBalance', [to, 'pending'], [to, 'pending']],
      ['eth_getBalance', [to, '0x5'], [to, '0x5']],
      ['eth_getCode', [to, { blockNumber: 'latest' }], [to, { blockNumber: hex(HEAD) }]],
      ['eth_getCode', [to, { blockHash: hash }], [to, { blockHash: hash }]],
      ['eth_getTransactionCount', [to, 'earliest'], [to, 'earliest']],
      ['eth_getProof', [to, [], 'latest'], [to, [], hex(HEAD)]],
      ['eth_feeHistory', ['0x4', 'latest', [50]], ['0x4', hex(HEAD), [50]]],
      ['debug_traceBlockByNumber', ['latest', { tracer: 'callTracer' }], [hex(HEAD), { tracer: 'callTracer' }]],
      ['debug_traceBlockByHash', [hash, {}], [hash, {}]],
      ['trace_block', ['finalized'], [hex(finalized)]],
      ['trace_filter', [{ fromBlock: '0x1' }], [{ fromBlock: '0x1', toBlock: hex(HEAD) }]],
      ['eth_gasPrice', [], []],
    ];
    for (const [method, params, sent] of cases)
      assert.deepEqual(sentParams(await call(method, params)), sent, `${method} ${JSON.stringify(params)}`);
  });

  test('a block above the head waits for it, then is refused naming the head', async () => {
    const before = node.requests.length;
    const res = await call('eth_getBalance', ['0x' + '11'.repeat(20), '0x' + (HEAD + 1).toString(16)]);
    assert.equal(res.error?.code, -32000);
    assert.match(res.error!.message, /^header not found: block 0x28 is beyond this store's head 0x27$/);
    assert.equal(node.requests.length, before, 'the node was not asked');
  });

  test('methods not on the list are refused without reaching the node', async () => {
    const before = node.requests.length;
    for (const method of [
      'admin_nodeInfo',
      'personal_unlockAccount',
      'miner_start',
      'debug_setHead',
      'eth_sendTransaction',
      'eth_sendRawTransaction',
      'eth_accounts',
      'anvil_mine',
      'made_up',
    ]) {
      const res = await call(method, []);
      assert.equal(res.error?.code, -32601, method);
      assert.match(
        res.error!.message,
        new RegExp(`^the method ${method} does not exist/is not available; ethlogd does not forward it`),
      );
    }
    const batch = (await post([
      { jsonrpc: '2.0', id: 1, method: 'admin_peers', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ])) as RpcResponse[];
    assert.equal(batch[0]!.error?.code, -32601);
    assert.equal(node.requests.length, before, 'the node was not asked');
  });

  test('a mixed batch is answered in order with its ids; forwarded calls go in chunks of at most 100', async () => {
    const before = node.requests.length;
    const batch: unknown[] = [];
    for (let i = 0; i < 250; i++) {
      const kind = i % 5;
      const id = `c${i}`;
      if (kind === 0) batch.push({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] });
      else if (kind === 1)
        batch.push({ jsonrpc: '2.0', id, method: 'eth_getBalance', params: ['0x' + '22'.repeat(20), 'latest'] });
      else if (kind === 2) batch.push({ jsonrpc: '2.0', id, method: 'eth_getBlockByNumber', params: ['0x3', false] });
      else if (kind === 3)
        batch.push({
          jsonrpc: '2.0',
          id,
          method: 'eth_call',
          params: [{ data: '0x' + i.toString(16).padStart(2, '0') }, '0x2'],
        });
      else batch.push({ jsonrpc: '2.0', id, method: 'eth_gasPrice' });
    }
    const answers = (await post(batch)) as RpcResponse[];
    assert.equal(answers.length, batch.length);
    answers.forEach((answer, i) => {
      assert.equal(answer.id, `c${i}`);
      assert.equal(answer.error, undefined, JSON.stringify(answer));
      const kind = i % 5;
      if (kind === 0) assert.equal(answer.result, '0x' + HEAD.toString(16));
      else if (kind === 2) assert.equal((answer.result as { number: string }).number, '0x3');
      else assert.equal((answer.result as { method: string }).method, (batch[i] as { method: string }).method);
      if (kind === 3)
        assert.deepEqual((answer.result as { params: unknown[] }).params[0], {
          data: '0x' + i.toString(16).padStart(2, '0'),
        });
    });
    const sent = node.requests.slice(before);
    assert.equal(
      sent.reduce((n, r) => n + r.calls.length, 0),
      150,
      'the 150 forwarded calls reached the node',
    );
    assert.deepEqual(
      sent.map((r) => r.calls.length).sort((a, b) => a - b),
      [50, 100],
    );
  });
});

describe('a node that fails', () => {
  test('killed mid-batch: the calls of the dropped chunk get -32011, the others their answers', async () => {
    let chunk = 0;
    // Every request after the first chunk is killed: also the one resent on a fresh connection.
    node.fate = (request) => (request.batch && ++chunk >= 2 ? 'kill' : 'echo');
    const batch = Array.from({ length: 150 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_gasPrice',
      params: [],
    }));
    const answers = (await post(batch)) as RpcResponse[];
    const codes = answers.map((a) => a.error?.code ?? 0);
    const failed = codes.filter((code) => code === -32011).length;
    assert.ok(failed === 100 || failed === 50, `one chunk failed: ${failed}`);
    assert.equal(codes.filter((code) => code === 0).length, 150 - failed);
    const message = answers.find((a) => a.error)!.error!.message;
    assert.match(message, /^no backend available: the upstream node closed the connection/);
    await stillForwards();
  });

  test('a kept-alive connection dropped as it is reused: the request is sent again on a fresh one', async () => {
    await stillForwards();
    const killAt = node.requests.length + 1;
    node.fate = (_, n) => (n === killAt ? 'kill' : 'echo');
    const res = await call('eth_gasPrice');
    assert.deepEqual(res.result, { method: 'eth_gasPrice', params: [] });
    assert.equal(node.requests.length, killAt + 1, 'sent twice');
  });

  test('slow: -32015 within the timeout', async () => {
    node.fate = () => 'hang';
    const started = performance.now();
    const res = await call('eth_gasPrice');
    assert.equal(res.error?.code, -32015);
    assert.equal(res.error!.message, `gateway timeout: the upstream node did not answer within ${TIMEOUT_MS} ms`);
    assert.ok(performance.now() - started >= TIMEOUT_MS);
    await stillForwards();
  });

  for (const [what, fate, reason] of [
    ['HTTP 500', { status: 500, body: 'internal error: execution reverted' }, 'answered HTTP 500'],
    ['invalid JSON', { status: 200, body: '{"jsonrpc":"2.0","id":0,"result":' }, 'answered with invalid JSON'],
    ['not JSON-RPC', { status: 200, body: '"vm execution error"' }, 'answered with something that is not JSON-RPC'],
    [
      'a huge body',
      { status: 200, body: Buffer.alloc(2 * MAX_RESPONSE_BYTES, 0x20) },
      `answered more than ${MAX_RESPONSE_BYTES} bytes`,
    ],
  ] as const) {
    test(`${what}: -32011, worded as no backend and never as a revert`, async () => {
      node.fate = () => fate;
      const res = await call('eth_call', [{ to: '0x' + '11'.repeat(20) }, 'latest']);
      assert.equal(res.error?.code, -32011);
      assert.equal(res.error!.message, `no backend available: the upstream node ${reason}; retry later`);
      assert.doesNotMatch(res.error!.message, /revert|out of gas|vm execution error/i);
      await stillForwards();
    });
  }

  test('the node refusing the connection: -32011', async () => {
    const closed = await startFakeNode();
    const port = closed.port;
    await closed.close();
    const other = await start({}, { url: `http://127.0.0.1:${port}` });
    try {
      const res = await call('eth_gasPrice', [], other);
      assert.equal(res.error?.code, -32011);
      assert.equal(res.error!.message, 'no backend available: the upstream node refused the connection; retry later');
    } finally {
      await other.close();
    }
  });

  test('the circuit breaker opens after failures in a row, fails fast, and closes after a good probe', async () => {
    node.fate = () => ({ status: 503, body: 'down' });
    for (let i = 0; i < 3; i++) assert.equal((await call('eth_gasPrice')).error?.code, -32011);
    const before = node.requests.length;
    const fast = await call('eth_gasPrice');
    assert.equal(fast.error?.code, -32011);
    assert.match(
      fast.error!.message,
      new RegExp(
        '^no backend available: the upstream node is failing: ' +
          'its circuit breaker is open, next try in \\d+ ms; retry later$',
      ),
    );
    assert.equal(node.requests.length, before, 'an open breaker sends nothing');
    node.fate = () => 'echo';
    await until(async () => (await call('eth_gasPrice')).error === undefined, 'the probe closes the breaker', 5_000);
    assert.equal((await call('eth_gasPrice')).error, undefined);
  });
});

describe('around the forwarding', () => {
  test('the node errors pass through unchanged', async () => {
    const error = { code: 3, message: 'execution reverted: fail', data: '0x08c379a0' + '00'.repeat(4) };
    node.fate = () => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 0, error }) });
    const res = await call('eth_call', [{ to: '0x' + '11'.repeat(20) }, 'latest']);
    assert.deepEqual(res.error, error);
    node.fate = () => 'echo';
  });

  test('forwarded calls have their own per-key budget', async () => {
    const limited = await start({}, { rateLimit: { perSecond: 0.001, burst: 3 } });
    try {
      const over = (await post(
        Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_gasPrice', params: [] })),
        limited,
      )) as RpcResponse[];
      assert.deepEqual(
        over.map((a) => a.error?.message),
        Array(4).fill('batch of 4 calls exceeds the rate limit burst of 3'),
      );
      for (let i = 0; i < 3; i++) assert.equal((await call('eth_gasPrice', [], limited)).error, undefined);
      const refused = await call('eth_gasPrice', [], limited);
      assert.equal(refused.error?.code, -32005);
      assert.equal(refused.error?.message, 'project ID request rate exceeded');
      // The store's own calls are not counted against it.
      assert.equal((await call('eth_blockNumber', [], limited)).error, undefined);
    } finally {
      await limited.close();
    }
  });

  test('metrics count forwarded calls by method and outcome, with their latency', async () => {
    const text = await (await fetch(`${svc.url}/metrics`)).text();
    const value = (selector: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${selector} `))
          ?.slice(selector.length + 1) ?? 0,
      );
    assert.ok(value('ethlogd_upstream_requests_total{method="eth_gasPrice",outcome="ok"}') > 150);
    assert.ok(value('ethlogd_upstream_requests_total{method="eth_gasPrice",outcome="timeout"}') >= 1);
    assert.ok(value('ethlogd_upstream_requests_total{method="eth_call",outcome="unavailable"}') >= 4);
    assert.ok(value('ethlogd_upstream_requests_total{method="eth_call",outcome="node_error"}') >= 1);
    assert.ok(value('ethlogd_upstream_request_duration_seconds_count{method="eth_gasPrice"}') > 150);
  });

  test('the access log marks forwarded calls', async () => {
    const from = logs.lines.length;
    await post([
      { jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_getCode', params: ['0x' + '11'.repeat(20), 'latest'] },
    ]);
    await call('eth_chainId');
    const lines = await logs.waitFor((r) => r.msg === 'request' && r.path === 'rpc', 2, from);
    assert.equal(lines[0]!.forwarded, 2);
    assert.equal(lines[1]!.forwarded, undefined);
  });

  test('WebSocket forwards too', async () => {
    const socket = new WebSocket(`${svc.url.replace('http', 'ws')}/ws/v3/${dataset.key}`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const answer = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ['0x' + '11'.repeat(20), 'latest'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
      ]),
    );
    const text = await answer;
    bodies.push(text);
    socket.close();
    const [balance, head] = JSON.parse(text) as RpcResponse[];
    assert.deepEqual(balance!.result, {
      method: 'eth_getBalance',
      params: ['0x' + '11'.repeat(20), '0x' + HEAD.toString(16)],
    });
    assert.equal(head!.result, '0x' + HEAD.toString(16));
  });

  test('HTTP threads forward through the main thread', async () => {
    const threaded = await start({ httpThreads: 2 });
    try {
      const answers = await Promise.all(
        Array.from(
          { length: 40 },
          () =>
            new Promise<string>((resolve, reject) => {
              const body = JSON.stringify({
                jsonrpc: '2.0',
                id: 1,
                method: 'eth_getTransactionCount',
                params: ['0x' + '33'.repeat(20), 'latest'],
              });
              const req = http.request(
                `${threaded.url}/v3/${dataset.key}`,
                { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } },
                (res) => {
                  const parts: Buffer[] = [];
                  res.on('data', (part: Buffer) => parts.push(part));
                  res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
                },
              );
              req.on('error', reject);
              req.end(body);
            }),
        ),
      );
      for (const text of answers)
        assert.deepEqual((JSON.parse(text) as RpcResponse).result, {
          method: 'eth_getTransactionCount',
          params: ['0x' + '33'.repeat(20), '0x' + HEAD.toString(16)],
        });
      const metrics = await (await fetch(`${threaded.url}/metrics`)).text();
      const thread1 = Number(/^ethlogd_http_thread_responses_total\{thread="1"\} (\S+)$/m.exec(metrics)?.[1] ?? 0);
      assert.ok(thread1 > 0, 'thread 1 answered some');
    } finally {
      await threaded.close();
    }
  });

  test('the upstream URL and its secrets appear in no answer and no log line', () => {
    assert.ok(
      logs.lines.some((line) => line.includes('upstream: request failed')),
      'the failures were logged',
    );
    for (const text of [...bodies, ...logs.lines]) {
      for (const secret of [USER_SECRET, PATH_SECRET, QUERY_SECRET, upstreamUrl, `127.0.0.1:${node.port}`])
        assert.ok(!text.includes(secret), `${secret} in ${text.slice(0, 300)}`);
    }
    // The node got them: the key in the path and query, the user part as basic authentication.
    const sent = node.requests[0]!;
    assert.equal(sent.url, `/v2/${PATH_SECRET}?apikey=${QUERY_SECRET}`);
    assert.equal(sent.authorization, `Basic ${Buffer.from(`user:${USER_SECRET}`).toString('base64')}`);
  });
});
