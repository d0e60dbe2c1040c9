/**
 * Realtime with a real client library, unchanged: viem's watchBlocks and watchEvent over its
 * webSocket transport (eth_subscribe newHeads and logs), and createEventFilter + getFilterChanges
 * and watchEvent over its http transport (polling filters), while a writer appends blocks to the
 * store the service reads, as `ingest --follow` does. Every client sees every new block and log,
 * exactly once and in order.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPublicClient, http, type Log, webSocket } from 'viem';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { nextBlocks } from '../support/chainGrowth.js';
import { collector, fetchedBlocks } from '../support/collector.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';
import { until } from '../support/poll.js';

/** Blocks appended while the clients watch. */
const NEW_BLOCKS = 12;

let dataset: TestDataset;
let svc: TestService;
let store: Store;
let reader: StoreReader;

before(async () => {
  dataset = await makeDataset(60, 0.2, 'viem-realtime');
  store = openStore(dataset.dir);
  reader = new StoreReader(store);
  svc = await startTestService(dataset);
});

after(async () => {
  await svc.close();
  await closeStore(store);
  dataset.remove();
});

/** A log's place, as viem reports it. */
const place = (l: Pick<Log, 'blockNumber' | 'logIndex' | 'transactionHash'>) =>
  `${l.blockNumber}:${l.logIndex}:${l.transactionHash}`;

test('viem over webSocket (watchBlocks, watchEvent) and over http ' +
  '(createEventFilter, watchEvent) sees every new block and log once, in order', {
  timeout: 120_000,
}, async () => {
  const writer = new StoreWriter(store);
  const address = bytesToHex(nextBlocks(reader, 1)[0]!.logs[0]!.address) as `0x${string}`;
  const ws = createPublicClient({
    transport: webSocket(`${svc.service.url.replace('http://', 'ws://')}/ws/v3/${dataset.key}`),
  });
  const poller = createPublicClient({ transport: http(svc.endpoint), pollingInterval: 50 });
  const heads = collector<{ blockNumber: bigint | null }>('watchBlocks over webSocket');
  const wsLogs = collector<Log>('watchEvent over webSocket');
  const httpLogs = collector<Log>('watchEvent over http');
  const unwatch = [
    ws.watchBlocks({ onBlock: fetchedBlocks((number) => heads.push([{ blockNumber: number }])) }),
    ws.watchEvent({ address, onLogs: (logs) => wsLogs.push(logs) }),
    poller.watchEvent({ address, onLogs: (logs) => httpLogs.push(logs), poll: true }),
  ];
  try {
    // viem installs its subscriptions and its polling filter in the background: blocks carrying a log
    // of the address are appended until every watcher has reported one; what they report of the
    // blocks after these is checked.
    await until(async () => {
      const warmUp = nextBlocks(reader, 1);
      warmUp[0]!.logs = warmUp[0]!.logs.filter((l) => bytesToHex(l.address) === address);
      writer.append({ blocks: warmUp });
      await ws.getBlockNumber({ cacheTime: 0 });
      return heads.items.length > 0 && wsLogs.items.length > 0 && httpLogs.items.length > 0;
    }, 'every watcher reports');
    const mark = BigInt(reader.head()!);
    const filter = await poller.createEventFilter({ address });

    const blocks = nextBlocks(reader, NEW_BLOCKS);
    const first = blocks[0]!.header.number;
    for (let i = 0; i < NEW_BLOCKS; i += 3) writer.append({ blocks: blocks.slice(i, i + 3) });
    const expected = (await svc.result('eth_getLogs', [
      { address, fromBlock: quantityToHex(first), toBlock: quantityToHex(first + NEW_BLOCKS - 1) },
    ])) as { blockNumber: string; logIndex: string; transactionHash: string }[];
    assert.ok(expected.length > 0);
    const want = expected.map((l) =>
      place({
        blockNumber: BigInt(l.blockNumber),
        logIndex: Number(l.logIndex),
        transactionHash: l.transactionHash as `0x${string}`,
      }),
    );
    const after = <T extends { blockNumber: bigint | null }>(items: T[]) => items.filter((l) => l.blockNumber! > mark);
    const afterMark = async <T extends { blockNumber: bigint | null }>(
      c: { items: T[]; grow(past: number): Promise<void> },
      count: number,
    ) => {
      while (after(c.items).length < count) await c.grow(c.items.length);
      return after(c.items);
    };

    const newHeads = await afterMark(heads, NEW_BLOCKS);
    assert.deepEqual(
      newHeads.map((h) => h.blockNumber),
      blocks.map((b) => BigInt(b.header.number)),
      'watchBlocks over webSocket: every new block, in order',
    );
    assert.deepEqual((await afterMark(wsLogs, want.length)).map(place), want, 'watchEvent over webSocket');
    assert.deepEqual(
      (await afterMark(httpLogs, want.length)).map(place),
      want,
      'watchEvent over http (polling filter)',
    );
    const changes = await poller.getFilterChanges({ filter });
    assert.deepEqual(changes.map(place), want, 'createEventFilter + getFilterChanges over http');
    assert.ok(changes.every((l) => l.removed === false));
    await poller.uninstallFilter({ filter });
  } finally {
    for (const stop of unwatch) stop();
    await ws.transport.getRpcClient().then((rpc) => rpc.close());
    // viem's http watchEvent stops polling only once its eth_uninstallFilter has an answer (a
    // failed one leaves it polling forever): the service stays up until the filter is gone.
    await until(
      async () => /^ethlogd_filters_installed 0$/m.test(await (await fetch(`${svc.service.url}/metrics`)).text()),
      'viem uninstalls its filter',
    );
  }
});
