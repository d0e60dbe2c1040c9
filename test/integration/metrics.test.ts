/**
 * Prometheus metrics and the health endpoints of a real service over real HTTP: calls of several
 * methods (single, batched, failing, refused) and eth_getLogs scans move the counters and
 * histograms by exactly what was sent, the gauges read the pool and the store, /health and /ready
 * answer without a key, and a store without blocks is not ready; unary gRPC calls are counted too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { MAX_BODY_BYTES, METRICS_LATENCY_BUCKETS_S } from '#src/config.js';
import { loadDefinition } from '#src/grpc/definition.js';
import { startHttpServer } from '#src/http/server.js';
import { createLogger } from '#src/logger.js';
import { inlineCost } from '#src/logs/planner.js';
import type { RpcBody } from '#src/rpc/handler.js';
import { type RunningService, startService } from '#src/service.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { makeDataset, type TestDataset } from '../support/harness.js';

const THREADS = 2;

let dataset: TestDataset;
let service: RunningService;

before(async () => {
  // Sparse enough that some blocks have no logs: with no filter they are the false positives.
  dataset = await makeDataset(40, 0.005, 'metrics');
  service = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    threads: THREADS,
  });
});

after(async () => {
  await service.close();
  dataset.remove();
});

/** One series of a scrape. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition (the subset prom-client writes). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** A scrape: the value of a series by name and exact label set. */
class Scrape {
  constructor(readonly samples: Sample[]) {}

  /** The series' value, or undefined when it is not in the scrape. */
  find(name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = Object.entries(labels);
    const hit = this.samples.find(
      (s) =>
        s.name === name &&
        Object.keys(s.labels).length === wanted.length &&
        wanted.every(([k, v]) => s.labels[k] === v),
    );
    return hit?.value;
  }

  /** The series' value, 0 when absent (a counter not yet moved). */
  get(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels) ?? 0;
  }
}

async function scrape(svc: RunningService = service): Promise<Scrape> {
  const res = await fetch(`${svc.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return new Scrape(parseExposition(await res.text()));
}

const endpoint = () => `${service.url}/v3/${dataset.key}`;

async function post(
  body: string,
  init: { url?: string; contentType?: string } = {},
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(init.url ?? endpoint(), {
    method: 'POST',
    headers: { 'Content-Type': init.contentType ?? 'application/json' },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as unknown };
}

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });

/** The head block number, as eth_blockNumber answers it. */
async function headBlock(): Promise<number> {
  return Number(((await post(JSON.stringify(call('eth_blockNumber')))).json as { result: string }).result);
}

describe('metrics', () => {
  test('calls, batches, errors and refusals move the request counters and histograms by what was sent', async () => {
    const before = await scrape();

    assert.equal((await post(JSON.stringify(call('eth_chainId')))).status, 200);
    assert.equal((await post(JSON.stringify(call('eth_chainId')))).status, 200);
    assert.equal((await post(JSON.stringify(call('eth_blockNumber')))).status, 200);
    const batch = await post(
      JSON.stringify([
        call('eth_chainId', [], 1),
        call('eth_getTransactionByHash', ['0x12'], 2),
        call('eth_nothing', [], 3),
        { id: 4 },
      ]),
    );
    assert.equal(batch.status, 200);
    assert.deepEqual(
      (batch.json as { error?: { code: number } }[]).map((r) => r.error?.code ?? 'ok'),
      ['ok', -32602, -32601, -32600],
    );
    assert.equal((await post('{not json')).status, 200);
    assert.equal((await post(JSON.stringify(call('eth_chainId')), { url: `${service.url}/v3/not-a-key` })).status, 401);
    assert.equal((await post(JSON.stringify(call('eth_chainId')), { contentType: 'text/plain' })).status, 415);
    assert.equal((await post(' '.repeat(MAX_BODY_BYTES + 1))).status, 413);
    assert.equal((await fetch(`${service.url}/nowhere`)).status, 404);
    assert.equal((await fetch(endpoint())).status, 405);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) => after.get(name, labels) - before.get(name, labels);
    const requests = (method: string, outcome: string) => moved('ethlogd_rpc_requests_total', { method, outcome });
    assert.equal(requests('eth_chainId', 'ok'), 3, 'two single calls and one batch item');
    assert.equal(requests('eth_blockNumber', 'ok'), 1);
    assert.equal(requests('eth_getTransactionByHash', '-32602'), 1);
    assert.equal(requests('unknown', '-32601'), 1, 'an unknown method is labelled "unknown", not by its name');
    assert.equal(requests('invalid', '-32600'), 1);
    assert.equal(requests('invalid', '-32700'), 1);
    assert.equal(after.find('ethlogd_rpc_requests_total', { method: 'eth_nothing', outcome: '-32601' }), undefined);
    for (const method of ['unknown', 'invalid'])
      assert.equal(
        after.find('ethlogd_rpc_requests_total', { method, outcome: 'ok' }),
        undefined,
        `no impossible ${method}/ok series`,
      );

    const status = (code: number) => moved('ethlogd_http_responses_total', { status: String(code) });
    assert.equal(status(200), 5);
    for (const code of [401, 404, 405, 413, 415]) assert.equal(status(code), 1, `status ${code}`);

    const histogram = 'ethlogd_rpc_request_duration_seconds';
    assert.equal(moved(`${histogram}_count`, { method: 'eth_chainId' }), 3);
    assert.equal(moved(`${histogram}_bucket`, { method: 'eth_chainId', le: '+Inf' }), 3);
    assert.ok(moved(`${histogram}_sum`, { method: 'eth_chainId' }) > 0);
    let previous = 0;
    for (const bound of METRICS_LATENCY_BUCKETS_S) {
      const cumulative = after.get(`${histogram}_bucket`, { method: 'eth_chainId', le: String(bound) });
      assert.ok(cumulative >= previous, `bucket ${bound} is cumulative`);
      previous = cumulative;
    }
    assert.equal(
      after.get(`${histogram}_bucket`, { method: 'eth_chainId', le: '10' }),
      after.get(`${histogram}_count`, { method: 'eth_chainId' }),
    );
    assert.equal(
      after.find(`${histogram}_count`, { method: 'eth_getStorageAt' }),
      0,
      'every served method has its series from the start',
    );
  });

  test('scrapes and health checks are not counted as API requests', async () => {
    const first = await scrape();
    await fetch(`${service.url}/health`);
    await fetch(`${service.url}/ready`);
    const second = await scrape();
    for (const sample of second.samples.filter(
      (s) => s.name.startsWith('ethlogd_rpc_') || s.name.startsWith('ethlogd_http_'),
    )) {
      assert.equal(
        sample.value,
        first.get(sample.name, sample.labels),
        `${sample.name} ${JSON.stringify(sample.labels)}`,
      );
    }
  });

  test('eth_getLogs scans count their blocks, candidate blocks and false positives', async () => {
    const head = await headBlock();
    const before = await scrape();
    const all = (await post(JSON.stringify(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])))).json as {
      result: { blockNumber: string; topics: string[] }[];
    };
    const withLogs = new Set(all.result.map((log) => log.blockNumber)).size;
    assert.ok(withLogs > 0 && withLogs < head + 1, `${withLogs} of ${head + 1} blocks have logs`);
    const middle = await scrape();
    const step = (name: string, from: Scrape, to: Scrape) => to.get(name) - from.get(name);
    // No filter: every block of the range is a candidate, and those without logs are false positives.
    assert.equal(step('ethlogd_getlogs_blocks_scanned_total', before, middle), head + 1);
    assert.equal(step('ethlogd_getlogs_candidate_blocks_total', before, middle), head + 1);
    assert.equal(step('ethlogd_getlogs_false_positive_blocks_total', before, middle), head + 1 - withLogs);

    // A topic filter: candidates come from the blooms; those that match are exactly the answer's blocks.
    const topic = all.result.find((log) => log.topics.length > 0)!.topics[0]!;
    const some = (
      await post(JSON.stringify(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [topic] }])))
    ).json as { result: { blockNumber: string }[] };
    const matched = new Set(some.result.map((log) => log.blockNumber)).size;
    const end = await scrape();
    assert.equal(step('ethlogd_getlogs_blocks_scanned_total', middle, end), head + 1);
    const candidates = step('ethlogd_getlogs_candidate_blocks_total', middle, end);
    assert.ok(candidates >= matched && candidates <= head + 1, `${candidates} candidates`);
    assert.equal(candidates - step('ethlogd_getlogs_false_positive_blocks_total', middle, end), matched);
    assert.equal(
      end.get('ethlogd_rpc_requests_total', { method: 'eth_getLogs', outcome: 'ok' }) -
        before.get('ethlogd_rpc_requests_total', { method: 'eth_getLogs', outcome: 'ok' }),
      2,
    );
  });

  test('gauges read the worker pool and the store when scraped; Node process metrics are there', async () => {
    const head = await headBlock();
    const now = await scrape();
    assert.equal(now.find('ethlogd_head_block'), head);
    assert.equal(now.find('ethlogd_store_size_bytes'), statSync(join(dataset.dir, 'data.mdb')).blocks * 512);
    assert.equal(now.find('ethlogd_log_pool_threads'), THREADS);
    assert.equal(now.find('ethlogd_log_pool_queue_size'), 0);
    const utilization = now.find('ethlogd_log_pool_utilization');
    assert.ok(utilization !== undefined && utilization >= 0 && utilization <= 1, `utilization ${utilization}`);
    assert.ok(now.find('process_cpu_user_seconds_total') !== undefined);
    assert.ok(now.find('nodejs_heap_size_used_bytes') !== undefined);
  });

  test('HEAD /metrics answers the headers without a body', async () => {
    const res = await fetch(`${service.url}/metrics`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.ok(Number(res.headers.get('content-length')) > 0);
    assert.equal(await res.text(), '');
  });
});

describe('where eth_getLogs runs', () => {
  test(
    'a query within the inline budget runs inline, the same query one ' +
      'block longer (just over it) on the pool; both are counted by path',
    async () => {
      // A range without conditions: every block is a candidate, so the planner's estimate is known
      // exactly from the answer (blocks and logs), and the budget is set to the shorter query's.
      const head = await headBlock();
      const to = Math.max(1, head - 1);
      const ask = async (last: number, url = endpoint()) =>
        (
          (
            await post(JSON.stringify(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: `0x${last.toString(16)}` }])), {
              url,
            })
          ).json as { result: unknown[] }
        ).result;
      const logs = (await ask(to)).length;
      const store = openStore(dataset.dir, { readOnly: true });
      let recordBytes = 0;
      for (let n = 0; n <= to; n++) recordBytes += new StoreReader(store).logsRecord(n)?.length ?? 0;
      await closeStore(store);
      const budget = inlineCost({ bloomBlocks: 0, segments: 0, candidates: to + 1, recordBytes, logs });
      const svc = await startService({
        dataDir: dataset.dir,
        host: '127.0.0.1',
        port: 0,
        logger: createLogger('warn'),
        threads: 1,
        inlineBudgetUs: budget,
      });
      try {
        const paths = async () => {
          const now = await scrape(svc);
          return {
            inline: now.get('ethlogd_getlogs_queries_total', { path: 'inline' }),
            pool: now.get('ethlogd_getlogs_queries_total', { path: 'pool' }),
          };
        };
        const url = `${svc.url}/v3/${dataset.key}`;
        assert.deepEqual(await paths(), { inline: 0, pool: 0 });
        assert.equal((await ask(to, url)).length, logs);
        assert.deepEqual(await paths(), { inline: 1, pool: 0 }, 'at the budget: inline');
        assert.deepEqual(await ask(to + 1, url), await ask(to + 1));
        assert.deepEqual(await paths(), { inline: 1, pool: 1 }, 'one block more: over the budget, on the pool');
      } finally {
        await svc.close();
      }
    },
  );
});

describe('health endpoints', () => {
  test('GET /health: 200 {"status":"ok"}, without a key; HEAD the same without a body; POST 405', async () => {
    const res = await fetch(`${service.url}/health`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { status: 'ok' });
    const head = await fetch(`${service.url}/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const posted = await fetch(`${service.url}/health`, { method: 'POST', body: '{}' });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, HEAD');
  });

  test(
    'GET /ready: 200 with the head and its hash while the store ' +
      'is open and has blocks (lag null: it follows no node)',
    async () => {
      const head = await headBlock();
      const { hash } = (
        (await post(JSON.stringify(call('eth_getBlockByNumber', ['latest', false])))).json as {
          result: { hash: string };
        }
      ).result;
      const res = await fetch(`${service.url}/ready`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { ready: true, status: 'ready', head, hash, lag: null });
      const asHead = await fetch(`${service.url}/ready`, { method: 'HEAD' });
      assert.equal(asHead.status, 200);
    },
  );

  test('a store without blocks is not ready (503 with the reason); with metrics off /metrics is 404', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ethlogd-empty-'));
    await closeStore(openStore(dir));
    const empty = await startService({
      dataDir: dir,
      host: '127.0.0.1',
      port: 0,
      logger: createLogger('warn'),
      threads: 1,
      metrics: false,
    });
    try {
      const res = await fetch(`${empty.url}/ready`);
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), {
        ready: false,
        status: 'unavailable',
        reason: 'the store holds no block yet',
        lag: null,
      });
      assert.equal((await fetch(`${empty.url}/health`)).status, 200);
      assert.equal((await fetch(`${empty.url}/metrics`)).status, 404);
    } finally {
      await empty.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gRPC calls', () => {
  test('unary gRPC calls are counted by their JSON-RPC method and outcome, as HTTP calls are', async () => {
    const svc = await startService({
      dataDir: dataset.dir,
      host: '127.0.0.1',
      port: 0,
      grpcPort: 0,
      logger: createLogger('warn'),
      threads: 1,
    });
    const EthLogs = (
      grpc.loadPackageDefinition(loadDefinition()) as unknown as {
        ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } };
      }
    ).ethlogd.v1.EthLogs;
    const client = new EthLogs(`127.0.0.1:${svc.grpcPort}`, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', dataset.key);
    const unary = (name: string, request: object) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        (
          client as unknown as Record<
            string,
            (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void
          >
        )[name]!.call(client, request, metadata, resolve);
      });
    try {
      const before = await scrape(svc);
      assert.equal(await unary('GetStorageAt', { address: Buffer.alloc(20), position: Buffer.alloc(32) }), null);
      assert.equal(await unary('GetStorageAt', { address: Buffer.alloc(20), position: Buffer.alloc(32) }), null);
      assert.equal(
        (await unary('GetTransactionByHash', { hash: Buffer.alloc(3) }))?.code,
        grpc.status.INVALID_ARGUMENT,
      );
      assert.equal(await unary('GetLogs', { filter: { fromBlock: { number: '0' }, toBlock: { number: '3' } } }), null);
      const after = await scrape(svc);
      const moved = (method: string, outcome: string) =>
        after.get('ethlogd_rpc_requests_total', { method, outcome }) -
        before.get('ethlogd_rpc_requests_total', { method, outcome });
      assert.equal(moved('eth_getStorageAt', 'ok'), 2);
      assert.equal(moved('eth_getTransactionByHash', '-32602'), 1);
      assert.equal(moved('eth_getLogs', 'ok'), 1);
      assert.equal(
        after.get('ethlogd_rpc_request_duration_seconds_count', { method: 'eth_getStorageAt' }) -
          before.get('ethlogd_rpc_request_duration_seconds_count', { method: 'eth_getStorageAt' }),
        2,
      );
    } finally {
      client.close();
      await svc.close();
    }
  });
});

describe('HTTP responses hook', () => {
  test('a client that leaves before its answer is counted once as 499, and its answer is not counted', async () => {
    let release!: (body: RpcBody) => void;
    const held = new Promise<RpcBody>((resolve) => (release = resolve));
    let asked!: () => void;
    const handling = new Promise<void>((resolve) => (asked = resolve));
    const statuses: number[] = [];
    let heard!: () => void;
    const left = new Promise<void>((resolve) => (heard = resolve));
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      handler: {
        handle: () => {
          asked();
          return held;
        },
      },
      auth: () => 'valid',
      logger: createLogger('silent'),
      onResponse: (status) => {
        statuses.push(status);
        if (status === 499) heard();
      },
    });
    try {
      const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}';
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(
          'POST /v3/k HTTP/1.1\r\nHost: x\r\nContent-Type: ' +
            `application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      });
      socket.on('error', () => {});
      // Once the handler holds the request, the client leaves.
      await handling;
      socket.destroy();
      await left;
      release('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
      await held;
      const res = await fetch(`http://127.0.0.1:${server.port}/v3/k`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      assert.equal(res.status, 200);
      await res.text();
      assert.deepEqual(statuses, [499, 200]);
    } finally {
      await server.close();
    }
  });
});
