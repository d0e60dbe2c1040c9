/**
 * `httpThreads: 2` over real sockets: one uWS app on the main thread and one in a worker, both on
 * the service's port. Each request goes on a fresh connection, so the kernel spreads them over
 * both apps; which thread answered is read from `ethlogd_http_thread_responses_total` scraped
 * before and after it. Checked: both threads answer and /metrics counts them all; every answer
 * (point lookups, eth_getLogs small, large and over the cap, errors, refusals) is byte for byte the
 * same from both threads and from a one-thread service; each thread answers small eth_getLogs
 * inline and hands large ones to the pool, and /metrics counts both; a key revoked through another store handle
 * (by another process) is refused by both; the rate limit is one per key across threads; a port another socket holds is
 * refused; close() drains both and leaves no thread running.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createLogger } from '#src/logger.js';
import { REVOKED_KEY_MESSAGE, UNAUTHORIZED } from '#src/rpc/errors.js';
import { type RunningService, type ServiceOptions, startService } from '#src/service.js';
import { makeDataset, type TestDataset } from '../support/harness.js';

const BLOCKS = 200;
const DENSITY = 0.05;
/** Under the ~4,800 logs of the whole chain, over the ~2,500 of its first half: the cap error and a large answer. */
const MAX_RESULTS = 3_000;
/** Fresh connections tried until both threads have answered a request (a thread missing all of them: odds 2^-63). */
const MAX_TRIES = 64;
const THREAD_SERIES = 'ethlogd_http_thread_responses_total';
const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;
const run = promisify(execFile);

let dataset: TestDataset;
let threaded: RunningService;
let single: RunningService;

/** Starts the service over the dataset with `httpThreads` and any other options. */
function start(httpThreads: number, extra: Partial<ServiceOptions> = {}): Promise<RunningService> {
  return startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    threads: 1,
    httpThreads,
    limits: { maxResults: MAX_RESULTS },
    ...extra,
  });
}

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, 'http-threads');
  threaded = await start(2);
  single = await start(1);
});

after(async () => {
  await Promise.all([threaded.close(), single.close()]);
  dataset.remove();
});

/** A response read whole. */
interface Answer {
  status: number;
  body: string;
}

/** Sends a request on a connection of its own (no agent, `Connection: close`). */
function send(
  svc: RunningService,
  path: string,
  init: { method?: string; body?: string; contentType?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'close' };
    if (init.contentType !== undefined) headers['content-type'] = init.contentType;
    const req = http.request(
      { host: svc.host, port: svc.port, path, method: init.method ?? 'GET', agent: false, headers },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** POSTs a JSON body to `/v3/<key>` on a connection of its own. */
function post(svc: RunningService, body: unknown, key = dataset.key): Promise<Answer> {
  return send(svc, `/v3/${key}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    contentType: 'application/json',
  });
}

/** The text of a scrape of /metrics (on any thread). */
async function scrape(svc: RunningService): Promise<string> {
  const { status, body } = await send(svc, '/metrics');
  assert.equal(status, 200);
  return body;
}

/** The value of the series written exactly `selector` (name and labels) in a scrape, 0 when absent. */
function sample(text: string, selector: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${selector} `));
  return line === undefined ? 0 : Number(line.slice(selector.length + 1));
}

/** The responses counted per HTTP thread, by thread number. */
async function threadResponses(svc: RunningService): Promise<Map<string, number>> {
  const text = await scrape(svc);
  return new Map(
    [...text.matchAll(new RegExp(`^${THREAD_SERIES}\\{thread="(\\d+)"\\} (\\S+)$`, 'gm'))].map((m) => [
      m[1]!,
      Number(m[2]),
    ]),
  );
}

/** The thread whose response counter moved between two scrapes (exactly one must have). */
function threadBetween(before: Map<string, number>, after: Map<string, number>): string {
  const moved = [...after].filter(([thread, n]) => n !== (before.get(thread) ?? 0)).map(([thread]) => thread);
  assert.equal(moved.length, 1, `one thread answered: ${JSON.stringify([...before])} → ${JSON.stringify([...after])}`);
  return moved[0]!;
}

/** An answer and the thread that gave it. */
interface ThreadAnswer {
  thread: string;
  answer: Answer;
}

/**
 * Runs `request` on fresh connections until both threads have answered it; the answers in order, with their threads.
 */
async function fromEveryThread(svc: RunningService, request: () => Promise<Answer>): Promise<ThreadAnswer[]> {
  const answers: ThreadAnswer[] = [];
  const threads = new Set<string>();
  for (let i = 0; i < MAX_TRIES && threads.size < 2; i++) {
    const before = await threadResponses(svc);
    const answer = await request();
    const thread = threadBetween(before, await threadResponses(svc));
    threads.add(thread);
    answers.push({ thread, answer });
  }
  assert.deepEqual([...threads].sort(), ['0', '1'], 'both threads answered');
  return answers;
}

/** Asserts that both threads answer `body` as the one-thread service does, byte for byte; returns that answer. */
async function sameEverywhere(body: unknown, key = dataset.key): Promise<Answer> {
  const expected = await post(single, body, key);
  for (const { thread, answer } of await fromEveryThread(threaded, () => post(threaded, body, key)))
    assert.deepEqual(answer, expected, `thread ${thread}`);
  return expected;
}

/**
 * GETs `path` on fresh connections (enough to reach both threads); asserts every answer is 200 and the same, and
 * returns its body.
 */
async function sameOnFreshConnections(path: string): Promise<string> {
  const bodies = new Set<string>();
  for (let i = 0; i < 16; i++) {
    const { status, body } = await send(threaded, path);
    assert.equal(status, 200, path);
    bodies.add(body);
  }
  assert.equal(bodies.size, 1, `${path} answers the same`);
  return [...bodies][0]!;
}

const call = (method: string, params: unknown[], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

/** The threads of this process now (Linux: one entry per thread in /proc/self/task). */
const processThreads = () => readdirSync('/proc/self/task').length;

describe('two HTTP threads on one port', () => {
  test('fresh connections reach both threads, and /metrics counts every thread', async () => {
    const REQUESTS = 32;
    const CHAIN_ID_OK = 'ethlogd_rpc_requests_total{method="eth_chainId",outcome="ok"}';
    const OK = 'ethlogd_http_responses_total{status="200"}';
    const before = await scrape(threaded);
    const threadsBefore = await threadResponses(threaded);
    for (let i = 0; i < REQUESTS; i++) {
      const { status, body } = await post(threaded, call('eth_chainId', [], i));
      assert.equal(status, 200);
      assert.deepEqual(JSON.parse(body), { jsonrpc: '2.0', id: i, result: '0x1' });
    }
    const after = await scrape(threaded);
    const threadsAfter = await threadResponses(threaded);
    const moved = ['0', '1'].map((thread) => threadsAfter.get(thread)! - (threadsBefore.get(thread) ?? 0));
    assert.ok(
      moved.every((n) => n > 0),
      `responses per thread: ${moved.join(', ')}`,
    );
    assert.equal(moved[0]! + moved[1]!, REQUESTS);
    assert.equal(sample(after, CHAIN_ID_OK) - sample(before, CHAIN_ID_OK), REQUESTS, "every thread's calls");
    assert.equal(sample(after, OK) - sample(before, OK), REQUESTS, "every thread's responses");
    assert.equal(
      sample(after, 'ethlogd_rpc_request_duration_seconds_count{method="eth_chainId"}'),
      sample(after, CHAIN_ID_OK),
      'the histogram too',
    );
  });

  test('every answer is byte for byte the same from both threads and from a one-thread service', async () => {
    const all = JSON.parse((await post(single, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x63' }]))).body) as {
      result: { transactionHash: string; address: string; topics: string[] }[];
    };
    assert.ok(
      all.result.length > 1_000 && all.result.length <= MAX_RESULTS,
      `${all.result.length} logs in the first half`,
    );
    const log = all.result[all.result.length - 1]!;
    const cases: [string, unknown, string?][] = [
      ['eth_blockNumber', call('eth_blockNumber', [])],
      ['eth_getBlockByNumber (full)', call('eth_getBlockByNumber', ['0x10', true])],
      ['eth_getTransactionByHash', call('eth_getTransactionByHash', [log.transactionHash], 'tx')],
      ['eth_getStorageAt', call('eth_getStorageAt', [log.address, '0x0', 'latest'])],
      ['eth_getLogs, small', call('eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x7', address: log.address }])],
      [
        'eth_getLogs, a topic over the whole chain to pending',
        call('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'pending', topics: [log.topics[0]] }]),
      ],
      ['eth_getLogs, large', call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x63' }])],
      [
        'eth_getLogs, over the result cap (-32005 with data)',
        call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]),
      ],
      [
        'eth_getLogs, beyond the head (-32602 from the range)',
        call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xffff' }]),
      ],
      ['eth_getLogs, a bad filter (-32602 from the parser)', call('eth_getLogs', [{ address: '0x12' }])],
      ['unknown method', call('eth_nothing', [])],
      [
        'a batch',
        [
          call('eth_chainId', [], 1),
          call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }], 2),
          call('eth_nothing', [], 3),
          { id: 4 },
        ],
      ],
      ['not JSON', '{"jsonrpc":'],
      ['an unknown API key (401)', call('eth_chainId', []), 'f'.repeat(64)],
      ['a revoked API key (401)', call('eth_chainId', []), dataset.revokedKey],
    ];
    for (const [name, body, key] of cases) {
      const answer = await sameEverywhere(body, key);
      const json = JSON.parse(answer.body) as { error?: { code: number; data?: unknown } };
      if (name.includes('cap')) assert.deepEqual([json.error?.code, typeof json.error?.data], [-32005, 'object'], name);
      if (name.includes('large'))
        assert.ok(answer.body.length > 64 * 1024, `${name}: ${answer.body.length} bytes, streamed out`);
      if (name.includes('401')) assert.equal(answer.status, 401, name);
    }
  });

  test(
    'each thread answers a small eth_getLogs inline and hands a large ' +
      'one to the pool; /metrics counts both paths of both threads',
    async () => {
      const INLINE = 'ethlogd_getlogs_queries_total{path="inline"}';
      const POOL = 'ethlogd_getlogs_queries_total{path="pool"}';
      const paths = async () => {
        const text = await scrape(threaded);
        return { inline: sample(text, INLINE), pool: sample(text, POOL) };
      };
      for (const [filter, path] of [
        [{ fromBlock: '0x5', toBlock: '0x6' }, 'inline'],
        [{ fromBlock: '0x0', toBlock: '0x63' }, 'pool'],
      ] as const) {
        const before = await paths();
        const answers = await fromEveryThread(threaded, () => post(threaded, call('eth_getLogs', [filter])));
        const after = await paths();
        const other = path === 'inline' ? 'pool' : 'inline';
        assert.equal(
          after[path] - before[path],
          answers.length,
          `${answers.length} queries on the ${path} path, by threads ${answers.map((a) => a.thread).join(',')}`,
        );
        assert.equal(after[other] - before[other], 0);
      }
    },
  );

  test('/health, /ready and /metrics answer on every thread', async () => {
    assert.deepEqual(JSON.parse(await sameOnFreshConnections('/health')), { status: 'ok' });
    const ready = JSON.parse(await sameOnFreshConnections('/ready')) as { status: string; head: number; hash: string };
    assert.deepEqual(ready, { ready: true, status: 'ready', head: BLOCKS - 1, hash: ready.hash, lag: null });
    assert.match(ready.hash, /^0x[0-9a-f]{64}$/);
    // A scrape counts no response, so which thread answered it is unseen: enough fresh connections reach both.
    for (let i = 0; i < 16; i++)
      assert.match(await scrape(threaded), new RegExp(`^${THREAD_SERIES}\\{thread="1"\\} `, 'm'));
  });

  test(
    'a key created and revoked by another process ' + '(`ethlogd keys`) is served, then refused, by both threads',
    async () => {
      const created = await run(process.execPath, [
        CLI,
        'keys',
        'create',
        '--data',
        dataset.dir,
        '--label',
        'revoked-while-serving',
      ]);
      const key = created.stdout.trim().split('\n').pop()!;
      for (const { answer } of await fromEveryThread(threaded, () => post(threaded, call('eth_chainId', []), key)))
        assert.equal(answer.status, 200);
      await run(process.execPath, [CLI, 'keys', 'revoke', '--data', dataset.dir, key]);
      for (const { answer } of await fromEveryThread(threaded, () => post(threaded, call('eth_chainId', []), key))) {
        assert.equal(answer.status, 401);
        assert.deepEqual(JSON.parse(answer.body), {
          jsonrpc: '2.0',
          id: null,
          error: { code: UNAUTHORIZED, message: REVOKED_KEY_MESSAGE },
        });
      }
    },
  );

  test('the rate limit is one bucket per key across threads', async () => {
    const BURST = 3;
    const limited = await start(2, { rateLimit: { perSecond: 0.001, burst: BURST } });
    try {
      const ask = () => post(limited, call('eth_blockNumber', []));
      for (let i = 0; i < BURST; i++)
        assert.equal((await ask()).status, 200, 'the burst passes, whichever thread answers');
      for (const { thread, answer } of await fromEveryThread(limited, ask)) {
        assert.equal(answer.status, 429, `thread ${thread} refuses: the burst is spent on the one bucket`);
        assert.equal((JSON.parse(answer.body) as { error: { code: number } }).error.code, -32005);
      }
    } finally {
      await limited.close();
    }
  });

  test('a port another socket holds is refused', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      await assert.rejects(start(2, { port }), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    } finally {
      holder.close();
    }
  });

  test('close() drains every thread, then no thread of the service runs and the port is closed', async () => {
    const baseline = processThreads();
    const svc = await start(2);
    assert.ok(processThreads() > baseline, 'the HTTP thread (and the scan pool) run');
    await fromEveryThread(svc, () => post(svc, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3' }])));
    assert.deepEqual(await svc.close(), { clean: true, httpRequestsCut: 0, grpcCallsCut: false });
    assert.equal(processThreads(), baseline, 'no thread left running');
    await assert.rejects(send(svc, '/health'), { code: 'ECONNREFUSED' });
  });
});
