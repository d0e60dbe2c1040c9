/**
 * Polling filters through the real service on two HTTP threads, every call on a fresh connection
 * (`Connection: close`), so the kernel spreads them over both threads and a filter installed on one
 * is polled on the other: block filters report new hashes in order; log filters report new matching
 * logs, and after a reorganisation the dropped ones with `removed: true` before the new branch's;
 * eth_getFilterLogs answers the filter's range as eth_getLogs; uninstall, unknown ids and expiry
 * give geth's answers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { FILTER_IDLE_MS, FilterRegistry, MAX_FILTERS_PER_KEY } from '#src/filters/registry.js';
import { createLogger } from '#src/logger.js';
import { FilterNotFoundError } from '#src/rpc/errors.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { nextBlocks } from '../support/chainGrowth.js';
import { makeDataset, type RpcResponse, type TestDataset } from '../support/harness.js';

let dataset: TestDataset;
let service: RunningService;
let store: Store;
let reader: StoreReader;
let writer: StoreWriter;

before(async () => {
  dataset = await makeDataset(60, 0.2, 'filters');
  store = openStore(dataset.dir);
  reader = new StoreReader(store);
  writer = new StoreWriter(store);
  service = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    httpThreads: 2,
    threads: 1,
    logger: createLogger('warn'),
  });
});

after(async () => {
  await service.close();
  await closeStore(store);
  dataset.remove();
});

/** One call on a new connection; the whole response. */
async function call(method: string, params: unknown[]): Promise<RpcResponse> {
  const res = await fetch(`${service.url}/v3/${dataset.key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Connection: 'close' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcResponse;
}

/** One call's result; fails on an error. */
async function result(method: string, params: unknown[]): Promise<unknown> {
  const res = await call(method, params);
  assert.equal(res.error, undefined, `${method}: ${JSON.stringify(res.error)}`);
  return res.result;
}

/** The filters_installed gauge of /metrics. */
async function installedGauge(): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`, { headers: { Connection: 'close' } })).text();
  const line = /^ethlogd_filters_installed (\d+)$/m.exec(text);
  assert.ok(line, 'ethlogd_filters_installed in /metrics');
  return Number(line[1]);
}

/** Polls filter `id` until `count` changes have come (each poll on a new connection); returns them in order. */
async function changes(id: string, count: number): Promise<unknown[]> {
  const got: unknown[] = [];
  while (got.length < count) got.push(...((await result('eth_getFilterChanges', [id])) as unknown[]));
  assert.equal(got.length, count, 'no more than expected');
  return got;
}

test('a block filter reports the new blocks in order, polled on any thread', { timeout: 60_000 }, async () => {
  const before = await installedGauge();
  const id = (await result('eth_newBlockFilter', [])) as string;
  assert.match(id, /^0x[0-9a-f]{32}$/);
  assert.equal(await installedGauge(), before + 1, '/metrics counts the filter');
  assert.deepEqual(await result('eth_getFilterChanges', [id]), [], 'nothing yet');
  const blocks = nextBlocks(reader, 3);
  writer.append({ blocks: blocks.slice(0, 2) });
  writer.append({ blocks: blocks.slice(2) });
  assert.deepEqual(
    await changes(id, 3),
    blocks.map((b) => bytesToHex(b.header.hash)),
  );
  assert.equal(await result('eth_uninstallFilter', [id]), true);
  assert.equal(await result('eth_uninstallFilter', [id]), false, 'a second uninstall finds nothing');
  assert.equal(await installedGauge(), before, '/metrics no longer counts it');
  assert.deepEqual((await call('eth_getFilterChanges', [id])).error, { code: -32000, message: 'filter not found' });
});

test('a log filter reports new matching logs, then after a reorganisation the dropped ' +
  'ones removed and the new branch; getFilterLogs is eth_getLogs of its range', {
  timeout: 60_000,
}, async () => {
  const blocks = nextBlocks(reader, 3);
  const address = bytesToHex(blocks[0]!.logs[0]!.address);
  const start = quantityToHex(blocks[0]!.header.number);
  const id = (await result('eth_newFilter', [{ address, fromBlock: start }])) as string;
  writer.append({ blocks });
  const end = quantityToHex(blocks[2]!.header.number);
  const expected = (await result('eth_getLogs', [{ address, fromBlock: start, toBlock: end }])) as Record<
    string,
    unknown
  >[];
  assert.ok(expected.length > 0);
  assert.deepEqual(await changes(id, expected.length), expected);

  const branch = nextBlocks(reader, 2, blocks[0]!.header.number);
  writer.append({ rollbackTo: blocks[0]!.header.number, blocks: branch });
  const removed = expected
    .filter((l) => l.blockNumber !== start)
    .sort((a, b) => Number(b.blockNumber) - Number(a.blockNumber) || Number(a.logIndex) - Number(b.logIndex))
    .map((l) => ({ ...l, removed: true }));
  const branchLogs = (await result('eth_getLogs', [
    { address, fromBlock: quantityToHex(branch[0]!.header.number), toBlock: quantityToHex(branch[1]!.header.number) },
  ])) as unknown[];
  assert.deepEqual(await changes(id, removed.length + branchLogs.length), [...removed, ...branchLogs]);

  assert.deepEqual(
    await result('eth_getFilterLogs', [id]),
    await result('eth_getLogs', [{ address, fromBlock: start }]),
  );
  assert.equal(await result('eth_uninstallFilter', [id]), true);
});

test('filter errors: unknown id, a block filter has no logs, a block hash is no range, bad parameters', async () => {
  const unknown = '0x' + 'ab'.repeat(16);
  for (const method of ['eth_getFilterChanges', 'eth_getFilterLogs'])
    assert.deepEqual((await call(method, [unknown])).error, { code: -32000, message: 'filter not found' }, method);
  assert.equal(await result('eth_uninstallFilter', [unknown]), false);
  const blocks = (await result('eth_newBlockFilter', [])) as string;
  assert.deepEqual(
    (await call('eth_getFilterLogs', [blocks])).error,
    { code: -32000, message: 'filter not found' },
    'geth: a block filter has no logs',
  );
  assert.equal((await call('eth_newFilter', [{ blockHash: '0x' + '11'.repeat(32) }])).error?.code, -32602);
  assert.equal((await call('eth_newFilter', [{ address: '0x12' }])).error?.code, -32602);
  assert.equal((await call('eth_getFilterChanges', [12])).error?.code, -32602);
  assert.equal((await call('eth_newBlockFilter', [1])).error?.code, -32602);
  await result('eth_uninstallFilter', [blocks]);
});

/** One batch of calls with `key` on a new connection; the answers in order. */
async function batchAs(key: string, calls: [string, unknown[]][]): Promise<RpcResponse[]> {
  const res = await fetch(`${service.url}/v3/${key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Connection: 'close' },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))),
  });
  return (await res.json()) as RpcResponse[];
}

test(
  `one API key holds at most ${MAX_FILTERS_PER_KEY} filters; ` +
    'another key still installs, and uninstalling frees room',
  async () => {
    const other = createApiKey(store, 'second client');
    const installed = await batchAs(
      dataset.key,
      Array.from({ length: MAX_FILTERS_PER_KEY }, () => ['eth_newBlockFilter', []] as [string, unknown[]]),
    );
    assert.ok(
      installed.every((r) => typeof r.result === 'string'),
      'the first key fills its share',
    );
    const [over] = await batchAs(dataset.key, [['eth_newFilter', [{}]]]);
    assert.deepEqual(over!.error, {
      code: -32005,
      message:
        'too many filters installed for this API key (at most ' +
        `${MAX_FILTERS_PER_KEY}): uninstall some, or let them expire`,
    });
    const [theirs] = await batchAs(other, [['eth_newBlockFilter', []]]);
    assert.equal(typeof theirs!.result, 'string', 'another key is not held back');
    await batchAs(
      dataset.key,
      installed.slice(0, 1).map((r) => ['eth_uninstallFilter', [r.result]]),
    );
    const [again] = await batchAs(dataset.key, [['eth_newBlockFilter', []]]);
    assert.equal(typeof again!.result, 'string', 'room again after an uninstall');
    const ids = [...installed.slice(1).map((r) => r.result), again!.result];
    const removed = await batchAs(
      dataset.key,
      ids.map((id) => ['eth_uninstallFilter', [id]]),
    );
    assert.ok(removed.every((r) => r.result === true));
    assert.equal((await batchAs(other, [['eth_uninstallFilter', [theirs!.result]]]))[0]!.result, true);
  },
);

test(`a filter not polled for ${FILTER_IDLE_MS / 60_000} minutes is dropped; each poll keeps it`, () => {
  let now = 0;
  const registry = new FilterRegistry(reader, { now: () => now });
  try {
    const kept = registry.newBlockFilter();
    const idle = registry.newBlockFilter();
    now += FILTER_IDLE_MS - 1;
    registry.changes(kept);
    registry.sweep();
    assert.deepEqual(registry.changes(idle), [], 'not yet idle for the whole period');
    now += FILTER_IDLE_MS + 1;
    registry.changes(kept);
    registry.sweep();
    assert.deepEqual(registry.changes(kept), []);
    assert.throws(() => registry.changes(idle), FilterNotFoundError);
  } finally {
    registry.close();
  }
});
