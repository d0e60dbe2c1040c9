/**
 * The library API (src/index.ts) as an embedding pipeline uses it, against the HTTP front over the
 * same store: the logs iterator (in order, uncapped, with a slow consumer, resumption, abort and
 * deadline) equals eth_getLogs; point lookups rendered with toRpc* equal the JSON-RPC answers; a
 * writable store appends blocks and manages keys that an in-process server honours.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { BlockBundle, LogEntry } from '#src/chain/types.js';
import {
  bytesToHex,
  createLogger,
  EthLogStore,
  InvalidParamsError,
  type LogFilter,
  QueryTimeoutError,
  quantityToHex,
  ReadOnlyStoreError,
  RpcError,
  startService,
  toRpcBlock,
  toRpcLog,
  toRpcTransaction,
} from '#src/index.js';
import { generateChain, generatePending, TRANSFER_TOPIC } from '#src/synth/generator.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';

const OPTS = { blocks: 500, seed: 'library', density: 0.2, pending: true };
const HEAD = OPTS.blocks - 1;
/**
 * Blocks per HTTP eth_getLogs query when rebuilding an uncapped answer (stays under the 10,000-log cap at this
 * density).
 */
const HTTP_SPAN = 40;

let dataset: TestDataset;
let http: TestService;
let store: EthLogStore;
let chain: BlockBundle[];

before(async () => {
  dataset = await makeDataset(OPTS.blocks, OPTS.density, OPTS.seed);
  http = await startTestService(dataset);
  store = EthLogStore.open(dataset.dir, { threads: 2 });
  chain = [...generateChain(OPTS)];
});

after(async () => {
  await store?.close();
  await http?.close();
  dataset?.remove();
});

/** eth_getLogs over [from, to] in spans that stay under the cap, concatenated. */
async function httpLogs(filter: Record<string, unknown>, from: number, to: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let start = from; start <= to; start += HTTP_SPAN) {
    const end = Math.min(to, start + HTTP_SPAN - 1);
    out.push(
      ...((await http.result('eth_getLogs', [
        { ...filter, fromBlock: quantityToHex(start), toBlock: quantityToHex(end) },
      ])) as unknown[]),
    );
  }
  return out;
}

/** Consumes an iteration as a pipeline stage would: async work between logs. */
async function collect(logs: AsyncIterable<LogEntry>): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  for await (const log of logs) {
    out.push(log);
    if (out.length % 500 === 0) await yieldToLoop();
  }
  return out;
}

describe('logs iterator', () => {
  test('a hot topic over the whole chain, past the 10,000-log cap, equals eth_getLogs piece by piece', async () => {
    const capped = await http.call('eth_getLogs', [
      { fromBlock: '0x0', toBlock: 'latest', topics: [bytesToHex(TRANSFER_TOPIC)] },
    ]);
    assert.equal(capped.error?.code, -32005, 'HTTP caps this query');
    const logs = await collect(store.logs({ fromBlock: 0, toBlock: 'latest', topics: [TRANSFER_TOPIC] }));
    assert.ok(logs.length > 10_000, `${logs.length} logs`);
    assert.deepEqual(logs.map(toRpcLog), await httpLogs({ topics: [bytesToHex(TRANSFER_TOPIC)] }, 0, HEAD));
  });

  test('address, topic alternatives, block hash and the pending block: the same answers as eth_getLogs', async () => {
    const sample = chain[123]!.logs.find((l) => l.topics.length >= 2)!;
    const pendingLog = generatePending(OPTS, chain[HEAD]!.header).logs[0]!;
    const filters: LogFilter[] = [
      { fromBlock: 0, toBlock: HEAD, address: sample.address },
      {
        fromBlock: 100n,
        toBlock: '0x12c',
        address: [sample.address, bytesToHex(chain[7]!.logs[0]!.address)],
        topics: [null, [sample.topics[1]!, new Uint8Array(32)]],
      },
      { blockHash: chain[200]!.header.hash },
      { fromBlock: HEAD - 3, toBlock: 'pending', address: pendingLog.address },
    ];
    for (const filter of filters) {
      const wire = JSON.parse(
        JSON.stringify(filter, (_k, v: unknown) =>
          v instanceof Uint8Array
            ? bytesToHex(v)
            : typeof v === 'bigint' || typeof v === 'number'
              ? quantityToHex(v)
              : v,
        ),
      ) as Record<string, unknown>;
      const expected = await http.result('eth_getLogs', [wire]);
      const logs = await collect(store.logs(filter));
      assert.deepEqual(logs.map(toRpcLog), expected, JSON.stringify(wire));
      assert.ok(logs.length > 0, JSON.stringify(wire));
    }
  });

  test('logLines: the same logs as JSON lines rendered by the workers, resumable after any run', async () => {
    const pendingLog = generatePending(OPTS, chain[HEAD]!.header).logs[0]!;
    const filters: LogFilter[] = [
      { fromBlock: 0, toBlock: 'latest', topics: [TRANSFER_TOPIC] },
      { fromBlock: HEAD - 3, toBlock: 'pending', address: pendingLog.address },
      { blockHash: chain[42]!.header.hash },
    ];
    for (const filter of filters) {
      const expected = (await collect(store.logs(filter))).map((l) => JSON.stringify(toRpcLog(l)));
      let text = '';
      let count = 0;
      let runs = 0;
      for await (const run of store.logLines(filter)) {
        const lines = Buffer.from(run.text).toString('latin1');
        assert.ok(lines.endsWith('\n'), 'a run ends with a whole line');
        assert.equal(lines.split('\n').length - 1, run.count);
        const last = JSON.parse(lines.trimEnd().split('\n').at(-1)!) as {
          blockNumber: string | null;
          logIndex: string | null;
        };
        if (last.blockNumber !== null)
          assert.deepEqual(
            [quantityToHex(run.last.block), quantityToHex(run.last.logIndex)],
            [last.blockNumber, last.logIndex],
          );
        text += lines;
        count += run.count;
        runs++;
      }
      assert.equal(text, expected.map((l) => l + '\n').join(''));
      assert.equal(count, expected.length);
      assert.ok(count > 0 && runs > 0);
    }
    const filter: LogFilter = { fromBlock: 0, toBlock: 'latest', topics: [TRANSFER_TOPIC] };
    const runs = store.logLines(filter);
    const first = (await runs.next()).value!;
    await runs.return();
    let rest = '';
    for await (const run of store.logLines(filter, {
      from: { block: first.last.block, logIndex: first.last.logIndex + 1 },
    }))
      rest += Buffer.from(run.text).toString('latin1');
    const all = (await collect(store.logs(filter))).map((l) => JSON.stringify(toRpcLog(l)) + '\n');
    assert.equal(Buffer.from(first.text).toString('latin1') + rest, all.join(''));
  });

  test('resuming from a position continues exactly after the last log delivered', async () => {
    const filter: LogFilter = { fromBlock: 50, toBlock: 150 };
    const all = await collect(store.logs(filter));
    const last = all[1234]!;
    const rest = await collect(
      store.logs(filter, { from: { block: last.blockNumber!, logIndex: last.logIndex! + 1 } }),
    );
    assert.deepEqual(rest.map(toRpcLog), all.slice(1235).map(toRpcLog));
  });

  test('aborting stops the iteration with the signal reason, and the engine keeps answering', async () => {
    const controller = new AbortController();
    let seen = 0;
    await assert.rejects(async () => {
      for await (const _log of store.logs({ fromBlock: 0, toBlock: 'latest' }, { signal: controller.signal })) {
        if (++seen === 10) controller.abort(new Error('enough'));
      }
    }, /enough/);
    assert.equal(seen, 10, 'no log after the abort');
    const again = await collect(store.logs({ blockHash: chain[3]!.header.hash }));
    assert.equal(again.length, chain[3]!.logs.length);
    const pre = new AbortController();
    pre.abort();
    await assert.rejects(collect(store.logs({}, { signal: pre.signal })), { name: 'AbortError' });
  });

  test('a deadline ends a long iteration with -32005 query timeout exceeded', async () => {
    await assert.rejects(
      collect(store.logs({ fromBlock: 0, toBlock: 'latest' }, { timeoutMs: 1 })),
      (error: unknown) => {
        assert.ok(error instanceof QueryTimeoutError);
        assert.equal(error.code, -32005);
        return true;
      },
    );
  });

  test('invalid filters fail with the JSON-RPC errors eth_getLogs answers', async () => {
    const bad: [LogFilter, Record<string, unknown>][] = [
      [{ address: '0x1234' }, { address: '0x1234' }],
      [
        { fromBlock: 10, toBlock: 5 },
        { fromBlock: '0xa', toBlock: '0x5' },
      ],
      [{ topics: [null, null, null, null, null] }, { topics: [null, null, null, null, null] }],
      [{ toBlock: HEAD + 10 }, { toBlock: quantityToHex(HEAD + 10) }],
    ];
    for (const [filter, wire] of bad) {
      const answer = await http.call('eth_getLogs', [wire]);
      await assert.rejects(collect(store.logs(filter)), (error: unknown) => {
        assert.ok(error instanceof RpcError);
        assert.deepEqual(
          { code: error.code, message: error.message },
          { code: answer.error!.code, message: answer.error!.message },
        );
        return true;
      });
    }
    assert.throws(() => store.getBlock(-1), InvalidParamsError);
  });
});

describe('point lookups', () => {
  test('blocks, transactions and storage equal the JSON-RPC answers', async () => {
    for (const n of [0, 1, 250, HEAD]) {
      const hex = quantityToHex(n);
      assert.deepEqual(toRpcBlock(store.getBlock(n)!), await http.result('eth_getBlockByNumber', [hex, false]));
      assert.deepEqual(
        toRpcBlock(store.getBlock(hex, { transactions: true })!),
        await http.result('eth_getBlockByNumber', [hex, true]),
      );
      const hash = chain[n]!.header.hash;
      assert.deepEqual(
        toRpcBlock(store.getBlock(hash)!),
        await http.result('eth_getBlockByHash', [bytesToHex(hash), false]),
      );
      const tx = chain[n]!.transactions.at(-1)!;
      assert.deepEqual(
        toRpcTransaction(store.getTransaction(tx.hash)!),
        await http.result('eth_getTransactionByHash', [bytesToHex(tx.hash)]),
      );
      const index = chain[n]!.transactions.length - 1;
      assert.deepEqual(
        toRpcTransaction(store.getTransactionAt(n, index)!),
        await http.result('eth_getTransactionByBlockNumberAndIndex', [hex, quantityToHex(index)]),
      );
      for (const write of chain[n]!.storage.slice(0, 3)) {
        const params = [bytesToHex(write.address), bytesToHex(write.slot), hex];
        assert.equal(
          bytesToHex(store.getStorageAt(write.address, write.slot, n)),
          await http.result('eth_getStorageAt', params),
        );
        assert.equal(
          bytesToHex(store.getStorageAt(bytesToHex(write.address), bytesToHex(write.slot), bytesToHex(hash))),
          await http.result('eth_getStorageAt', params),
        );
      }
    }
    for (const tag of ['latest', 'earliest', 'safe', 'finalized', 'pending'] as const) {
      const block = store.getBlock(tag, { transactions: true })!;
      assert.deepEqual(toRpcBlock(block), await http.result('eth_getBlockByNumber', [tag, true]), tag);
      assert.equal(block.status, tag === 'pending' ? 'pending' : 'canonical');
    }
    const pendingTx = store.getBlock('pending', { transactions: true })!.transactions![0]!;
    assert.deepEqual(
      toRpcTransaction(store.getTransaction(pendingTx.hash)!),
      await http.result('eth_getTransactionByHash', [bytesToHex(pendingTx.hash)]),
    );
  });

  test('unknown blocks and transactions are null; storage at an unknown block throws -32000', () => {
    assert.equal(store.getBlock(HEAD + 1), null);
    assert.equal(store.getBlock(new Uint8Array(32)), null);
    assert.equal(store.getTransaction(new Uint8Array(32).fill(1)), null);
    assert.equal(store.getTransactionAt(3, 100_000), null);
    assert.throws(
      () => store.getStorageAt(new Uint8Array(20), 0, HEAD + 1),
      (error: unknown) => error instanceof RpcError && error.code === -32000 && error.message === 'header not found',
    );
    assert.deepEqual(store.getStorageAt(new Uint8Array(20), 5n), new Uint8Array(32));
  });
});

describe('writable store and in-process servers', () => {
  test('appends blocks, creates and revokes keys, and serves them through startService', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ethlogd-lib-'));
    const writer = EthLogStore.open(dir, { writable: true });
    try {
      const blocks = [...generateChain({ blocks: 30, seed: 'library-writer', density: 0.1 })];
      writer.append({ blocks: blocks.slice(0, 20), chainId: 5n });
      writer.append({ blocks: blocks.slice(20), safe: 25, finalized: 20 });
      assert.deepEqual(writer.meta(), { chainId: 5n, earliest: 0, head: 29, safe: 25, finalized: 20 });
      assert.deepEqual(writer.getBlock(29)!.header.hash, blocks[29]!.header.hash);
      assert.equal(writer.verify().problems.length, 0);
      const key = writer.createApiKey('library');
      assert.ok(writer.listApiKeys().some((k) => k.label === 'library' && k.revoked === null));

      const absent = join(dir, 'absent');
      assert.throws(() => EthLogStore.open(absent), /^Error: no store at .*absent: no such directory$/);
      assert.throws(() => EthLogStore.open(dir + '/..'), /^Error: no store at .*: no data\.mdb$/);
      assert.equal(existsSync(absent), false, 'opening read-only creates nothing');
      const reader = EthLogStore.open(dir);
      assert.throws(() => reader.append({ blocks: [] }), ReadOnlyStoreError);
      assert.throws(() => reader.createApiKey('x'), ReadOnlyStoreError);
      await reader.close();

      const service = await startService({
        dataDir: dir,
        host: '127.0.0.1',
        port: 0,
        grpcPort: 0,
        logger: createLogger('warn'),
      });
      try {
        const call = (k: string) =>
          fetch(`${service.url}/v3/${k}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
          });
        const ok = await call(key);
        assert.equal(ok.status, 200);
        assert.deepEqual(await ok.json(), { jsonrpc: '2.0', id: 1, result: '0x5' });
        assert.ok(service.grpcPort! > 0);
        assert.equal(writer.revokeApiKey(key), true);
        assert.equal((await call(key)).status, 401);
      } finally {
        await service.close();
      }
    } finally {
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
