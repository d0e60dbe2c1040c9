/**
 * The answer cache through the real service (`serve`'s read-only process, two HTTP threads): kept
 * answers are byte-identical to a service without the cache, a new head or a reorganisation is
 * answered afresh, pending calls are never kept, and /metrics counts the hits.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { nextBlocks } from '../support/chainGrowth.js';
import { exchange, makeDataset, type TestDataset } from '../support/harness.js';
import { until } from '../support/poll.js';

let dataset: TestDataset;
let cached: RunningService;
let fresh: RunningService;
let store: Store;
let reader: StoreReader;

before(async () => {
  dataset = await makeDataset(48, 0.2, 'answer-cache');
  // The writable handle first: lmdb-js shares one environment per path in a process.
  store = openStore(dataset.dir);
  reader = new StoreReader(store);
  const options = {
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    readOnlyProcess: true,
    threads: 1,
  };
  cached = await startService({ ...options, httpThreads: 2 });
  fresh = await startService({ ...options, httpThreads: 1, answerCacheBytes: 0 });
});

after(async () => {
  await Promise.all([cached.close(), fresh.close()]);
  await closeStore(store);
  dataset.remove();
});

/** The body `service` answers to one call, as it came off the wire. */
async function answer(service: RunningService, method: string, params: readonly unknown[], id = 7): Promise<string> {
  const res = await exchange(`${service.url}/v3/${dataset.key}`, {
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  assert.equal(res.status, 200);
  return res.body.toString();
}

/** The answer cache's hit and miss counts of `service`, from /metrics. */
async function cacheCounts(service: RunningService): Promise<{ hit: number; miss: number }> {
  const text = (await exchange(`${service.url}/metrics`, { method: 'GET' })).body.toString();
  const read = (result: string) =>
    Number(new RegExp(`ethlogd_answer_cache_lookups_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1]);
  return { hit: read('hit'), miss: read('miss') };
}

/** Waits until both services answer from a store whose head is `head`. */
async function bothAt(head: number): Promise<void> {
  for (const service of [cached, fresh]) {
    await until(
      async () => JSON.parse(await answer(service, 'eth_blockNumber', [])).result === quantityToHex(head),
      `the service sees head ${head}`,
    );
  }
}

/** Calls of every kept method over the stored chain: blocks with logs, their transactions, storage, receipts, tags. */
function corpus(): [string, unknown[]][] {
  const head = reader.head()!;
  const calls: [string, unknown[]][] = [];
  for (let n = head; n > head - 12; n--) {
    const header = reader.header(n)!;
    const hash = bytesToHex(header.hash);
    calls.push(
      ['eth_getLogs', [{ blockHash: hash }]],
      ['eth_getBlockByNumber', [quantityToHex(n), false]],
      ['eth_getBlockByHash', [hash, true]],
      ['eth_getBlockReceipts', [quantityToHex(n)]],
    );
    const txs = reader.transactions(n);
    if (txs.length > 0) {
      calls.push(
        ['eth_getTransactionByHash', [bytesToHex(txs[0]!.hash)]],
        ['eth_getTransactionByBlockNumberAndIndex', [quantityToHex(n), '0x0']],
        ['eth_getTransactionReceipt', [bytesToHex(txs[0]!.hash)]],
      );
      const address = reader.logs(n)[0]?.address;
      if (address !== undefined)
        calls.push(
          ['eth_getLogs', [{ fromBlock: quantityToHex(n - 5), toBlock: 'latest', address: bytesToHex(address) }]],
          ['eth_getStorageAt', [bytesToHex(address), '0x0', quantityToHex(n)]],
        );
    }
  }
  calls.push(
    ['eth_getBlockByNumber', ['latest', false]],
    ['eth_getBlockByNumber', ['safe', false]],
    ['eth_getBlockByNumber', ['finalized', true]],
    ['eth_getLogs', [{ fromBlock: 'earliest', toBlock: '0x3' }]],
  );
  return calls;
}

test('kept answers are the bytes a service without the cache answers, and are kept', async () => {
  const calls = corpus();
  const before = await cacheCounts(cached);
  for (const [method, params] of calls) {
    const expected = await answer(fresh, method, params);
    // Twice per HTTP thread at most before both threads hold it: four asks, each equal, and each
    // with its own id (the answer found from the call's text alone: rpc/canonicalCall.ts).
    for (let i = 0; i < 4; i++) {
      const id = 1000 + i;
      assert.equal(
        await answer(cached, method, params, id),
        expected.replace('"id":7,', `"id":${id},`),
        `${method} ${JSON.stringify(params)}, ask ${i + 1}`,
      );
    }
  }
  const afterCounts = await cacheCounts(cached);
  assert.equal(afterCounts.hit + afterCounts.miss - before.hit - before.miss, calls.length * 4);
  assert.ok(
    afterCounts.hit - before.hit >= calls.length * 2,
    `hits ${afterCounts.hit - before.hit} of ${calls.length * 4} asks`,
  );
});

test('a new head is answered afresh: latest, ranges to latest and tags move with it', async () => {
  const head = reader.head()!;
  const moving: [string, unknown[]][] = [
    ['eth_getBlockByNumber', ['latest', false]],
    ['eth_getLogs', [{ fromBlock: quantityToHex(head - 3), toBlock: 'latest' }]],
    ['eth_getBlockByNumber', [quantityToHex(head + 1), false]],
  ];
  const old = await Promise.all(moving.map(([m, p]) => answer(cached, m, p)));
  new StoreWriter(store).append({ blocks: nextBlocks(reader, 2) });
  await bothAt(head + 2);
  for (const [i, [method, params]] of moving.entries()) {
    const now = await answer(cached, method, params);
    assert.equal(now, await answer(fresh, method, params), `${method} ${JSON.stringify(params)}`);
    assert.notEqual(now, old[i], `${method} ${JSON.stringify(params)} answered as before the new head`);
  }
});

test('a reorganisation is answered afresh: the logs of a block rolled back say removed', async () => {
  const head = reader.head()!;
  const donor = nextBlocks(reader, 1)[0]!;
  new StoreWriter(store).append({ blocks: [donor] });
  await bothAt(head + 1);
  const byHash = ['eth_getLogs', [{ blockHash: bytesToHex(donor.header.hash) }]] as const;
  const canonical = JSON.parse(await answer(cached, ...byHash)) as { result: { removed: boolean }[] };
  assert.ok(canonical.result.length > 0 && canonical.result.every((log) => log.removed === false));
  new StoreWriter(store).append({ rollbackTo: head, blocks: nextBlocks(reader, 2, head) });
  await bothAt(head + 2);
  const after = await answer(cached, ...byHash);
  assert.equal(after, await answer(fresh, ...byHash));
  assert.ok((JSON.parse(after) as { result: { removed: boolean }[] }).result.every((log) => log.removed === true));
});

test('calls naming the pending block are never looked up or kept', async () => {
  const before = await cacheCounts(cached);
  for (let i = 0; i < 3; i++) {
    assert.equal(
      await answer(cached, 'eth_getBlockByNumber', ['pending', false]),
      await answer(fresh, 'eth_getBlockByNumber', ['pending', false]),
    );
  }
  assert.deepEqual(await cacheCounts(cached), before);
});
