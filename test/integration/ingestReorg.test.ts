/**
 * Follow mode against anvil's reorganisations: `ethlogd ingest --follow` runs as a child process
 * while our server (this process) serves the same store. anvil_reorg replaces the last blocks with
 * other ones; evm_snapshot/evm_revert rewinds the chain and a shorter branch is mined. After each,
 * once our server answers anvil's head, the store is checked against anvil (blocks, transactions,
 * logs, storage, markers) and the reorganised-out blocks answer by hash with their logs marked
 * removed, while their transactions no longer answer by hash. Copy mode refuses a store whose head
 * the node reorganised away; SIGTERM stops the follower cleanly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, type Call, caughtUpWith, resultAt } from '../support/anvil.js';
import { type CliProcess, runCli, startCli } from '../support/child.js';
import { ANVIL_EXTRAS, compareAnswers, type Tolerance } from '../support/differ.js';
import { until } from '../support/poll.js';
import { Workload } from '../support/workload.js';

/**
 * What our server answers about reorganised-out blocks that anvil does not (anvil forgets them: null, "unknown block").
 */
const ORPHAN_DIFFERENCES =
  'ethlogd serves a reorganised-out block by hash from orphans, ' +
  'its logs with removed: true; anvil answers null / "unknown block"';

type Obj = Record<string, unknown>;
const hex = (n: number) => '0x' + n.toString(16);
const logger = createLogger('warn');
const TOLERATED: readonly Tolerance[] = ANVIL_EXTRAS;

let anvil: Anvil;
let workload: Workload;
let dir: string;
let service: RunningService;
let endpoint: string;
let follower: CliProcess;

/** One call to our server. */
const ours = <T = unknown>(method: string, params: unknown[] = []): Promise<T> => resultAt<T>(endpoint, method, params);

/** Waits until our server's latest block is anvil's (number and hash); returns its number. */
const caughtUp = (): Promise<number> => caughtUpWith(anvil, endpoint);

/** Compares every block, every transaction, the logs of the whole range, some storage and the markers with anvil. */
async function checkAgainstAnvil(head: number): Promise<void> {
  const blocks: Call[] = [];
  for (let n = 0; n <= head; n++)
    for (const full of [false, true]) blocks.push({ method: 'eth_getBlockByNumber', params: [hex(n), full] });
  for (const tag of ['latest', 'safe', 'finalized', 'earliest'])
    blocks.push({ method: 'eth_getBlockByNumber', params: [tag, false] });
  assert.deepEqual(await compareAnswers(endpoint, anvil.url, 'block', blocks, TOLERATED), []);
  const full = await anvil.rpcAll<Obj>(blocks.filter((c) => c.params[1] === true));
  const txs: Call[] = full.flatMap((b) =>
    (b.transactions as Obj[]).map((t) => ({ method: 'eth_getTransactionByHash', params: [t.hash] })),
  );
  assert.deepEqual(await compareAnswers(endpoint, anvil.url, 'transaction', txs, TOLERATED), []);
  const logs: Call[] = [{ method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: hex(head) }] }];
  for (const address of workload.emitters)
    logs.push({
      method: 'eth_getLogs',
      params: [{ fromBlock: hex(Math.max(0, head - 20)), toBlock: 'latest', address }],
    });
  assert.deepEqual(await compareAnswers(endpoint, anvil.url, 'log', logs, TOLERATED), []);
  const storage: Call[] = [];
  for (const { address, slot } of workload.slots().filter((_, i) => i % 5 === 0)) {
    for (let n = Math.max(0, head - 12); n <= head; n++)
      storage.push({ method: 'eth_getStorageAt', params: [address, slot, hex(n)] });
  }
  assert.deepEqual(await compareAnswers(endpoint, anvil.url, 'storage', storage, TOLERATED), []);
}

/** The blocks [from, to] as anvil now has them (full), with our server's logs of each. */
async function snapshotBlocks(from: number, to: number): Promise<{ block: Obj; logs: Obj[] }[]> {
  const out: { block: Obj; logs: Obj[] }[] = [];
  for (let n = from; n <= to; n++) {
    const block = await anvil.rpc<Obj>('eth_getBlockByNumber', [hex(n), true]);
    out.push({ block, logs: await ours<Obj[]>('eth_getLogs', [{ blockHash: block.hash }]) });
  }
  return out;
}

/**
 * Checks the reorganised-out blocks: served by hash from orphans, logs removed, transactions gone unless re-included.
 */
async function checkOrphans(old: { block: Obj; logs: Obj[] }[]): Promise<void> {
  assert.ok(
    old.some((o) => o.logs.length > 0),
    'the reorganised-out blocks had logs',
  );
  for (const { block, logs } of old) {
    const hash = block.hash as string;
    assert.equal(await anvil.rpc('eth_getBlockByHash', [hash, false]), null, 'anvil forgot the block');
    const served = await ours<Obj>('eth_getBlockByHash', [hash, true]);
    assert.equal(served.hash, hash, ORPHAN_DIFFERENCES);
    assert.equal(served.number, block.number);
    assert.deepEqual(
      await ours('eth_getLogs', [{ blockHash: hash }]),
      logs.map((l) => ({ ...l, removed: true })),
      ORPHAN_DIFFERENCES,
    );
    for (const tx of block.transactions as Obj[]) {
      assert.deepEqual(
        await ours('eth_getTransactionByHash', [tx.hash]),
        await anvil.rpc('eth_getTransactionByHash', [tx.hash]),
      );
    }
  }
}

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  workload = await Workload.deploy(anvil);
  await workload.mine(40, { special: false });
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-reorg-'));
  await runIngest({ rpc: anvil.url, dataDir: dir, logger });
  const store = openStore(dir);
  const key = createApiKey(store, 'test');
  await closeStore(store);
  follower = startCli(['ingest', '--rpc', anvil.url, '--data', dir, '--follow', '--poll-ms', '20']);
  service = await startService({ dataDir: dir, host: '127.0.0.1', port: 0, logger, threads: 1 });
  endpoint = `${service.url}/v3/${key}`;
  await workload.discover();
});

after(async () => {
  follower?.child.kill('SIGKILL');
  await service?.close();
  await anvil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('follow mode copies new blocks as anvil mines them', { skip: ANVIL_MISSING }, async () => {
  await workload.mine(15, { special: false });
  await checkAgainstAnvil(await caughtUp());
});

test('anvil_reorg: the last blocks are replaced in one step; the old ones answer by hash, logs removed: true', {
  skip: ANVIL_MISSING,
}, async () => {
  const head = await caughtUp();
  const old = await snapshotBlocks(head - 2, head);
  await anvil.rpc('anvil_reorg', [
    3,
    [
      [workload.action(true), 0],
      [workload.action(true), 1],
      [workload.action(true), 1],
      [workload.action(true), 2],
    ],
  ]);
  await workload.syncNonces();
  assert.equal(await caughtUp(), head, 'anvil_reorg keeps the height');
  await follower.waitForStderr(/reorganisation: blocks \d+\.\.\d+ moved to orphans/);
  await checkAgainstAnvil(head);
  await checkOrphans(old);
});

test('evm_revert to a snapshot, then a shorter branch: rolled back, then the new branch applied', {
  skip: ANVIL_MISSING,
}, async () => {
  const base = await caughtUp();
  const snapshot = await anvil.rpc<string>('evm_snapshot', []);
  await workload.mine(6, { special: false });
  const head = await caughtUp();
  const old = await snapshotBlocks(base + 1, head);
  assert.equal(await anvil.rpc('evm_revert', [snapshot]), true);
  await workload.syncNonces();
  await until(async () => (await ours('eth_blockNumber')) === hex(base), `our server answers the rewound head ${base}`);
  await workload.mine(2, { special: false });
  assert.equal(await caughtUp(), base + 2);
  await checkAgainstAnvil(base + 2);
  await checkOrphans(old);
  assert.equal(await workload.anvil.rpc('eth_getBlockByNumber', [hex(head), false]), null);
  assert.equal(await ours('eth_getBlockByNumber', [hex(head), false]), null, 'blocks above the new head are gone');
});

test('SIGTERM stops the follower cleanly; copy mode then refuses a ' +
  'head the node reorganised away, follow mode repairs it', {
  skip: ANVIL_MISSING,
}, async () => {
  follower.child.kill('SIGTERM');
  assert.equal(await follower.exited, 0);
  assert.match(follower.stdout(), /^ingested \d+ blocks, .* head \d+ in /m);
  const head = await anvil.head();
  await anvil.rpc('anvil_reorg', [2, [[workload.action(true), 0]]]);
  await workload.syncNonces();
  const copy = await runCli(['ingest', '--rpc', anvil.url, '--data', dir]);
  assert.equal(copy.code, 1);
  assert.match(copy.stderr, new RegExp(`the stored head, block ${head}, is not the node's block ${head}.*--follow`));
  follower = startCli(['ingest', '--rpc', anvil.url, '--data', dir, '--follow', '--poll-ms', '20']);
  assert.equal(await caughtUp(), head);
  await checkAgainstAnvil(head);
});
