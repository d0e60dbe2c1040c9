/**
 * Byte budgets of polling filters and WebSocket subscriptions through the real service: filters of
 * 5,000 parameters (a 278 KB body each) are kept packed and charged to their key's and the
 * process's budget; past either, eth_newFilter is refused with -32005 naming the budget, the
 * refusals are counted; a registry's heap grows by about what it charges. A key's `logs`
 * subscriptions on sockets spread over two HTTP threads share one budget.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import WebSocket from 'ws';
import { FilterRegistry } from '#src/filters/registry.js';
import { createLogger } from '#src/logger.js';
import { parseFilter } from '#src/rpc/filterParams.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { makeDataset, type RpcResponse, type TestDataset } from '../support/harness.js';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

const MIB = 1024 * 1024;
/** The budgets of this test: small, so a few large filters pass them. */
const PER_KEY = 2 * MIB;
const TOTAL = 3 * MIB;

let dataset: TestDataset;
let other: string;
let svc: RunningService;

/** A filter of 2,500 addresses and 2,500 topic values (the most parameters a filter may have). */
function largeFilter(): Record<string, unknown> {
  const hex = (bytes: number) => '0x' + randomBytes(bytes).toString('hex');
  return {
    fromBlock: '0x0',
    address: Array.from({ length: 2_500 }, () => hex(20)),
    topics: [Array.from({ length: 2_500 }, () => hex(32))],
  };
}

async function call(key: string, method: string, params: unknown[]): Promise<RpcResponse> {
  const res = await fetch(`${svc.url}/v3/${key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcResponse;
}

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Heap and array buffers of this thread (where the filters live) after a full collection. */
function heldBytes(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

before(async () => {
  dataset = await makeDataset(30, 0.05, 'budgets');
  const store = openStore(dataset.dir);
  other = createApiKey(store, 'other');
  await closeStore(store);
  svc = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    threads: 1,
    httpThreads: 2,
    logger: createLogger('warn'),
    filterBudget: { perKey: PER_KEY, total: TOTAL },
    subscriptionBudget: { perKey: PER_KEY, total: TOTAL },
  });
});

after(async () => {
  await svc.close();
  dataset.remove();
});

describe('byte budgets', () => {
  test('a registry over the store keeps little more than it charges a filter of 5,000 parameters in its heap', () => {
    const reader = new StoreReader(openStore(dataset.dir, { readOnly: true }));
    const registry = new FilterRegistry(reader);
    // As a request body is parsed: JSON text to values.
    const install = () => registry.newLogFilter(parseFilter(JSON.parse(JSON.stringify(largeFilter())), 5_000), 'k');
    // Code compiled and caches filled by the first installs are not the filters' memory.
    for (let i = 0; i < 4; i++) registry.uninstall(install());
    const before = heldBytes();
    const ids = Array.from({ length: 16 }, install);
    const grown = heldBytes() - before;
    const charged = registry.bytes;
    for (const id of ids) registry.uninstall(id);
    registry.close();
    // A Uint8Array and a Set entry per parameter kept ~1.4 MB a filter, ten times its charge; packed,
    // the heap grows by the charge and what the registry's first filters set going (the head feed).
    assert.ok(grown < 2.5 * charged, `16 filters grew the heap by ${grown} bytes, charged ${charged}`);
    assert.ok(charged < 16 * 140_000, `${charged} bytes charged`);
  });

  test('a filter read back from its packed criteria answers eth_getFilterLogs as eth_getLogs does', async () => {
    const logs = (await call(other, 'eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x6' }])).result as {
      address: string;
      topics: string[];
    }[];
    // Repeated and unsorted values: the packed criteria keep each once, sorted, and match the same logs.
    const filter = {
      fromBlock: '0x0',
      toBlock: '0x1d',
      address: [logs[1]!.address, logs[0]!.address, logs[1]!.address],
      topics: [[logs[1]!.topics[0]!, logs[0]!.topics[0]!]],
    };
    const expected = (await call(other, 'eth_getLogs', [filter])).result as unknown[];
    assert.ok(expected.length > 0);
    const id = (await call(dataset.key, 'eth_newFilter', [filter])).result as string;
    assert.deepEqual((await call(dataset.key, 'eth_getFilterLogs', [id])).result, expected);
    assert.equal((await call(dataset.key, 'eth_uninstallFilter', [id])).result, true);
  });

  test(
    'filters of 5,000 parameters: refused past the key budget, ' + 'then past the process budget, counted, given back',
    async () => {
      const installed: string[] = [];
      let refusal: RpcResponse | undefined;
      while (refusal === undefined) {
        const answer = await call(dataset.key, 'eth_newFilter', [largeFilter()]);
        if (answer.error) refusal = answer;
        else installed.push(answer.result as string);
        assert.ok(installed.length < 100, 'a budget refuses');
      }
      assert.equal(refusal.error!.code, -32005);
      assert.match(refusal.error!.message, /filter over the byte budget: .* of this API key/);
      // About 130 KB a filter: the key's 2 MiB hold fifteen or sixteen.
      assert.ok(installed.length >= 14 && installed.length <= 16, `${installed.length} filters`);

      let more = 0;
      for (;;) {
        const answer = await call(other, 'eth_newFilter', [largeFilter()]);
        if (answer.error) {
          assert.match(answer.error.message, /of this server/);
          break;
        }
        more++;
        assert.ok(more < 100, 'the process budget refuses');
      }
      assert.ok(more >= 1 && installed.length + more <= 24, `${more} more for another key`);
      const held = await metric('ethlogd_filters_bytes');
      assert.ok(held <= TOTAL && held > TOTAL - 200_000, `${held} bytes held`);
      assert.ok((await metric('ethlogd_refusals_total', '{reason="filter_bytes"}')) >= 2);

      // Uninstalling gives the bytes back: the key installs again.
      assert.equal((await call(dataset.key, 'eth_uninstallFilter', [installed.pop()])).result, true);
      installed.push((await call(dataset.key, 'eth_newFilter', [largeFilter()])).result as string);
      assert.equal(typeof installed.at(-1), 'string');

      for (const id of installed) assert.equal((await call(dataset.key, 'eth_uninstallFilter', [id])).result, true);
      assert.ok((await metric('ethlogd_filters_bytes')) < held, 'the bytes are given back');
    },
  );

  test("a key's logs subscriptions on sockets of both threads share one budget", async () => {
    const sockets: WebSocket[] = [];
    const subscribe = (ws: WebSocket) =>
      new Promise<RpcResponse>((resolve) => {
        ws.once('message', (data) => resolve(JSON.parse(String(data)) as RpcResponse));
        const { address, topics } = largeFilter();
        ws.send(
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address, topics }] }),
        );
      });
    try {
      let accepted = 0;
      let refused: RpcResponse | undefined;
      for (let i = 0; refused === undefined; i++) {
        assert.ok(i < 100, 'the budget refuses');
        const ws = new WebSocket(`${svc.url.replace('http', 'ws')}/ws/v3/${dataset.key}`);
        sockets.push(ws);
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        const answer = await subscribe(ws);
        if (answer.error) refused = answer;
        else accepted++;
      }
      assert.equal(refused.error!.code, -32005);
      assert.match(refused.error!.message, /subscription over the byte budget/);
      assert.ok(accepted >= 14 && accepted <= 16, `${accepted} subscriptions on ${sockets.length} sockets`);
      assert.ok((await metric('ethlogd_subscriptions_bytes')) <= PER_KEY);
      assert.ok((await metric('ethlogd_refusals_total', '{reason="subscription_bytes"}')) >= 1);
    } finally {
      for (const ws of sockets) ws.close();
    }
  });
});
