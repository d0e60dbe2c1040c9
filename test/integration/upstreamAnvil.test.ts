/**
 * `serve --upstream <anvil>` against anvil itself: an indexer's handlers (what Ponder's
 * readContract, getBalance and getCode do at an event's block, through viem's public actions)
 * build the same rows through ethlogd as against anvil directly; the forwarded methods answer what
 * the node answers (eth_call with a revert and its data, balances, code, nonces, proofs, gas
 * estimates, traces at a block); `latest` stays on ethlogd's head while the node is ahead.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Abi, createPublicClient, encodeFunctionData, http, type PublicClient } from 'viem';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, postJson, type Reply } from '../support/anvil.js';
import { contracts } from '../support/contracts.js';
import { Workload } from '../support/workload.js';

type Hex = `0x${string}`;
const hex = (n: number | bigint) => '0x' + n.toString(16);

/** Blocks of transactions mined before the store copies the chain. */
const BLOCKS = 24;

let anvil: Anvil;
let workload: Workload;
let dir: string;
let service: RunningService;
let endpoint: string;
/** The store's head: the node's head when it was copied. */
let head: number;
let abi: Abi;

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  workload = await Workload.deploy(anvil);
  await workload.mine(BLOCKS, { special: false });
  head = await anvil.head();
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-upstream-'));
  await runIngest({ rpc: anvil.url, dataDir: dir, to: head, storage: 'none', logger: createLogger('warn') });
  const store = openStore(dir);
  const key = createApiKey(store, 'indexer');
  await closeStore(store);
  service = await startService({
    dataDir: dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    threads: 1,
    httpThreads: 1,
    upstream: { url: anvil.url, headWaitMs: 50 },
  });
  endpoint = `${service.url}/v3/${key}`;
  abi = contracts().Emitter!.abi;
});

after(async () => {
  await service?.close();
  await anvil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** A viem public client over `url`, batching as an indexer's transport does. */
function client(url: string): PublicClient {
  return createPublicClient({ transport: http(url, { batch: { batchSize: 50, wait: 0 }, retryCount: 0 }) });
}

/** One call's whole answer from `url`. */
async function raw(url: string, method: string, params: unknown[]): Promise<Reply> {
  return (await postJson(url, { jsonrpc: '2.0', id: 1, method, params })) as Reply;
}

/** Asserts ethlogd and anvil give the same whole answer (result or error) to a call. */
async function same(method: string, params: unknown[]): Promise<Reply> {
  const [ours, theirs] = await Promise.all([raw(endpoint, method, params), raw(anvil.url, method, params)]);
  assert.deepEqual(ours, theirs, `${method} ${JSON.stringify(params)}`);
  return ours;
}

/** A row an indexer's handler stores for a log: the emitter's state and its recipients' at the log's block. */
interface Row {
  block: bigint;
  logIndex: number;
  emitter: Hex;
  balance: bigint;
  counter: bigint;
  ether: bigint;
  nonce: number;
  code: Hex | undefined;
}

/**
 * The rows an indexer over `url` builds: every log of the emitters, and at its block what its handler reads (Ponder's
 * context.client).
 */
async function index(url: string, to: number): Promise<Row[]> {
  const viem = client(url);
  const logs = await viem.getLogs({ address: workload.emitters, fromBlock: 0n, toBlock: BigInt(to) });
  assert.ok(logs.length > 50, `the chain has logs (${logs.length})`);
  const recipient = workload.recipients[0]!;
  return Promise.all(
    logs.map(async (log): Promise<Row> => {
      const at = { blockNumber: log.blockNumber };
      const [balance, counter, ether, nonce, code] = await Promise.all([
        viem.readContract({
          address: log.address,
          abi,
          functionName: 'balances',
          args: [recipient],
          ...at,
        }) as Promise<bigint>,
        viem.readContract({ address: log.address, abi, functionName: 'counter', ...at }) as Promise<bigint>,
        viem.getBalance({ address: recipient, ...at }),
        viem.getTransactionCount({ address: recipient, ...at }),
        viem.getCode({ address: log.address, ...at }),
      ]);
      return {
        block: log.blockNumber,
        logIndex: log.logIndex,
        emitter: log.address,
        balance,
        counter,
        ether,
        nonce,
        code,
      };
    }),
  );
}

describe('serve --upstream <anvil>', { skip: ANVIL_MISSING }, () => {
  test("an indexer's handlers build the same rows through ethlogd as against anvil, with no error", async () => {
    const [ours, theirs] = await Promise.all([index(endpoint, head), index(anvil.url, head)]);
    assert.equal(ours.length, theirs.length);
    assert.deepEqual(ours, theirs);
    assert.ok(new Set(ours.map((r) => r.counter)).size > 1, 'the state read changes from block to block');
  });

  test('forwarded methods answer what the node answers at a block', async () => {
    const at = hex(head - 3);
    const emitter = workload.emitters[0]!;
    const sender = anvil.accounts[0]!;
    const block = (await raw(anvil.url, 'eth_getBlockByNumber', [at, false])).result as { transactions: Hex[] };
    assert.ok(block.transactions.length > 0);
    const tx = block.transactions[0]!;
    const act = encodeFunctionData({ abi, functionName: 'act', args: [sender, 5n, 3n] });
    const fail = encodeFunctionData({ abi, functionName: 'fail', args: [7n] });
    const revert = await same('eth_call', [{ from: sender, to: emitter, data: fail }, at]);
    assert.equal(revert.error?.code, 3);
    assert.match(String(revert.error?.data), /^0x08c379a0/, 'the revert carries its reason as data');
    await same('eth_call', [{ to: emitter, data: encodeFunctionData({ abi, functionName: 'counter' }) }, at]);
    await same('eth_estimateGas', [{ from: sender, to: emitter, data: act }, at]);
    await same('eth_createAccessList', [{ from: sender, to: emitter, data: act }, at]);
    await same('eth_getBalance', [sender, at]);
    await same('eth_getCode', [emitter, at]);
    await same('eth_getTransactionCount', [sender, at]);
    await same('eth_getProof', [emitter, ['0x0', '0x1'], at]);
    await same('debug_traceTransaction', [tx, { tracer: 'callTracer' }]);
    await same('debug_traceBlockByNumber', [at, { tracer: 'callTracer' }]);
    await same('debug_traceCall', [{ from: sender, to: emitter, data: act }, at, { tracer: 'callTracer' }]);
    await same('trace_block', [at]);
    await same('trace_transaction', [tx]);
  });

  test("latest is ethlogd's head while the node is ahead; a block past it is refused", async () => {
    const emitter = workload.emitters[0]!;
    const recipient = workload.recipients[1]!;
    await anvil.sendAll([
      {
        from: anvil.accounts[0],
        to: emitter,
        gas: hex(2_000_000),
        data: encodeFunctionData({ abi, functionName: 'act', args: [recipient, 11n, 1n] }),
      },
      { from: anvil.accounts[1], to: recipient, value: hex(12345) },
    ]);
    await anvil.mine(3);
    assert.equal(await anvil.head(), head + 3);
    const ours = client(endpoint);
    const node = client(anvil.url);
    assert.equal(await ours.getBlockNumber({ cacheTime: 0 }), BigInt(head));
    const counter = { address: emitter, abi, functionName: 'counter' } as const;
    const [atLatest, atHead, nodeLatest] = await Promise.all([
      ours.readContract(counter),
      node.readContract({ ...counter, blockNumber: BigInt(head) }),
      node.readContract(counter),
    ]);
    assert.equal(atLatest, atHead);
    assert.notEqual(atLatest, nodeLatest, 'the node has moved on');
    assert.equal(
      await ours.getBalance({ address: recipient }),
      await node.getBalance({ address: recipient, blockNumber: BigInt(head) }),
    );
    assert.notEqual(await ours.getBalance({ address: recipient }), await node.getBalance({ address: recipient }));
    const beyond = await raw(endpoint, 'eth_getBalance', [recipient, hex(head + 1)]);
    assert.equal(beyond.error?.code, -32000);
    assert.equal(
      beyond.error?.message,
      `header not found: block ${hex(head + 1)} is beyond this store's head ${hex(head)}`,
    );
  });
});
