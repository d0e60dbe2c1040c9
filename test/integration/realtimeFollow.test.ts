/**
 * Realtime from a mining node to a client library: anvil mines while `ethlogd ingest --follow`
 * (a child process) copies each block into the store our server (this process) serves, and viem
 * watches: watchEvent and watchBlocks over its webSocket transport (eth_subscribe), watchEvent over
 * http (a polling filter) and an event filter polled with getFilterChanges; ethers v6's contract.on
 * over its WebSocketProvider (eth_subscribe) and JsonRpcProvider (eth_newFilter). Each gets every log of
 * 50 mined blocks exactly once and in order; after anvil_reorg replaces the last blocks, each viem
 * watcher gets the dropped logs again with removed: true, then the new branch's (ethers, by design,
 * turns removed logs into its orphan event: its listeners hear the new branch).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Contract, type ContractEventPayload, JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, http, type Log, webSocket } from 'viem';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, caughtUpWith, resultAt } from '../support/anvil.js';
import { type CliProcess, startCli } from '../support/child.js';
import { collector, fetchedBlocks } from '../support/collector.js';
import { until } from '../support/poll.js';
import { Workload } from '../support/workload.js';

/** Blocks mined while the clients watch. */
const MINED = 50;
/** Blocks with logs that anvil_reorg replaces. */
const REORG_DEPTH = 3;
/** How long ethers may stay silent while it lacks logs before an empty block is mined for it to poll again. */
const ETHERS_NUDGE_AFTER_MS = 2_000;
/** Empty blocks mined at most for ethers to poll its filters again. */
const ETHERS_NUDGES = 5;

type Obj = Record<string, unknown>;
const hex = (n: number | bigint) => '0x' + n.toString(16);
const logger = createLogger('warn');

let anvil: Anvil;
let workload: Workload;
let dir: string;
let service: RunningService;
let endpoint: string;
let key: string;
let follower: CliProcess;

/** One call to our server. */
const ours = <T = unknown>(method: string, params: unknown[] = []): Promise<T> => resultAt<T>(endpoint, method, params);

/** Waits until our server's latest block is anvil's (number and hash); returns its number. */
const caughtUp = (): Promise<number> => caughtUpWith(anvil, endpoint);

/** A log's identity and state, as viem reports it or as eth_getLogs answers it. */
const place = (l: { blockNumber?: unknown; logIndex?: unknown; transactionHash?: unknown; removed?: unknown }) =>
  `${BigInt(l.blockNumber as string | bigint)}:${Number(l.logIndex)}:` +
  `${String(l.transactionHash)}:${l.removed === true ? 'removed' : 'live'}`;

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  workload = await Workload.deploy(anvil, 7);
  await workload.mine(10, { special: false });
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-realtime-'));
  await runIngest({ rpc: anvil.url, dataDir: dir, logger });
  const store = openStore(dir);
  key = createApiKey(store, 'test');
  await closeStore(store);
  follower = startCli(['ingest', '--rpc', anvil.url, '--data', dir, '--follow', '--poll-ms', '20']);
  service = await startService({ dataDir: dir, host: '127.0.0.1', port: 0, logger, threads: 1 });
  endpoint = `${service.url}/v3/${key}`;
});

after(async () => {
  follower?.child.kill('SIGKILL');
  await service?.close();
  await anvil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test(`viem and ethers v6, over WebSocket and HTTP, get every log of ${MINED} blocks mined on anvil and copied by ` +
  'ingest --follow once, in order; after anvil_reorg the dropped logs removed (viem), then the new branch', {
  skip: ANVIL_MISSING,
  timeout: 180_000,
}, async () => {
  const ws = createPublicClient({
    transport: webSocket(`${service.url.replace('http://', 'ws://')}/ws/v3/${key}`, { reconnect: false }),
  });
  const poller = createPublicClient({ transport: http(endpoint), pollingInterval: 50 });
  const heads = collector<bigint>('watchBlocks over webSocket');
  const wsLogs = collector<Log>('watchEvent over webSocket');
  const httpLogs = collector<Log>('watchEvent over http');
  const unwatch = [
    ws.watchBlocks({ onBlock: fetchedBlocks((number) => heads.push([number!])) }),
    ws.watchEvent({ onLogs: (logs) => wsLogs.push(logs) }),
    poller.watchEvent({ onLogs: (logs) => httpLogs.push(logs), poll: true }),
  ];
  // ethers v6: contract.on('*') on every emitter, over a WebSocketProvider and a JsonRpcProvider.
  const wsProvider = new WebSocketProvider(`${service.url.replace('http://', 'ws://')}/ws/v3/${key}`);
  const httpProvider = new JsonRpcProvider(endpoint, undefined, { staticNetwork: true, polling: false });
  httpProvider.pollingInterval = 50;
  const ethersLogs = {
    ws: collector<Obj>('ethers contract.on over WebSocketProvider'),
    http: collector<Obj>('ethers contract.on over JsonRpcProvider'),
  };
  const contracts: Contract[] = [];
  for (const [name, provider] of [
    ['ws', wsProvider],
    ['http', httpProvider],
  ] as const) {
    for (const emitter of workload.emitters) {
      const contract = new Contract(emitter, [], provider);
      contracts.push(contract);
      await contract.on('*', (payload: ContractEventPayload) => {
        const l = payload.log;
        ethersLogs[name].push([
          {
            address: l.address.toLowerCase(),
            blockNumber: l.blockNumber,
            logIndex: l.index,
            transactionHash: l.transactionHash,
            removed: l.removed,
          },
        ]);
      });
    }
  }
  let filter: Awaited<ReturnType<typeof poller.createEventFilter>> | undefined;
  /** The places of `logs` from `address`. */
  const of = (logs: Obj[], address: string) =>
    logs.filter((l) => String(l.address).toLowerCase() === address.toLowerCase()).map(place);
  /** What contract.on('*') asks for (`topics: [null]`): the logs of `address` with a topic, as geth matches it. */
  const heard = (logs: Obj[], address: string) =>
    of(
      logs.filter((l) => (l.topics as unknown[]).length > 0),
      address,
    );
  /**
   * Waits until every ethers collector `done` accepts. ethers polls a filter when it sees a new block
   * number, and a block it sees while a poll is in flight starts none: the last blocks' logs can wait
   * in the filter for a block that never comes. So when a collector stays silent without what it
   * lacks, an empty block (no log changes) is mined for it to poll again; returns how many were.
   */
  const ethersHear = async (done: (c: { items: Obj[] }) => boolean): Promise<number> => {
    let nudges = 0;
    for (;;) {
      const waiting = Object.values(ethersLogs).find((c) => !done(c));
      if (waiting === undefined || nudges >= ETHERS_NUDGES) return nudges;
      if (await waiting.settles(() => done(waiting), ETHERS_NUDGE_AFTER_MS)) continue;
      await anvil.mine();
      await caughtUp();
      nudges++;
    }
  };
  try {
    // The watchers subscribe in the background: blocks are mined until each has reported a log.
    await until(
      async () => {
        await workload.mine(1, { special: false, min: 2, max: 3 });
        await caughtUp();
        return (
          heads.items.length > 0 &&
          wsLogs.items.length > 0 &&
          httpLogs.items.length > 0 &&
          ethersLogs.ws.items.length > 0 &&
          ethersLogs.http.items.length > 0
        );
      },
      'every watcher reports',
      60_000,
    );
    const mark = await caughtUp();
    filter = await poller.createEventFilter();
    const seen = { ws: wsLogs.items.length, http: httpLogs.items.length };

    for (let round = 0; round < 5; round++) await workload.mine(MINED / 5, { special: false });
    const head = await caughtUp();
    assert.equal(head, mark + MINED);
    const mined = await ours<Obj[]>('eth_getLogs', [{ fromBlock: hex(mark + 1), toBlock: hex(head) }]);
    const expected = mined.map(place);
    assert.ok(expected.length > MINED, `${expected.length} logs in ${MINED} blocks`);
    const fresh = (items: Log[]) => items.filter((l) => l.blockNumber! > BigInt(mark)).map(place);
    const total = (items: Log[]) => fresh(items).length >= expected.length;
    assert.deepEqual(fresh(await wsLogs.until(total)), expected, 'watchEvent over webSocket: every log once, in order');
    assert.deepEqual(fresh(await httpLogs.until(total)), expected, 'watchEvent over http: every log once, in order');
    assert.deepEqual(
      (await poller.getFilterChanges({ filter: filter })).map(place),
      expected,
      'createEventFilter + getFilterChanges',
    );
    await heads.until((items) => items.at(-1)! >= BigInt(head));
    assert.deepEqual(
      heads.items.filter((n) => n > BigInt(mark)),
      Array.from({ length: MINED }, (_, i) => BigInt(mark + 1 + i)),
      'watchBlocks: every new head once, in order',
    );
    // Empty blocks mined for ethers (ethersHear) carry no logs.
    const freshOf = (c: { items: Obj[] }, address: string) =>
      of(
        c.items.filter((l) => Number(l.blockNumber) > mark),
        address,
      );
    const heardAll = (c: { items: Obj[] }) =>
      workload.emitters.every((e) => freshOf(c, e).length >= heard(mined, e).length);
    const tip = head + (await ethersHear(heardAll));
    for (const [name, c] of Object.entries(ethersLogs)) {
      await c.until(() => heardAll(c));
      for (const e of workload.emitters)
        assert.deepEqual(freshOf(c, e), heard(mined, e), `ethers contract.on over ${name}: ${e}'s logs once, in order`);
    }

    // anvil_reorg replaces the last blocks (the mined ones and any empty ones after them) with others carrying other
    // transactions.
    const depth = REORG_DEPTH + (tip - head);
    const before = {
      ws: wsLogs.items.length,
      http: httpLogs.items.length,
      ethersWs: ethersLogs.ws.items.length,
      ethersHttp: ethersLogs.http.items.length,
    };
    const dropped = await ours<Obj[]>('eth_getLogs', [{ fromBlock: hex(head - REORG_DEPTH + 1), toBlock: hex(tip) }]);
    assert.ok(dropped.length > 0, 'the replaced blocks had logs');
    await anvil.rpc('anvil_reorg', [
      depth,
      [
        [workload.action(true), 0],
        [workload.action(true), 1],
        [workload.action(true), 1],
        [workload.action(true), 2],
      ],
    ]);
    assert.equal(await caughtUp(), tip, 'anvil_reorg keeps the height');
    const branch = (
      await ours<Obj[]>('eth_getLogs', [{ fromBlock: hex(head - REORG_DEPTH + 1), toBlock: hex(tip) }])
    ).map(place);
    const removed = dropped.map((l) => place({ ...l, removed: true }));
    const afterReorg = (items: Log[], from: number) => items.slice(from).map(place);
    for (const [name, c, from] of [
      ['webSocket', wsLogs, before.ws],
      ['http', httpLogs, before.http],
    ] as const) {
      const got = afterReorg(await c.until((items) => items.length - from >= removed.length + branch.length), from);
      const gone = got.slice(0, removed.length);
      assert.deepEqual(
        [...gone].sort(),
        [...removed].sort(),
        `${name}: the dropped logs first, each once, with removed: true`,
      );
      const blocks = gone.map((p) => Number(p.split(':')[0]));
      assert.deepEqual(
        blocks,
        [...blocks].sort((a, b) => b - a),
        `${name}: dropped blocks newest first`,
      );
      assert.deepEqual(got.slice(removed.length), branch, `${name}: then the new branch's logs in order`);
    }
    const changes = (await poller.getFilterChanges({ filter })).map(place);
    assert.deepEqual(
      [...changes.slice(0, removed.length)].sort(),
      [...removed].sort(),
      'the event filter: dropped logs removed',
    );
    assert.deepEqual(changes.slice(removed.length), branch, 'the event filter: then the new branch');
    // ethers turns a removed log into its own "orphan" event rather than calling the contract's
    // listeners (abstract-provider.ts): contract.on hears the new branch only. One more block is
    // mined so that each listener has something to hear after the reorganisation.
    await anvil.rpc('anvil_dropAllTransactions', []);
    await workload.syncNonces();
    // Blocks are mined (a few at most) until one carries an emitter's log: the workload picks its
    // actions at random, and a listener needs something to hear.
    let newTip = tip;
    let heardAfter: Obj[] = [];
    while (!workload.emitters.some((e) => heard(heardAfter, e).length > 0) && newTip < tip + 10) {
      await workload.mine(1, { special: false });
      newTip = await caughtUp();
      heardAfter = await ours<Obj[]>('eth_getLogs', [{ fromBlock: hex(head - REORG_DEPTH + 1), toBlock: hex(newTip) }]);
    }
    assert.ok(
      workload.emitters.some((e) => heard(heardAfter, e).length > 0),
      'the emitters logged after the reorganisation',
    );
    const since = new Map<{ items: Obj[] }, number>([
      [ethersLogs.ws, before.ethersWs],
      [ethersLogs.http, before.ethersHttp],
    ]);
    await ethersHear((c) =>
      workload.emitters.every((e) => of(c.items.slice(since.get(c)), e).length >= heard(heardAfter, e).length),
    );
    for (const [name, c, from] of [
      ['WebSocketProvider', ethersLogs.ws, before.ethersWs],
      ['JsonRpcProvider', ethersLogs.http, before.ethersHttp],
    ] as const) {
      await c.until((items) =>
        workload.emitters.every((e) => of(items.slice(from), e).length >= heard(heardAfter, e).length),
      );
      for (const e of workload.emitters)
        assert.deepEqual(
          of(c.items.slice(from), e),
          heard(heardAfter, e),
          `ethers over ${name}: ${e}'s logs of the new branch, none removed`,
        );
    }
    assert.ok(seen.ws > 0 && seen.http > 0);
  } finally {
    if (filter !== undefined) await poller.uninstallFilter({ filter });
    for (const contract of contracts) await contract.removeAllListeners();
    for (const stop of unwatch) stop();
    await ws.transport.getRpcClient().then((rpc) => rpc.close());
    // viem's http watchEvent stops polling only once its eth_uninstallFilter has an answer, and
    // ethers uninstalls its filters as the listeners go: the service stays up until they are gone.
    await until(
      async () => /^ethlogd_filters_installed 0$/m.test(await (await fetch(`${service.url}/metrics`)).text()),
      'viem and ethers uninstall their filters',
    );
    await wsProvider.destroy();
    httpProvider.destroy();
  }
});
