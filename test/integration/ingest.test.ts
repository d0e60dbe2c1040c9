/**
 * Ingest from a real node, checked differentially: anvil mines a chain of mixed transactions (every
 * type, creations, reverts, events with 0 to 4 topics, anonymous and large ones, mapping and slot
 * writes and clears); ingest copies it (in two runs, a server already serving the store between
 * them); then anvil and our server are asked the same questions — every block by number with both
 * flags and by every tag, every transaction by hash and by block and index, eth_getStorageAt of the
 * written slots at every block, and a few hundred eth_getLogs filters — and must answer alike,
 * field for field, apart from the differences listed in TOLERATED. A second ingest through a
 * proxy that drops eth_getBlockReceipts and injects 429s, 503s and a hang must store the same bytes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { IngestConflictError } from '#src/ingest/errors.js';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, batchCalls, type Call, startProxy } from '../support/anvil.js';
import { startCli } from '../support/child.js';
import { ANVIL_EXTRAS, compareAnswers, type Tolerance } from '../support/differ.js';
import { captureLogger } from '../support/logCapture.js';
import { until } from '../support/poll.js';
import { diffStores } from '../support/storeDiff.js';
import { Workload } from '../support/workload.js';

/** Blocks mined in all; the last FOLLOWED_BLOCKS are mined while follow mode runs. */
const BLOCKS = 150;
const FOLLOWED_BLOCKS = 30;

/** Every difference between our answers and anvil's that the comparison accepts, with the reason. */
const TOLERATED: readonly Tolerance[] = ANVIL_EXTRAS;

type Obj = Record<string, unknown>;
const hex = (n: number) => '0x' + n.toString(16);
const logger = createLogger('warn');

let anvil: Anvil;
let workload: Workload;
let dir: string;
let service: RunningService | undefined;
let endpoint: string;
let head: number;
let anvilBlocks: Obj[];

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  workload = await Workload.deploy(anvil);
  await workload.mine(BLOCKS - FOLLOWED_BLOCKS);
  head = await anvil.head();
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-ingest-'));
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

/** Asks both servers `calls` and returns every untolerated difference, naming the call. */
function compare(kind: string, calls: Call[]): Promise<string[]> {
  return compareAnswers(endpoint, anvil.url, kind, calls, TOLERATED);
}

describe('ingest from anvil', { skip: ANVIL_MISSING }, () => {
  test(
    'copies the chain, resumes it, then follows it; ' + 'a server on the store sees each commit without a restart',
    async () => {
      const first = await runIngest({
        rpc: anvil.url,
        dataDir: dir,
        to: head - 50,
        logger,
        tuning: { blocksPerRequest: 7, commitBlocks: 20 },
      });
      assert.equal(first.head, head - 50);
      assert.equal(first.blocks, head - 49);
      assert.ok(first.receiptsByBlock);
      const second = await runIngest({ rpc: anvil.url, dataDir: dir, logger });
      assert.equal(second.blocks, 50);
      assert.equal(second.head, head);
      const store = openStore(dir);
      const key = createApiKey(store, 'test');
      await closeStore(store);
      // In one process lmdb-js shares one environment per path, opened with the first opener's flags:
      // the writer (the follower) opens the store before the read-only server.
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
      assert.equal(await ours('eth_chainId'), await anvil.rpc('eth_chainId', []));
      try {
        for (let round = 0; round < 3; round++) {
          await workload.mine(FOLLOWED_BLOCKS / 3);
          head = await anvil.head();
          await until(
            async () => (await ours('eth_blockNumber')) === hex(head),
            `the server answers the new head ${head}`,
          );
          const recent = { method: 'eth_getLogs', params: [{ fromBlock: hex(head - 9), toBlock: hex(head) }] };
          assert.deepEqual(await compare('log', [recent]), [], 'the log workers read the new blocks too');
        }
      } finally {
        stop.abort();
        const followed = await following;
        assert.equal(followed.head, head);
      }
      await workload.discover();
      const tip = (await ours('eth_getBlockByNumber', ['latest', false])) as Obj;
      assert.equal(tip.hash, (await anvil.rpc<Obj>('eth_getBlockByNumber', [hex(head), false])).hash);
    },
  );

  test('every block by number (both flags) and by every tag answers as anvil does', async () => {
    const calls: Call[] = [];
    for (let n = 0; n <= head; n++)
      for (const full of [false, true]) calls.push({ method: 'eth_getBlockByNumber', params: [hex(n), full] });
    for (const tag of ['latest', 'earliest', 'safe', 'finalized'])
      for (const full of [false, true]) calls.push({ method: 'eth_getBlockByNumber', params: [tag, full] });
    calls.push({ method: 'eth_getBlockByNumber', params: [hex(head + 1), false] });
    assert.deepEqual(await compare('block', calls), []);
    anvilBlocks = await anvil.rpcAll<Obj>(
      calls.filter((c) => c.params[1] === true && String(c.params[0]).startsWith('0x')).slice(0, head + 1),
    );
    const types = new Set(anvilBlocks.flatMap((b) => (b.transactions as Obj[]).map((t) => t.type)));
    assert.deepEqual([...types].sort(), ['0x0', '0x1', '0x2', '0x3', '0x4'], 'the chain holds every transaction type');
    const byHash = anvilBlocks
      .filter((_, i) => i % 7 === 0)
      .flatMap((b) => [false, true].map((full) => ({ method: 'eth_getBlockByHash', params: [b.hash, full] })));
    assert.deepEqual(await compare('block', byHash), []);
  });

  test(
    'transaction and uncle counts by number, tag and hash ' + 'answer as anvil does; null for an absent block',
    async () => {
      const calls: Call[] = [];
      for (const b of anvilBlocks) {
        calls.push(
          { method: 'eth_getBlockTransactionCountByNumber', params: [b.number] },
          { method: 'eth_getBlockTransactionCountByHash', params: [b.hash] },
        );
        calls.push(
          { method: 'eth_getUncleCountByBlockNumber', params: [b.number] },
          { method: 'eth_getUncleCountByBlockHash', params: [b.hash] },
        );
      }
      for (const tag of ['latest', 'earliest'])
        calls.push(
          { method: 'eth_getBlockTransactionCountByNumber', params: [tag] },
          { method: 'eth_getUncleCountByBlockNumber', params: [tag] },
        );
      calls.push({ method: 'eth_getBlockTransactionCountByHash', params: ['0x' + 'ab'.repeat(32)] });
      assert.ok(
        anvilBlocks.some((b) => (b.transactions as Obj[]).length > 1),
        'blocks with several transactions',
      );
      assert.deepEqual(await compare('count', calls), []);
      assert.deepEqual(
        await compare('count', [{ method: 'eth_syncing', params: [] }]),
        [],
        'eth_syncing: false, as a node that is synced',
      );
      // Anvil refuses a block past its head (-32602); geth, and ethlogd, answer null.
      assert.equal(await ours('eth_getBlockTransactionCountByNumber', [hex(head + 1)]), null);
    },
  );

  test('every transaction by hash and by block and index answers as anvil does', async () => {
    const calls: Call[] = [];
    for (const b of anvilBlocks) {
      const txs = b.transactions as Obj[];
      txs.forEach((tx, i) => {
        calls.push({ method: 'eth_getTransactionByHash', params: [tx.hash] });
        calls.push({ method: 'eth_getTransactionByBlockNumberAndIndex', params: [b.number, hex(i)] });
        calls.push({ method: 'eth_getTransactionByBlockHashAndIndex', params: [b.hash, hex(i)] });
      });
      calls.push({ method: 'eth_getTransactionByBlockNumberAndIndex', params: [b.number, hex(txs.length)] });
    }
    calls.push({ method: 'eth_getTransactionByHash', params: ['0x' + 'ab'.repeat(32)] });
    assert.ok(calls.length > 1000);
    assert.deepEqual(await compare('transaction', calls), []);
    const receipts = await anvil.rpcAll<Obj>(
      anvilBlocks.flatMap((b) =>
        (b.transactions as Obj[]).map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.hash] })),
      ),
    );
    assert.ok(
      receipts.some((r) => r.status === '0x0'),
      'the chain holds reverted transactions',
    );
    assert.ok(receipts.filter((r) => r.contractAddress).length >= 4, 'the chain holds contract creations');
  });

  test(
    "every receipt by transaction hash, and every block's receipts by " +
      'number, hash, tag and EIP-1898 object, answer as anvil does',
    async () => {
      const calls: Call[] = [];
      for (const b of anvilBlocks) {
        for (const tx of b.transactions as Obj[])
          calls.push({ method: 'eth_getTransactionReceipt', params: [tx.hash] });
        calls.push(
          { method: 'eth_getBlockReceipts', params: [b.number] },
          { method: 'eth_getBlockReceipts', params: [b.hash] },
        );
      }
      const sample = anvilBlocks.filter((b) => (b.transactions as Obj[]).length > 1).slice(0, 5);
      for (const b of sample)
        calls.push(
          { method: 'eth_getBlockReceipts', params: [{ blockHash: b.hash }] },
          { method: 'eth_getBlockReceipts', params: [{ blockNumber: b.number }] },
        );
      for (const tag of ['latest', 'earliest', 'safe', 'finalized'])
        calls.push({ method: 'eth_getBlockReceipts', params: [tag] });
      calls.push(
        { method: 'eth_getTransactionReceipt', params: ['0x' + 'ab'.repeat(32)] },
        { method: 'eth_getBlockReceipts', params: ['0x' + 'ab'.repeat(32)] },
      );
      assert.deepEqual(await compare('receipt', calls), []);
      const blobTxs = anvilBlocks.flatMap((b) => (b.transactions as Obj[]).filter((t) => t.type === '0x3'));
      assert.ok(blobTxs.length > 0, 'the chain holds blob transactions');
      for (const tx of blobTxs) {
        const theirs = await anvil.rpc<Obj>('eth_getTransactionReceipt', [tx.hash]);
        const mine = (await ours('eth_getTransactionReceipt', [tx.hash])) as Obj;
        assert.deepEqual(
          [mine.blobGasUsed, mine.blobGasPrice],
          [theirs.blobGasUsed, theirs.blobGasPrice],
          "a blob transaction's blob gas, as anvil",
        );
      }
      const others = (await ours('eth_getBlockReceipts', [anvilBlocks.at(-1)!.number])) as Obj[];
      assert.ok(
        others.every((r) => r.type === '0x3' || !('blobGasPrice' in r)),
        'blob gas fields only on blob transactions (geth)',
      );
      const mine = (await ours('eth_getBlockReceipts', [anvilBlocks.at(-1)!.number])) as Obj[];
      assert.equal(mine.length, (anvilBlocks.at(-1)!.transactions as Obj[]).length, 'one receipt per transaction');
      // Anvil refuses a block past its head; geth, and ethlogd, answer null.
      assert.equal(await ours('eth_getBlockReceipts', [hex(head + 1)]), null);
    },
  );

  test('eth_getStorageAt of the written slots at every block answers as anvil does', async () => {
    const slots = workload.slots();
    const calls: Call[] = [];
    for (const { address, slot } of slots.filter((_, i) => i % 7 === 0)) {
      for (let n = 0; n <= head; n++) calls.push({ method: 'eth_getStorageAt', params: [address, slot, hex(n)] });
      calls.push({ method: 'eth_getStorageAt', params: [address, slot, 'latest'] });
    }
    assert.deepEqual(await compare('storage', calls), []);
    const values = await anvil.rpcAll<string>(calls);
    let writes = 0;
    let clears = 0;
    for (let i = 1; i < calls.length; i++) {
      if (calls[i]!.params[2] === '0x0' || calls[i]!.params[2] === 'latest' || values[i] === values[i - 1]) continue;
      writes++;
      if (/^0x0+$/.test(values[i]!)) clears++;
    }
    assert.ok(writes >= 100, `the comparison covers many writes (before and after each), got ${writes}`);
    assert.ok(clears >= 5, `and slots cleared back to zero, got ${clears}`);
  });

  test('a few hundred eth_getLogs filters answer as anvil does', async () => {
    const all = await anvil.rpc<Obj[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head) }]);
    assert.ok(all.length >= 3 * BLOCKS, `several logs per block, got ${all.length}`);
    assert.deepEqual(
      [...new Set(all.map((l) => (l.topics as unknown[]).length))].sort(),
      [0, 1, 2, 3, 4],
      'logs with 0 to 4 topics',
    );
    assert.ok(
      all.some((l) => (l.data as string).length > 2 * 2000),
      'logs with large data',
    );
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
    const addresses = [...workload.emitters, workload.factoryAddress, '0x' + '12'.repeat(20)];
    const known = workload.topics();
    /** A topic at position `i` of a real log half of the time (so filters match), else a known value. */
    const topic = (i: number) => {
      const log = pick(all);
      return rand(2) === 0 && (log.topics as string[]).length > i ? (log.topics as string[])[i]! : pick(known);
    };
    const patterns: (() => unknown[])[] = [
      () => [],
      () => [topic(0)],
      () => [[topic(0), topic(0), topic(0)]],
      () => [null, topic(1)],
      () => [null, null, topic(2)],
      () => [topic(0), null, null, topic(3)],
      () => [null, [topic(1), topic(1)]],
      () => [topic(0), topic(1)],
      () => [null, null, null, null],
      () => [[topic(0), topic(0)], null, [topic(2), topic(2)]],
    ];
    const calls: Call[] = [];
    for (let i = 0; i < 300; i++) {
      const filter: Obj = {};
      if (i % 10 === 0) filter.blockHash = pick(anvilBlocks).hash;
      else if (i % 10 === 1)
        Object.assign(filter, { fromBlock: pick(['earliest', 'safe', 'finalized']), toBlock: 'latest' });
      else if (i % 10 !== 2) {
        const a = rand(head + 1);
        const b = rand(head + 1);
        Object.assign(filter, { fromBlock: hex(Math.min(a, b)), toBlock: hex(Math.max(a, b)) });
      }
      const k = rand(5);
      if (k === 1) filter.address = pick(addresses);
      else if (k >= 2)
        filter.address = Array.from({ length: k - 1 }, () => (rand(2) ? pick(all).address : pick(addresses)));
      const t = pick(patterns)();
      if (t.length > 0 || rand(2) === 0) filter.topics = t;
      calls.push({ method: 'eth_getLogs', params: [filter] });
    }
    assert.deepEqual(await compare('log', calls), []);
    const answers = await anvil.rpcAll<Obj[]>(calls);
    const nonEmpty = answers.filter((a) => a.length > 0).length;
    assert.ok(nonEmpty >= 90, `a good share of the filters match logs, got ${nonEmpty}`);
  });

  test('the pending tag: ethlogd stores no pending block from a node and answers latest', async () => {
    const pending = (await ours('eth_getBlockByNumber', ['pending', false])) as Obj;
    assert.equal(pending.number, hex(head));
  });
});

describe('ingest through a troubled node', { skip: ANVIL_MISSING }, () => {
  test(
    'without eth_getBlockReceipts (said once), refusing to trace block ' +
      '0, through 429s, 503s and a hang, it stores the same bytes',
    async () => {
      let genesisTraces = 0;
      const proxy = await startProxy(anvil.url, {
        unsupported: ['eth_getBlockReceipts'],
        // geth's answer: block 0 has nothing to trace.
        refuse: (call) =>
          call.method === 'debug_traceBlockByNumber' && call.params?.[0] === '0x0'
            ? (genesisTraces++, { code: -32000, message: 'genesis is not traceable' })
            : undefined,
        fault: (n) => (n === 4 ? 'hang' : n % 5 === 2 ? 503 : n % 7 === 3 ? 429 : 'ok'),
      });
      const other = mkdtempSync(join(tmpdir(), 'ethlogd-ingest-proxy-'));
      const captured = captureLogger('warn');
      try {
        const result = await runIngest({
          rpc: proxy.url,
          dataDir: other,
          logger: captured.logger,
          tuning: { blocksPerRequest: 5, requestsInFlight: 3, commitBlocks: 30 },
          // The one injected hang waits out this timeout; a real answer must never reach it (500 ms
          // did, through the proxy on a loaded machine, and every such retry broke the count below).
          rpcOptions: { timeoutMs: 5_000, retryBaseMs: 1, retryMaxMs: 20 },
        });
        assert.equal(result.head, head);
        assert.equal(result.receiptsByBlock, false);
        const fallback = captured.lines.filter((l) => l.includes('does not serve eth_getBlockReceipts'));
        assert.equal(fallback.length, 1, 'the fallback is said once');
        assert.equal(genesisTraces, 0, 'block 0 is never traced');
        assert.ok(proxy.stats.unsupported > 0);
        assert.ok(proxy.stats.faults >= 10, `faults injected: ${proxy.stats.faults}`);
        assert.equal(result.retries, proxy.stats.faults);
        const a = openStore(dir, { readOnly: true });
        const b = openStore(other, { readOnly: true });
        try {
          assert.deepEqual(diffStores(b, a), []);
        } finally {
          await closeStore(b);
          await closeStore(a);
        }
      } finally {
        await proxy.close();
        rmSync(other, { recursive: true, force: true });
      }
    },
  );
});

describe('a node without debug_traceBlockByNumber (most hosted providers)', { skip: ANVIL_MISSING }, () => {
  test(
    'ingest stops before copying anything and names --storage ' + 'none; with it, the chain is copied without storage',
    async () => {
      const proxy = await startProxy(anvil.url, { unsupported: ['debug_traceBlockByNumber'] });
      const other = mkdtempSync(join(tmpdir(), 'ethlogd-ingest-notrace-'));
      try {
        await assert.rejects(
          runIngest({ rpc: proxy.url, dataDir: other, to: 5, logger: createLogger('error') }),
          (error: unknown) => {
            assert.ok(error instanceof IngestConflictError);
            assert.equal(error.code, 'no-traces');
            assert.match(error.message, /does not serve debug_traceBlockByNumber.*run with --storage none/);
            return true;
          },
        );
        const empty = openStore(other, { readOnly: true });
        assert.equal(new StoreReader(empty).meta(), undefined, 'nothing was copied');
        await closeStore(empty);
        const copied = await runIngest({
          rpc: proxy.url,
          dataDir: other,
          to: 5,
          storage: 'none',
          logger: createLogger('error'),
        });
        assert.equal(copied.head, 5);
      } finally {
        await proxy.close();
        rmSync(other, { recursive: true, force: true });
      }
    },
  );
});

describe('the genesis block', { skip: ANVIL_MISSING }, () => {
  test(
    '`ingest --genesis` stores block 0 with its alloc storage; ' +
      'without it, ingest says the genesis storage is absent',
    async () => {
      const dirs = [mkdtempSync(join(tmpdir(), 'ethlogd-genesis-')), mkdtempSync(join(tmpdir(), 'ethlogd-genesis-'))];
      const file = join(dirs[0]!, '..', `genesis-${process.pid}.json`);
      const address = '0x' + '7e'.repeat(20);
      writeFileSync(
        file,
        JSON.stringify({
          config: {},
          alloc: {
            [address.slice(2)]: {
              balance: '0x1',
              storage: { '0x01': '0x2a', ['0x' + '00'.repeat(31) + '02']: '0x' + '00'.repeat(32) },
            },
          },
        }),
      );
      try {
        const withGenesis = startCli([
          'ingest',
          '--rpc',
          anvil.url,
          '--data',
          dirs[0]!,
          '--to',
          '3',
          '--genesis',
          file,
        ]);
        assert.equal(await withGenesis.exited, 0, withGenesis.stderr());
        assert.match(withGenesis.stderr(), /block 0: 1 storage words from/);
        const without = startCli(['ingest', '--rpc', anvil.url, '--data', dirs[1]!, '--to', '3']);
        assert.equal(await without.exited, 0, without.stderr());
        assert.match(
          without.stderr(),
          /block 0: its storage \(the genesis alloc\) is not copied.*pass --genesis genesis.json/,
        );

        const genesis = await anvil.rpc<Obj>('eth_getBlockByNumber', ['0x0', false]);
        const store = openStore(dirs[0]!, { readOnly: true });
        try {
          const reader = new StoreReader(store);
          assert.equal(reader.earliest(), 0);
          assert.equal(
            Buffer.from(reader.header(0)!.hash).toString('hex'),
            (genesis.hash as string).slice(2),
            "block 0 is the node's",
          );
          assert.equal(reader.numberByHash(Buffer.from((genesis.hash as string).slice(2), 'hex')), 0);
          const slot = (n: number) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
          const word = (n: number) =>
            Buffer.from(reader.storageAt(Buffer.from(address.slice(2), 'hex'), slot(1), n)).toString('hex');
          assert.equal(word(0), '2a'.padStart(64, '0'), 'the alloc word at block 0');
          assert.equal(word(3), '2a'.padStart(64, '0'), 'and after it');
          assert.equal(
            Buffer.from(reader.storageAt(Buffer.from(address.slice(2), 'hex'), slot(2), 0)).toString('hex'),
            '00'.repeat(32),
            'a zero word is not stored',
          );
        } finally {
          await closeStore(store);
        }
      } finally {
        for (const d of dirs) rmSync(d, { recursive: true, force: true });
        rmSync(file, { force: true });
      }
    },
  );
});
