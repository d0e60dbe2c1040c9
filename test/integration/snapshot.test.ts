/**
 * Readers see whole commits while a writer appends: the service answers requests over a store that
 * another process (`ethlogd generate`, resuming the same chain) is growing, and every answer is a
 * consistent snapshot. The head never moves back; in one batch, eth_blockNumber, eth_getLogs over
 * [0, latest] and eth_getBlockByNumber(latest) agree on the head, and the logs are exactly those of
 * blocks 0..head as the generator made them (none missing, none extra, none half-written); each new
 * block's per-block eth_getLogs answer equals its slice of the range answer; and each transaction of
 * a block at or below a reported head is found by hash and by block and index. The written range
 * crosses a segment boundary (4,096 blocks), where the segment's bloom bits appear.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';
import { generateChain } from '#src/synth/generator.js';
import { startCli } from '../support/child.js';
import { type RpcResponse, startTestService, type TestService } from '../support/harness.js';

const SEED = 'snapshot';
const DENSITY = 0.002;
const TOTAL = 6_000;
/** Blocks stored before the writer starts; the writer crosses block 4,096 (the first segment's end). */
const PREFIX = 3_000;
/** Calls per batch request when checking many blocks (the service takes up to 1,000). */
const BATCH = 500;
const hex = bytesToHex;
const q = quantityToHex;

type Obj = Record<string, any>;

let dir: string;
let chain: BlockBundle[];
let server: TestService;

before(async () => {
  chain = [...generateChain({ blocks: TOTAL, seed: SEED, density: DENSITY })];
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-snapshot-'));
  await generateStore(dir, { blocks: PREFIX, seed: SEED, density: DENSITY, pending: false, progress: false });
  const store = openStore(dir);
  const key = createApiKey(store, 'snapshot');
  await closeStore(store);
  server = await startTestService({
    dir,
    key,
    revokedKey: key,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  });
});

after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `calls` as one batch; returns their results in order, failing on any error. */
async function batch(calls: [string, unknown[]][]): Promise<any[]> {
  const { status, json } = await server.post(
    calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })),
  );
  assert.equal(status, 200);
  const answers = json as RpcResponse[];
  assert.equal(answers.length, calls.length);
  return answers.map((answer, i) => {
    assert.equal(answer.id, i);
    assert.equal(
      answer.error,
      undefined,
      `${calls[i]![0]} ${JSON.stringify(calls[i]![1])}: ${JSON.stringify(answer.error)}`,
    );
    return answer.result;
  });
}

/** Sends `calls` in batches of BATCH. */
async function batches(calls: [string, unknown[]][]): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < calls.length; i += BATCH) out.push(...(await batch(calls.slice(i, i + BATCH))));
  return out;
}

/** The head and the logs of [0, latest] from one batch, checked against each other and the generator. */
async function snapshot(): Promise<{ head: number; logs: Obj[] }> {
  const [number, logs, block] = await batch([
    ['eth_blockNumber', []],
    ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]],
    ['eth_getBlockByNumber', ['latest', false]],
  ]);
  const head = Number(number);
  assert.ok(head >= PREFIX - 1 && head < TOTAL, `head ${head}`);
  const made = chain[head]!;
  assert.equal(block.number, number, 'eth_getBlockByNumber(latest) in the same batch');
  assert.equal(block.hash, hex(made.header.hash));
  assert.deepEqual(
    block.transactions,
    made.transactions.map((t) => hex(t.hash)),
  );
  let i = 0;
  for (let b = 0; b <= head; b++) {
    const { header, transactions } = chain[b]!;
    chain[b]!.logs.forEach((log, logIndex) => {
      const got = logs[i++] as Obj | undefined;
      assert.ok(got, `head ${head}: the range answer ends before block ${b}'s log ${logIndex}`);
      assert.deepEqual(
        [
          got.blockNumber,
          got.logIndex,
          got.blockHash,
          got.transactionIndex,
          got.transactionHash,
          got.address,
          got.data,
          got.topics,
          got.removed,
        ],
        [
          q(b),
          q(logIndex),
          hex(header.hash),
          q(log.txIndex),
          hex(transactions[log.txIndex]!.hash),
          hex(log.address),
          hex(log.data),
          log.topics.map(hex),
          false,
        ],
        `head ${head}: block ${b}, log ${logIndex}`,
      );
    });
  }
  assert.equal(logs.length, i, `head ${head}: exactly the logs of blocks 0..${head}`);
  return { head, logs };
}

/**
 * Checks blocks from..to (at or below a reported head): per-block logs against the range answer, every transaction by
 * hash and by index.
 */
async function checkBlocks(from: number, to: number, rangeLogs: Obj[]): Promise<void> {
  const byBlock = new Map<string, Obj[]>();
  for (const log of rangeLogs) {
    const list = byBlock.get(log.blockNumber) ?? [];
    list.push(log);
    byBlock.set(log.blockNumber, list);
  }
  const withLogs: number[] = [];
  const txCalls: [string, unknown[]][] = [];
  for (let b = from; b <= to; b++) {
    if (chain[b]!.logs.length > 0) withLogs.push(b);
    chain[b]!.transactions.forEach((tx, i) => {
      txCalls.push(
        ['eth_getTransactionByHash', [hex(tx.hash)]],
        ['eth_getTransactionByBlockNumberAndIndex', [q(b), q(i)]],
      );
    });
  }
  const perBlock = await batches(withLogs.map((b) => ['eth_getLogs', [{ blockHash: hex(chain[b]!.header.hash) }]]));
  withLogs.forEach((b, k) =>
    assert.deepEqual(
      perBlock[k],
      byBlock.get(q(b)),
      `block ${b}: its own eth_getLogs answer is its slice of the range answer`,
    ),
  );
  const txs = await batches(txCalls);
  let k = 0;
  for (let b = from; b <= to; b++) {
    chain[b]!.transactions.forEach((tx, i) => {
      const [byHash, byIndex] = [txs[k++] as Obj | null, txs[k++] as Obj | null];
      assert.ok(byHash && byIndex, `block ${b}, transaction ${i}: found by hash and by index`);
      assert.deepEqual(
        [byHash.hash, byHash.blockNumber, byHash.blockHash, byHash.transactionIndex],
        [hex(tx.hash), q(b), hex(chain[b]!.header.hash), q(i)],
      );
      assert.deepEqual(byIndex, byHash, `block ${b}, transaction ${i}: the same object both ways`);
    });
  }
}

test('a server answering while another process appends: every answer is a consistent snapshot', {
  timeout: 120_000,
}, async (t) => {
  const first = await snapshot();
  assert.equal(first.head, PREFIX - 1);
  await checkBlocks(0, first.head, first.logs);

  const writer = startCli([
    'generate',
    '--out',
    dir,
    '--blocks',
    String(TOTAL),
    '--seed',
    SEED,
    '--density',
    String(DENSITY),
  ]);
  let writing = true;
  void writer.exited.then(() => (writing = false));
  let head = first.head;
  const heads: number[] = [];
  for (;;) {
    // Read before the snapshot: the last snapshot is taken after the writer has exited.
    const last = !writing;
    const seen = await snapshot();
    assert.ok(seen.head >= head, `the head moved back from ${head} to ${seen.head}`);
    if (seen.head > head) {
      await checkBlocks(head + 1, seen.head, seen.logs);
      heads.push(seen.head);
      head = seen.head;
    }
    if (last) break;
  }
  assert.equal(await writer.exited, 0, writer.stderr());
  t.diagnostic(`heads seen while the writer appended: ${heads.join(', ')}`);
  assert.equal(head, TOTAL - 1, 'the whole chain is served once the writer is done');
  assert.ok(
    heads.some((h) => h < TOTAL - 1),
    `the reader saw heads while the writer was appending (${heads.join(', ')})`,
  );
});
