/**
 * `serve --follow-rpc`: one process that serves a store and follows a node into it (anvil, through a
 * proxy that can refuse the block reads of the ingest). Every JSON-RPC answer, refusals included,
 * carries X-Ethlogd-Head, the head its calls saw; /ready reports head, hash and lag, and answers 503
 * while the store is more than --max-lag-blocks behind the node, as eth_syncing agrees; an ingest that
 * fails is logged and started again, and the replica catches up; SIGTERM stops the server and the
 * ingest. Options that only a replica takes are refused without --follow-rpc.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, type NodeProxy, startProxy } from '../support/anvil.js';
import { type CliProcess, runCli, startCli } from '../support/child.js';
import { until } from '../support/poll.js';
import { Workload } from '../support/workload.js';

/** Lag the replica tolerates in this test. */
const MAX_LAG = 2;

type Obj = Record<string, unknown>;

let anvil: Anvil;
let proxy: NodeProxy;
let workload: Workload;
let dir: string;
let key: string;
let replica: CliProcess;
let base: string;
/** While true, the proxy refuses the ingest's block reads (eth_getBlockByNumber), as a failing node would. */
let refuseBlocks = false;

/** POSTs `body` to the replica with `apiKey` and returns the status, the X-Ethlogd-Head header and the parsed body. */
async function post(body: unknown, apiKey = key): Promise<{ status: number; head: string | null; json: any }> {
  const res = await fetch(`${base}/v3/${apiKey}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, head: res.headers.get('x-ethlogd-head'), json: await res.json() };
}

/** The replica's /ready answer. */
async function ready(): Promise<{ status: number; body: Obj }> {
  const res = await fetch(`${base}/ready`);
  return { status: res.status, body: (await res.json()) as Obj };
}

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  workload = await Workload.deploy(anvil, 5);
  await workload.mine(10, { special: false });
  proxy = await startProxy(anvil.url, {
    refuse: (call) =>
      refuseBlocks && call.method === 'eth_getBlockByNumber'
        ? { code: -32000, message: 'injected: block reads refused' }
        : undefined,
  });
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-replica-'));
  await runIngest({ rpc: anvil.url, dataDir: dir, logger: createLogger('warn') });
  const store = openStore(dir);
  key = createApiKey(store, 'test');
  await closeStore(store);
  replica = startCli([
    'serve',
    '--data',
    dir,
    '--port',
    '0',
    '--threads',
    '1',
    '--http-threads',
    '2',
    '--follow-rpc',
    proxy.url,
    '--follow-poll-ms',
    '20',
    '--max-lag-blocks',
    String(MAX_LAG),
    '--access-log',
    'off',
  ]);
  base = (await replica.waitForStderr(/listening on (http:\/\/[\d.]+:\d+)/))[1]!;
  await workload.discover();
});

after(async () => {
  replica?.child.kill('SIGKILL');
  await proxy?.close();
  await anvil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('the replica follows anvil: /ready reports head, hash and lag 0, eth_syncing is false', {
  skip: ANVIL_MISSING,
}, async () => {
  await workload.mine(4, { special: false });
  const tip = await anvil.rpc<Obj>('eth_getBlockByNumber', ['latest', false]);
  await until(async () => (await ready()).body.hash === tip.hash, "the replica's /ready names anvil's head");
  assert.deepEqual(await ready(), {
    status: 200,
    body: { ready: true, status: 'ready', head: Number(tip.number), hash: tip.hash, lag: 0 },
  });
  assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] })).json.result, false);
});

test('a replica forwards what its store cannot answer to the node it follows (--upstream defaults to --follow-rpc)', {
  skip: ANVIL_MISSING,
}, async () => {
  const head = (await post({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).json.result as string;
  const [account] = await anvil.rpc<string[]>('eth_accounts', []);
  const through = await post({ jsonrpc: '2.0', id: 7, method: 'eth_getBalance', params: [account, head] });
  assert.equal(through.status, 200);
  assert.deepEqual(through.json, {
    jsonrpc: '2.0',
    id: 7,
    result: await anvil.rpc<string>('eth_getBalance', [account, head]),
  });
});

test('every JSON-RPC answer carries X-Ethlogd-Head, the head its calls saw: results, errors, batches and refusals', {
  skip: ANVIL_MISSING,
}, async () => {
  const single = await post({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  assert.equal(single.head, String(Number(single.json.result)));
  const batch = await post([
    { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
    { jsonrpc: '2.0', id: 2, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] },
  ]);
  assert.equal(batch.head, String(Number(batch.json[0].result)));
  const error = await post({ jsonrpc: '2.0', id: 1, method: 'eth_nothing', params: [] });
  assert.equal(error.json.error.code, -32601);
  assert.match(error.head ?? '', /^\d+$/);
  const refused = await post({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, 'not-a-key');
  assert.equal(refused.status, 401);
  assert.match(refused.head ?? '', /^\d+$/);
  assert.ok(Number(refused.head) >= Number(single.head), 'the head never goes back');
});

test('behind its node by more than --max-lag-blocks: /ready 503 with the lag, ' +
  'eth_syncing the syncing object; a failed ingest is logged, restarted, and catches up', {
  skip: ANVIL_MISSING,
}, async () => {
  const head = Number((await ready()).body.head);
  refuseBlocks = true;
  await workload.mine(MAX_LAG + 3, { special: false });
  const nodeHead = await anvil.head();
  await until(
    async () => (await ready()).body.lag === nodeHead - head,
    "/ready's lag counts every block the node mined",
  );
  const behind = await ready();
  assert.equal(behind.status, 503);
  assert.deepEqual(
    { ...behind.body, hash: undefined },
    {
      ready: false,
      status: 'unavailable',
      reason: `the store is ${nodeHead - head} blocks behind its node (more than ${MAX_LAG})`,
      head,
      hash: undefined,
      lag: nodeHead - head,
    },
  );
  const syncing = await post({ jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] });
  assert.deepEqual(syncing.json.result, {
    startingBlock: syncing.json.result.startingBlock,
    currentBlock: '0x' + head.toString(16),
    highestBlock: '0x' + nodeHead.toString(16),
  });
  assert.ok(Number(syncing.json.result.startingBlock) <= head);
  await replica.waitForStderr(/follow-mode ingest exited \(code 1\)[^"]*restarting it in \d+ ms/);
  refuseBlocks = false;
  const tip = await anvil.rpc<Obj>('eth_getBlockByNumber', ['latest', false]);
  await until(async () => (await ready()).body.hash === tip.hash, 'the restarted ingest caught up');
  assert.equal((await ready()).status, 200);
  assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] })).json.result, false);
});

test('SIGTERM stops the server and its ingest: exit 0, no ingest left', { skip: ANVIL_MISSING }, async () => {
  const pids = [...replica.stderr().matchAll(/follow-mode ingest started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  assert.ok(pids.length >= 2, 'the ingest was started, then started again');
  replica.child.kill('SIGTERM');
  assert.equal(await replica.exited, 0);
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `ingest ${pid} has exited`);
});

test('replica options without --follow-rpc, and a bad --follow-rpc, exit 2 with what is wrong', {
  skip: ANVIL_MISSING,
}, async () => {
  const cases: [string[], RegExp][] = [
    [['--max-lag-blocks', '3'], /--max-lag-blocks needs --follow-rpc/],
    [['--follow-poll-ms', '50'], /--follow-poll-ms needs --follow-rpc/],
    [['--follow-rpc', 'anvil:8545'], /--follow-rpc must be an http:\/\/ or https:\/\/ URL/],
  ];
  for (const [args, message] of cases) {
    const ran = await runCli(['serve', '--data', dir, '--port', '0', ...args]);
    assert.equal(ran.code, 2, args.join(' '));
    assert.match(ran.stderr, message);
  }
});
