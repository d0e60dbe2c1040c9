/**
 * Ingest from an Arbitrum (Nitro) node and from a chain with a transaction type nobody models: a
 * fake node (fakeChainNode.ts) serves Nitro-shaped blocks and receipts (nitroFixtures.ts: every Arbitrum
 * type, an EIP-1559 transaction, a type 0x99 with nested and non-ASCII members); ingest copies them
 * into a real store, and our server answers every block (both flags, by number and hash), every
 * transaction by hash and by block and index, every receipt, every block's receipts and every
 * block's logs exactly as the node gave them, field for field.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { IngestConflictError } from '#src/ingest/errors.js';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { batchCalls, type Call } from '../support/anvil.js';
import { untolerated } from '../support/differ.js';
import { type FakeBlock, type FakeChainNode, startFakeChainNode } from '../support/fakeChainNode.js';
import { NITRO_CHAIN_ID, nitroChain } from '../support/nitroFixtures.js';

type Obj = Record<string, unknown>;
const logger = createLogger('warn');

let node: FakeChainNode;
let chain: FakeBlock[];
let dir: string;
let service: RunningService;
let endpoint: string;

before(async () => {
  chain = nitroChain();
  node = await startFakeChainNode(NITRO_CHAIN_ID, chain);
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-arbitrum-'));
  const result = await runIngest({
    rpc: node.url,
    dataDir: dir,
    storage: 'none',
    logger,
    tuning: { blocksPerRequest: 2, commitBlocks: 2 },
  });
  assert.equal(result.head, chain.length - 1);
  assert.equal(result.chainKind, 'arbitrum', 'the kind is detected from the blocks and recorded');
  const store = openStore(dir);
  const key = createApiKey(store, 'arbitrum');
  await closeStore(store);
  service = await startService({ dataDir: dir, host: '127.0.0.1', port: 0, logger, threads: 1 });
  endpoint = `${service.url}/v3/${key}`;
});

after(async () => {
  await service?.close();
  await node?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Our answers to `calls` against `expected`, every difference named with its call. */
async function differencesFrom(calls: Call[], expected: unknown[]): Promise<string[]> {
  const replies = await batchCalls(endpoint, calls);
  return replies.flatMap((reply, i) => {
    const what = `${calls[i]!.method}(${JSON.stringify(calls[i]!.params).slice(1, -1).slice(0, 100)})`;
    if (reply.error) return [`${what}: ${reply.error.message}`];
    return untolerated('any', reply.result, expected[i], []).map((d) => `${what}: ${d}`);
  });
}

describe('ingest from an Arbitrum node, and of a type nobody models', () => {
  test(
    'a store of one kind refuses another: --chain op on an Arbitrum ' +
      'store, and Nitro blocks into a store given as ethereum',
    async () => {
      const [one, two] = [mkdtempSync(join(tmpdir(), 'ethlogd-kind-')), mkdtempSync(join(tmpdir(), 'ethlogd-kind-'))];
      try {
        assert.equal(
          (await runIngest({ rpc: node.url, dataDir: one, storage: 'none', to: 1, logger })).chainKind,
          'arbitrum',
        );
        await assert.rejects(
          runIngest({ rpc: node.url, dataDir: one, storage: 'none', chain: 'op', logger }),
          (e: Error) => e instanceof IngestConflictError && /holds an arbitrum chain, not op/.test(e.message),
        );
        await assert.rejects(
          runIngest({ rpc: node.url, dataDir: two, storage: 'none', chain: 'ethereum', logger }),
          /blocks 0\.\.\d+ are of an arbitrum chain, the store's is ethereum/,
        );
      } finally {
        for (const d of [one, two]) rmSync(d, { recursive: true, force: true });
      }
    },
  );

  test('the fixtures hold every Arbitrum type, an ordinary one and 0x99', () => {
    const types = new Set(chain.flatMap((b) => (b.block.transactions as Obj[]).map((t) => t.type)));
    assert.deepEqual([...types].sort(), ['0x2', '0x64', '0x65', '0x66', '0x68', '0x69', '0x6a', '0x78', '0x99']);
  });

  test("every block, by number and hash with either flag, is the node's", async () => {
    const calls: Call[] = [];
    const expected: unknown[] = [];
    for (const { block } of chain) {
      const hashes = { ...block, transactions: (block.transactions as Obj[]).map((t) => t.hash) };
      calls.push(
        { method: 'eth_getBlockByNumber', params: [block.number, true] },
        { method: 'eth_getBlockByHash', params: [block.hash, true] },
      );
      calls.push(
        { method: 'eth_getBlockByNumber', params: [block.number, false] },
        { method: 'eth_getBlockByHash', params: [block.hash, false] },
      );
      expected.push(block, block, hashes, hashes);
    }
    assert.deepEqual(await differencesFrom(calls, expected), []);
  });

  test(
    'every transaction by hash and by block and index is the ' + "node's (0x99 with nested and non-ASCII members)",
    async () => {
      const calls: Call[] = [];
      const expected: unknown[] = [];
      for (const { block } of chain) {
        for (const tx of block.transactions as Obj[]) {
          calls.push({ method: 'eth_getTransactionByHash', params: [tx.hash] });
          calls.push({ method: 'eth_getTransactionByBlockHashAndIndex', params: [block.hash, tx.transactionIndex] });
          expected.push(tx, tx);
        }
      }
      assert.deepEqual(await differencesFrom(calls, expected), []);
      const unknown = chain.flatMap((b) => b.block.transactions as Obj[]).find((t) => t.type === '0x99')!;
      const [reply] = await batchCalls(endpoint, [{ method: 'eth_getTransactionByHash', params: [unknown.hash] }]);
      assert.deepEqual(reply!.result, unknown);
      assert.deepEqual(Object.keys(reply!.result as Obj).sort(), Object.keys(unknown).sort());
    },
  );

  test("every receipt, every block's receipts and every block's logs are the node's", async () => {
    const calls: Call[] = [];
    const expected: unknown[] = [];
    for (const { block, receipts } of chain) {
      for (const r of receipts) {
        calls.push({ method: 'eth_getTransactionReceipt', params: [r.transactionHash] });
        expected.push(r);
      }
      calls.push(
        { method: 'eth_getBlockReceipts', params: [block.number] },
        { method: 'eth_getLogs', params: [{ blockHash: block.hash }] },
      );
      expected.push(
        receipts,
        receipts.flatMap((r) => r.logs as Obj[]),
      );
    }
    assert.ok(
      chain.some((b) =>
        b.receipts.some((r) => (r.logs as Obj[]).length > 0 && !['0x0', '0x1', '0x2'].includes(r.type as string)),
      ),
    );
    assert.deepEqual(await differencesFrom(calls, expected), []);
  });
});
