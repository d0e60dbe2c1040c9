/**
 * Ingest from an OP-stack node, checked differentially: `anvil --network optimism` mines a chain
 * whose blocks start with deposit transactions (type 0x7e: with and without mint, system and not,
 * one calling a contract that emits logs) followed by the ordinary mix of every type anvil takes
 * there; ingest copies part of it, then follows it (through a reorganisation to another branch of
 * deposits); then anvil and our server are asked every block (both flags), every transaction by
 * hash, every receipt, every block's receipts and every block's logs, and must answer alike, field
 * for field, apart from ANVIL_EXTRAS (anvil's receipt blockTimestamp, its blob base fee on every
 * receipt).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData } from 'viem';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, batchCalls, type Call } from '../support/anvil.js';
import { contracts } from '../support/contracts.js';
import { ANVIL_EXTRAS, compareAnswers } from '../support/differ.js';
import { until } from '../support/poll.js';
import { Workload } from '../support/workload.js';

/** Blocks mined before ingest; FOLLOWED more while follow mode runs, then a reorganisation. */
const BLOCKS = 24;
const FOLLOWED = 6;

type Obj = Record<string, unknown>;
const hex = (n: number | bigint) => '0x' + n.toString(16);
const logger = createLogger('warn');

let anvil: Anvil;
let workload: Workload;
let dir: string;
let service: RunningService | undefined;
let endpoint: string;
let depositCount = 0;

/** An unfunded address: its deposits are paid for by their mint. */
const L1_ALIAS = '0x1111000000000000000000000000000000001111';

/**
 * The deposits that open a block: one minting ETH to an unfunded sender, one without mint from a
 * funded dev account (a system transaction every third block), one calling an Emitter (logs).
 */
function deposits(): Obj[] {
  const source = () => '0x' + (++depositCount).toString(16).padStart(64, '0');
  const funded = anvil.accounts[8]!;
  const act = encodeFunctionData({
    abi: contracts().Emitter!.abi,
    functionName: 'act',
    args: [funded, BigInt(depositCount), 3n],
  });
  return [
    {
      from: L1_ALIAS,
      to: anvil.accounts[1],
      value: hex(1000n),
      gas: hex(100_000),
      sourceHash: source(),
      mint: hex(10n ** 18n),
      isSystemTx: false,
    },
    {
      from: funded,
      to: anvil.accounts[2],
      value: '0x0',
      gas: hex(100_000),
      sourceHash: source(),
      isSystemTx: depositCount % 3 === 0,
    },
    {
      from: funded,
      to: workload.emitters[0],
      value: '0x0',
      gas: hex(1_000_000),
      sourceHash: source(),
      input: act,
      isSystemTx: false,
    },
  ];
}

/**
 * Mines `blocks` blocks, each opened by deposits (sent first: anvil runs with --order fifo) and then the workload's
 * mix.
 */
async function mine(blocks: number): Promise<void> {
  for (let b = 0; b < blocks; b++) {
    await anvil.sendAll(deposits());
    await workload.mine(1, { special: true });
  }
}

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--network', 'optimism', '--no-mining']);
  workload = await Workload.deploy(anvil);
  await mine(BLOCKS);
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-op-'));
});

after(async () => {
  await service?.close();
  await anvil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function ours(method: string, params: unknown[] = []): Promise<unknown> {
  const [reply] = await batchCalls(endpoint, [{ method, params }]);
  if (reply!.error) throw new Error(`${method}: ${reply!.error.message}`);
  return reply!.result;
}

/** Every block of the chain, transaction, receipt, block's receipts and block's logs, compared with anvil's. */
async function compareChain(): Promise<{ blocks: Obj[]; problems: string[] }> {
  const head = await anvil.head();
  const blocks = await anvil.rpcAll<Obj>(
    Array.from({ length: head + 1 }, (_, n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] })),
  );
  const calls: Record<string, Call[]> = { block: [], transaction: [], receipt: [], log: [] };
  for (const b of blocks) {
    for (const full of [false, true])
      calls.block!.push(
        { method: 'eth_getBlockByNumber', params: [b.number, full] },
        { method: 'eth_getBlockByHash', params: [b.hash, full] },
      );
    for (const tx of b.transactions as Obj[]) {
      calls.transaction!.push(
        { method: 'eth_getTransactionByHash', params: [tx.hash] },
        { method: 'eth_getTransactionByBlockNumberAndIndex', params: [b.number, tx.transactionIndex] },
      );
      calls.receipt!.push({ method: 'eth_getTransactionReceipt', params: [tx.hash] });
    }
    calls.receipt!.push({ method: 'eth_getBlockReceipts', params: [b.number] });
    calls.log!.push({ method: 'eth_getLogs', params: [{ blockHash: b.hash }] });
  }
  calls.log!.push({
    method: 'eth_getLogs',
    params: [{ fromBlock: '0x0', toBlock: hex(head), address: workload.emitters[0] }],
  });
  const problems: string[] = [];
  for (const [kind, list] of Object.entries(calls))
    problems.push(...(await compareAnswers(endpoint, anvil.url, kind, list, ANVIL_EXTRAS)));
  return { blocks, problems };
}

describe('ingest from an OP-stack node (anvil --network optimism)', { skip: ANVIL_MISSING }, () => {
  test(
    'copies a chain of deposits and every ordinary type, ' +
      'follows it through a reorganisation, and serves it as anvil does',
    async () => {
      const head = await anvil.head();
      const copied = await runIngest({
        rpc: anvil.url,
        dataDir: dir,
        to: head - 4,
        logger,
        tuning: { blocksPerRequest: 5, commitBlocks: 7 },
      });
      assert.equal(copied.head, head - 4);
      assert.equal(copied.chainKind, 'op', 'the kind is detected from the deposits and recorded');
      const store = openStore(dir);
      const key = createApiKey(store, 'op');
      await closeStore(store);
      const stop = new AbortController();
      const following = runIngest({
        rpc: anvil.url,
        dataDir: dir,
        follow: true,
        pollMs: 10,
        signal: stop.signal,
        logger,
      });
      service = await startService({ dataDir: dir, host: '127.0.0.1', port: 0, logger, threads: 1 });
      endpoint = `${service.url}/v3/${key}`;
      const caughtUp = async () => {
        const tip = await anvil.rpc<Obj>('eth_getBlockByNumber', ['latest', false]);
        await until(
          async () => ((await ours('eth_getBlockByNumber', ['latest', false])) as Obj | null)?.hash === tip.hash,
          `our head is anvil's ${String(tip.number)}`,
        );
      };
      try {
        await caughtUp();
        await mine(FOLLOWED);
        await caughtUp();
        const snapshot = await anvil.rpc<string>('evm_snapshot', []);
        await mine(2);
        await caughtUp();
        const replaced = await anvil.rpc<Obj>('eth_getBlockByNumber', ['latest', true]);
        assert.equal(await anvil.rpc('evm_revert', [snapshot]), true);
        await workload.syncNonces();
        await mine(3);
        await caughtUp();
        const orphan = (await ours('eth_getBlockByHash', [replaced.hash, true])) as Obj;
        assert.equal(
          orphan.hash,
          replaced.hash,
          'the reorganised-out block of deposits is served by hash from orphans',
        );
        assert.deepEqual(orphan.transactions, replaced.transactions, 'with its deposits as anvil gave them');
      } finally {
        stop.abort();
        await following;
      }
      const { blocks, problems } = await compareChain();
      assert.deepEqual(problems, []);
      const txs = blocks.flatMap((b) => b.transactions as Obj[]);
      const types = new Set(txs.map((t) => t.type));
      assert.deepEqual(
        [...types].sort(),
        ['0x0', '0x1', '0x2', '0x3', '0x4', '0x7e'],
        'deposits and every ordinary type anvil takes on optimism',
      );
      const deposits = txs.filter((t) => t.type === '0x7e');
      const minted = (t: Obj) => t.mint !== undefined && t.mint !== '0x0';
      assert.ok(deposits.some(minted) && deposits.some((t) => !minted(t)), 'deposits with and without mint');
      for (const b of blocks.slice(2))
        assert.equal((b.transactions as Obj[])[0]!.type, '0x7e', `block ${String(b.number)} opens with a deposit`);
      const depositLogs = (await ours('eth_getLogs', [
        { fromBlock: '0x0', toBlock: 'latest', address: workload.emitters[0] },
      ])) as Obj[];
      const depositHashes = new Set(deposits.map((t) => t.hash));
      assert.ok(
        depositLogs.some((l) => depositHashes.has(l.transactionHash)),
        'a deposit emitted logs',
      );
      const receipt = (await ours('eth_getTransactionReceipt', [deposits[0]!.hash])) as Obj;
      assert.ok(
        'depositNonce' in receipt && 'depositReceiptVersion' in receipt,
        'a deposit receipt keeps depositNonce and depositReceiptVersion',
      );
    },
  );
});
