/**
 * Admission of log queries through the real service (limits/admission.ts): one key's heavy batch
 * of eth_getLogs keeps its running and queue slots full, its further calls are refused with -32005
 * `too many concurrent requests` (a single call with HTTP 429 and Retry-After), another key's calls
 * keep answering, and once the batch's client goes away its queued and running queries stop
 * (ethlogd_getlogs_cancelled_total; far fewer queries reach the pool than the batch held). Metrics
 * synchronise the steps: no sleeps, no timings asserted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { bytesToHex } from '#src/chain/hex.js';
import { loadDefinition } from '#src/grpc/definition.js';
import { CODE_TRAILER } from '#src/grpc/errors.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { SWAP_TOPIC } from '#src/synth/events.js';
import { makeDataset, type RpcResponse, type TestDataset } from '../support/harness.js';
import { until } from '../support/poll.js';

const BLOCKS = 600;
const DENSITY = 0.2;
/** Calls of the attacker's batch: far more than it could finish while the test looks at it. */
const BATCH = 1_000;
/** The whole chain as a gRPC filter. */
const WHOLE_CHAIN = { fromBlock: { number: '0' }, toBlock: { number: String(BLOCKS - 1) } };

const EthLogs = (
  grpc.loadPackageDefinition(loadDefinition()) as unknown as {
    ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } };
  }
).ethlogd.v1.EthLogs;

let dataset: TestDataset;
let other: string;
let svc: RunningService;
/** A filter that reads every block's logs record and matches nothing: a busy address with another contract's topic. */
let heavy: Record<string, unknown>;

/** The value of metric `name` (with `labels`, as written in the exposition) now. */
async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** POSTs `body` with `key`: status, Retry-After and the parsed answer. */
async function post(
  key: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; retryAfter: string | null; json: unknown }> {
  const res = await fetch(`${svc.url}/v3/${key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    json: JSON.parse(await res.text()) as unknown,
  };
}

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, 'admission');
  const store = openStore(dataset.dir);
  other = createApiKey(store, 'other');
  await closeStore(store);
  svc = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    grpcPort: 0,
    threads: 1,
    httpThreads: 1,
    // Every log query goes to the pool, where admission counts it.
    inlineBudgetUs: -1,
    logger: createLogger('warn'),
    // Small batches: a stream of the whole chain sends tens of thousands, long enough to be open while a second one
    // asks.
    grpcStream: { batchBytes: 512 },
    admission: { queriesPerKey: 1, queries: 2, queuePerKey: 3, queue: 64, streamsPerKey: 1, streams: 4 },
  });
  // The busiest address of a middle block: its logs record is read in most blocks.
  const block = (
    await post(dataset.key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getLogs',
      params: [{ fromBlock: '0x12c', toBlock: '0x12c' }],
    })
  ).json as RpcResponse;
  const counts = new Map<string, number>();
  for (const log of block.result as { address: string }[]) counts.set(log.address, (counts.get(log.address) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  heavy = { fromBlock: '0x0', toBlock: 'latest', address: busiest, topics: [bytesToHex(SWAP_TOPIC)] };
});

after(async () => {
  await svc.close();
  dataset.remove();
});

describe('admission of log queries', () => {
  test(
    "one key's heavy batch: its further calls get -32005 " +
      '(429 for a single call), another key answers, leaving cancels',
    async () => {
      const calls = Array.from({ length: BATCH }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_getLogs',
        params: [heavy],
      }));
      const abort = new AbortController();
      const batch = post(dataset.key, calls, abort.signal).catch((error: unknown) => error);
      // The batch holds its key's one running slot and its three queue places.
      await until(async () => (await metric('ethlogd_log_queries_waiting')) === 3, 'the batch fills its queue');

      const single = await post(dataset.key, { jsonrpc: '2.0', id: 'x', method: 'eth_getLogs', params: [heavy] });
      assert.equal(single.status, 429);
      assert.ok(Number(single.retryAfter) >= 1, 'Retry-After in whole seconds');
      const refused = single.json as RpcResponse;
      assert.equal(refused.error?.code, -32005);
      assert.equal(refused.error?.message, 'too many concurrent requests');

      // Another key's calls answer: point lookups, and log queries on the pool (the process's second slot).
      const number = (await post(other, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }))
        .json as RpcResponse;
      assert.equal(number.result, `0x${(BLOCKS - 1).toString(16)}`);
      const logs = (
        await post(other, {
          jsonrpc: '2.0',
          id: 2,
          method: 'eth_getLogs',
          params: [{ fromBlock: '0x10', toBlock: '0x20' }],
        })
      ).json as RpcResponse;
      assert.ok(Array.isArray(logs.result) && logs.result.length > 0, JSON.stringify(logs.error));
      assert.ok((await metric('ethlogd_refusals_total', '{reason="log_queries"}')) >= 1);

      const poolBefore = await metric('ethlogd_getlogs_queries_total', '{path="pool"}');
      abort.abort();
      await batch;
      await until(
        async () =>
          (await metric('ethlogd_log_queries_running')) === 0 && (await metric('ethlogd_log_queries_waiting')) === 0,
        'the batch stops',
      );
      assert.ok((await metric('ethlogd_getlogs_cancelled_total')) >= 1, 'the running query was cancelled');
      const poolAfter = await metric('ethlogd_getlogs_queries_total', '{path="pool"}');
      // The items not started when the client left never reach the pool.
      assert.ok(poolAfter < BATCH, `${poolAfter} pool queries for a batch of ${BATCH}`);
      assert.ok(poolAfter - poolBefore <= 8, `${poolAfter - poolBefore} queries started after the client left`);
    },
  );

  test('StreamLogs past the streams per key is refused with RESOURCE_EXHAUSTED and -32005', async () => {
    const client = new EthLogs(`127.0.0.1:${svc.grpcPort}`, grpc.credentials.createInsecure());
    const open = (
      client as unknown as Record<
        string,
        (request: object, metadata: grpc.Metadata) => grpc.ClientReadableStream<unknown>
      >
    ).StreamLogs!.bind(client);
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', dataset.key);
    try {
      // The first stream is open: tens of thousands of small batches, the server waiting on its client now and then.
      const waiting = new Promise((resolve) => svc.grpcEvents!.once('stream-waiting', resolve));
      const first = open({ filter: WHOLE_CHAIN }, metadata);
      first.on('error', () => {});
      await waiting;
      const second = open({ filter: WHOLE_CHAIN }, metadata);
      second.on('data', () => {});
      second.on('error', () => {});
      const status = await new Promise<grpc.StatusObject>((resolve) => second.on('status', resolve));
      assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.equal(status.metadata.get(CODE_TRAILER)[0], '-32005');
      assert.ok((await metric('ethlogd_refusals_total', '{reason="streams"}')) >= 1);
      first.cancel();
      await until(async () => (await metric('ethlogd_log_streams_open')) === 0, 'the first stream is closed');
    } finally {
      client.close();
    }
  });
});
