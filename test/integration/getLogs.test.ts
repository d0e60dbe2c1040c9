/**
 * eth_getLogs under its limits, through the real HTTP server and the real Piscina pool: the result
 * cap and its suggested range, the deadline, point lookups answered while a long scan runs,
 * batches, worker failures and recovery, the pool size, cancellation after a capped answer, and
 * reorganised-out blocks selected by hash.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bloomBits } from '#src/chain/bloom.js';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { DEFAULT_LOG_LIMITS, type LogLimits } from '#src/config.js';
import type { LogChunks } from '#src/logs/answer.js';
import { LogEngine } from '#src/logs/engine.js';
import { ResultCapError, ScanFailedError } from '#src/logs/errors.js';
import { oracleGetLogs } from '#src/logs/oracle.js';
import { DENSE_TASKS, planTasks, TASKS_PER_THREAD } from '#src/logs/planner.js';
import type { ScanResult, ScanTask } from '#src/logs/task.js';
import { toRpcError } from '#src/rpc/errors.js';
import { parseFilter } from '#src/rpc/filterParams.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import {
  makeDataset,
  type RpcResponse,
  startTestService,
  type TestDataset,
  type TestService,
} from '../support/harness.js';

/**
 * Large enough that an unfiltered scan of the whole range takes hundreds of ms (2 threads, this machine) and answers
 * ~20 MB.
 */
const BLOCKS = 1200;
const DENSITY = 0.05;
const SEED = 'getlogs';
const HEAD = BLOCKS - 1;
const hex = quantityToHex;

type Obj = Record<string, unknown>;

let dataset: TestDataset;
let store: Store;
let reader: StoreReader;

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, SEED);
  store = openStore(dataset.dir, { readOnly: true });
  reader = new StoreReader(store);
});

after(async () => {
  await closeStore(store);
  dataset.remove();
});

/** The engine's chunks (text or UTF-8 bytes) as one comma-separated string, like the oracle's fragments joined. */
function text(chunks: readonly (string | Uint8Array)[]): string {
  return chunks
    .map((c) => (typeof c === 'string' ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8')))
    .join(',');
}

/** The oracle's outcome for a raw filter: the logs (parsed) or the RpcError's JSON. */
function oracle(raw: Obj, limits: Partial<LogLimits>): { logs: Obj[] } | { error: unknown } {
  const l = { ...DEFAULT_LOG_LIMITS, ...limits };
  try {
    return { logs: JSON.parse(`[${oracleGetLogs(reader, parseFilter(raw, l.maxParams), l).join(',')}]`) as Obj[] };
  } catch (error) {
    const rpc = toRpcError(error);
    if (rpc !== undefined) return { error: rpc.toJSON() };
    throw error;
  }
}

/**
 * POSTs on a connection of its own. `sent` settles once the request is fully written, `started`
 * once the response's status line and headers arrive (the server has begun answering), `response`
 * with the whole parsed body. With `hold`, the client stops reading at the first bytes of the body
 * until `hold` settles (a slow reader: the server keeps the rest).
 */
function postOwnConnection(
  svc: TestService,
  body: unknown,
  hold?: Promise<void>,
): { sent: Promise<void>; started: Promise<void>; response: Promise<RpcResponse> } {
  const url = new URL(svc.endpoint);
  let sentResolve!: () => void;
  let startedResolve!: () => void;
  const sent = new Promise<void>((resolve) => (sentResolve = resolve));
  const started = new Promise<void>((resolve) => (startedResolve = resolve));
  const response = new Promise<RpcResponse>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        startedResolve();
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          parts.push(c);
          if (hold === undefined || parts.length > 1) return;
          res.pause();
          void hold.then(() => res.resume());
        });
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(parts).toString('utf8')) as RpcResponse);
          } catch (error) {
            reject(error as Error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('finish', sentResolve);
    req.end(JSON.stringify(body));
  });
  return { sent, started, response };
}

describe('result cap through HTTP', () => {
  const CAP = 200;
  let svc: TestService;
  before(async () => {
    svc = await startTestService(dataset, { maxResults: CAP });
  });
  after(async () => {
    await svc.close();
  });

  test('-32005 with the largest range that fits: [from, to] answers, [from, to+1] does not', async () => {
    const topic = (reader.logs(HEAD).find((l) => l.topics.length > 0) ?? reader.logs(HEAD - 1)[0]!).topics[0]!;
    const filters: Obj[] = [
      { fromBlock: '0x0', toBlock: 'latest' },
      { fromBlock: hex(1000), toBlock: hex(HEAD) }, // across the task boundary at 1024
      { fromBlock: '0x0', toBlock: 'latest', topics: [bytesToHex(topic)] },
    ];
    let checked = 0;
    for (const filter of filters) {
      const res = await svc.call('eth_getLogs', [filter]);
      assert.ok(res.error, `capped: ${JSON.stringify(filter)}`);
      const data = res.error.data as { from: string; to: string; limit: number };
      assert.equal(res.error.code, -32005);
      assert.equal(
        res.error.message,
        `query returned more than ${CAP} results. Try with this block range [${data.from}, ${data.to}].`,
      );
      assert.deepEqual(Object.keys(data).sort(), ['from', 'limit', 'to']);
      assert.equal(data.limit, CAP);
      assert.equal(data.from, filter.fromBlock);
      assert.deepEqual(
        res.error,
        (oracle(filter, { maxResults: CAP }) as { error?: unknown }).error,
        'the same answer as the oracle',
      );
      const to = Number(data.to);
      assert.ok(to < HEAD);

      const fits = await svc.call('eth_getLogs', [{ ...filter, fromBlock: data.from, toBlock: data.to }]);
      assert.equal(fits.error, undefined, JSON.stringify(fits.error));
      const logs = fits.result as Obj[];
      assert.ok(logs.length <= CAP && logs.length > 0, `${logs.length} logs`);
      assert.ok(Number(logs.at(-1)!.blockNumber) <= to);

      const over = await svc.call('eth_getLogs', [{ ...filter, fromBlock: data.from, toBlock: hex(to + 1) }]);
      assert.equal(over.error?.code, -32005, `[${data.from}, ${hex(to + 1)}] must not fit`);
      assert.deepEqual(over.error!.data, data, 'the same suggestion again');
      checked++;
    }
    assert.equal(checked, filters.length);
  });

  test('the ranges ending at or just before the suggested end are answered, as the oracle answers them', async () => {
    const res = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    const { to } = res.error!.data as { to: string };
    const first = Number(to) - 3;
    for (let end = first; end <= Number(to); end++) {
      const ok = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(end) }]);
      assert.ok(Array.isArray(ok.result), `[0, ${end}]`);
      assert.deepEqual(
        ok.result,
        (oracle({ fromBlock: '0x0', toBlock: hex(end) }, { maxResults: CAP }) as { logs: Obj[] }).logs,
      );
    }
  });
});

test('deadline: a whole-range scan under a 1 ms budget answers -32005 query timeout exceeded', async (t) => {
  const svc = await startTestService(dataset, { timeoutMs: 1, maxResults: 1e9 });
  try {
    // A cheap call first: the service is up and the connection made before the clock starts.
    assert.equal(await svc.result('eth_blockNumber', []), hex(HEAD));
    const started = performance.now();
    const res = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    const elapsed = performance.now() - started;
    assert.deepEqual(res.error, { code: -32005, message: 'query timeout exceeded' });
    t.diagnostic(`answered in ${elapsed.toFixed(0)} ms`);
    // The service still answers afterwards.
    assert.equal(await svc.result('eth_blockNumber', []), hex(HEAD));
  } finally {
    await svc.close();
  }
});

describe('concurrency and batches', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService(dataset, { maxResults: 1e9 });
  });
  after(async () => {
    await svc.close();
  });

  test('a point lookup is answered while a long scan runs', async () => {
    const order: string[] = [];
    const heavy = postOwnConnection(svc, {
      jsonrpc: '2.0',
      id: 'logs',
      method: 'eth_getLogs',
      params: [{ fromBlock: '0x0', toBlock: 'latest' }],
    });
    // The order of the server's answers: the scan's first response bytes against the whole lookup
    // (a big body takes long to arrive, so its end would prove nothing).
    void heavy.started.then(() => order.push('getLogs'));
    // Only once the scan request is on the wire does the lookup go out, on another connection.
    await heavy.sent;
    const lookup = postOwnConnection(svc, { jsonrpc: '2.0', id: 'bn', method: 'eth_blockNumber', params: [] });
    const bn = await lookup.response;
    order.push('blockNumber');
    assert.equal(bn.result, hex(HEAD));
    const logs = await heavy.response;
    const all = logs.result as Obj[];
    assert.ok(all.length > 10_000, `a heavy answer (${all.length} logs)`);
    assert.equal(all.at(-1)!.blockNumber, hex(HEAD));
    assert.deepEqual(order, ['blockNumber', 'getLogs']);
  });

  test(
    'answers rendered into memory used again and again stay intact: ' +
      "a slow reader's, and concurrent ranges of every size",
    async () => {
      // A whole-range answer (about 20 MB, more than the socket takes) read slowly: its memory stays
      // its own while ranges from one block (inline, a few KB) to 200 (the pool, about 1 MB) are
      // answered in three rounds, each rendering into the answer buffers the rounds before gave back.
      let release!: () => void;
      const whole = { fromBlock: '0x0', toBlock: hex(HEAD) };
      const slow = postOwnConnection(
        svc,
        { jsonrpc: '2.0', id: 'slow', method: 'eth_getLogs', params: [whole] },
        new Promise<void>((resolve) => (release = resolve)),
      );
      await slow.started;
      const ranges = Array.from({ length: 24 }, (_, i) => {
        const length = [1, 3, 12, 40, 90, 200][i % 6]!;
        const from = (i * 47) % (HEAD - length);
        return { fromBlock: hex(from), toBlock: hex(from + length - 1) };
      });
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          ranges.map((filter, i) => svc.post({ jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [filter] })),
        );
        answers.forEach(({ status, json }, i) => {
          assert.equal(status, 200);
          assert.deepEqual(
            (json as RpcResponse).result,
            (oracle(ranges[i]!, { maxResults: 1e9 }) as { logs: Obj[] }).logs,
            `round ${round}, range ${i}`,
          );
        });
      }
      release();
      assert.deepEqual((await slow.response).result, (oracle(whole, { maxResults: 1e9 }) as { logs: Obj[] }).logs);
    },
  );

  test('a batch of several eth_getLogs and point lookups answers in order', async () => {
    const a = { fromBlock: hex(5), toBlock: hex(40) };
    const b = { fromBlock: hex(1000), toBlock: hex(1100), topics: [bytesToHex(reader.logs(1050)[0]!.topics[0]!)] };
    const c = { blockHash: bytesToHex(reader.header(700)!.hash) };
    const items = [
      { jsonrpc: '2.0', id: 0, method: 'eth_getLogs', params: [a] },
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getLogs', params: [b] },
      { jsonrpc: '2.0', id: 3, method: 'eth_getBlockByNumber', params: [hex(77), false] },
      { jsonrpc: '2.0', id: 4, method: 'eth_getLogs', params: [{ fromBlock: '0x5', toBlock: '0x4' }] },
      { jsonrpc: '2.0', id: 5, method: 'eth_getLogs', params: [c] },
      { jsonrpc: '2.0', id: 6, method: 'eth_chainId', params: [] },
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'eth_getLogs',
        params: [{ fromBlock: '0x0', toBlock: 'latest', address: '0x' + '99'.repeat(20) }],
      },
    ];
    const { status, json } = await svc.post(items);
    assert.equal(status, 200);
    const out = json as RpcResponse[];
    assert.deepEqual(
      out.map((r) => r.id),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    const expectLogs = (raw: Obj) => (oracle(raw, { maxResults: 1e9 }) as { logs: Obj[] }).logs;
    assert.deepEqual(out[0]!.result, expectLogs(a));
    assert.ok((out[0]!.result as Obj[]).length > 0);
    assert.equal(out[1]!.result, hex(HEAD));
    assert.deepEqual(out[2]!.result, expectLogs(b));
    assert.ok((out[2]!.result as Obj[]).length > 0);
    assert.equal((out[3]!.result as Obj).hash, bytesToHex(reader.header(77)!.hash));
    assert.deepEqual(out[4]!.error, { code: -32602, message: 'invalid block range params' });
    assert.deepEqual(out[5]!.result, expectLogs(c));
    assert.equal((out[5]!.result as Obj[]).length, reader.logs(700).length);
    assert.equal(out[6]!.result, '0x1');
    assert.deepEqual(out[7]!.result, []);
  });
});

describe('the engine and its pool', () => {
  /** An inline budget no query fits: these tests are about the pool's tasks. */
  const POOL_ONLY = -1;
  /** The answer of a query that must have gone to the pool (a promise, not an inline answer). */
  const onPool = (answer: LogChunks | Promise<LogChunks>): Promise<LogChunks> => {
    assert.ok(answer instanceof Promise, 'the query ran on the pool');
    return answer;
  };
  const wholeRange = () => parseFilter({ fromBlock: '0x0', toBlock: 'latest' }, DEFAULT_LOG_LIMITS.maxParams);
  const noErrors = (message: string, error: unknown) => assert.fail(`${message}: ${String(error)}`);

  test('a thread kept busy by inline scans sends the next such query to the pool, which answers it alike', {
    skip: availableParallelism() < 2 && 'one core: the budget stays whole',
  }, async () => {
    const engine = new LogEngine({ dataDir: dataset.dir, limits: DEFAULT_LOG_LIMITS, threads: 2, onError: noErrors });
    try {
      await engine.ready;
      // Ten blocks unfiltered: a few hundred logs, under the whole inline budget, over the busy one.
      const spec = parseFilter({ fromBlock: hex(100), toBlock: hex(109) }, DEFAULT_LOG_LIMITS.maxParams);
      const first = engine.query(spec, reader);
      assert.ok(Array.isArray(first), 'alone, the query runs inline');
      const expected = text(first);
      let pooled: Promise<LogChunks> | undefined;
      // Back to back (the first, cold, may already do it), the scans fill this thread's time: a query goes to the pool.
      for (let i = 0; i < 20_000 && pooled === undefined; i++) {
        const answer = engine.query(spec, reader);
        if (answer instanceof Promise) pooled = answer;
        else assert.equal(text(answer), expected);
      }
      assert.ok(pooled !== undefined, 'a query went to the pool');
      assert.equal(text(await pooled), expected);
      assert.equal(engine.paths.pool, 1, `${engine.paths.inline} inline, ${engine.paths.pool} on the pool`);
    } finally {
      await engine.close();
    }
  });

  test('closing the engine mid-query aborts its tasks without reporting worker failures', async () => {
    const errors: string[] = [];
    const engine = new LogEngine({
      dataDir: dataset.dir,
      limits: { ...DEFAULT_LOG_LIMITS, maxResults: 1e9 },
      threads: 2,
      inlineBudgetUs: POOL_ONLY,
      onError: (m) => errors.push(m),
    });
    const running = onPool(engine.query(wholeRange(), reader));
    const settled = running.then(
      () => 'answered',
      (error: unknown) => toRpcError(error)?.code ?? error,
    );
    await engine.close();
    assert.equal(await settled, -32603, 'the unanswered query fails');
    assert.deepEqual(errors, [], 'a shutdown is not a worker failure');
  });

  test('closing the engine mid-stream fails the stream rather than ending it as if it were whole', async () => {
    const errors: string[] = [];
    const engine = new LogEngine({
      dataDir: dataset.dir,
      limits: DEFAULT_LOG_LIMITS,
      threads: 2,
      onError: (m) => errors.push(m),
    });
    const stream = engine.stream(wholeRange(), reader);
    const first = await stream.next();
    assert.equal(first.done, false, 'the stream yields before the engine closes');
    // The next pull dispatches its tasks before its first await: they run when the engine closes.
    const pulled = (async () => {
      for (;;) if ((await stream.next()).done) return;
    })();
    const closed = engine.close();
    await assert.rejects(pulled, ScanFailedError);
    await closed;
    assert.deepEqual(errors, [], 'a shutdown is not a worker failure');
  });

  test('the pool size is the threads option', async () => {
    for (const threads of [1, 2]) {
      const engine = new LogEngine({
        dataDir: dataset.dir,
        limits: DEFAULT_LOG_LIMITS,
        threads,
        inlineBudgetUs: POOL_ONLY,
        onError: noErrors,
      });
      try {
        assert.equal(engine.threads, threads);
        assert.equal(engine.pool.threads.length, threads);
        const spec = parseFilter({ fromBlock: hex(10), toBlock: hex(20) }, 5000);
        const expected = oracleGetLogs(reader, spec, DEFAULT_LOG_LIMITS).join(',');
        assert.ok(expected.length > 0);
        assert.equal(text(await onPool(engine.query(spec, reader))), expected);
        assert.equal(engine.pool.threads.length, threads);
      } finally {
        await engine.close();
      }
    }
  });

  test('a worker killed mid-query fails that query with -32603; the pool recovers', async () => {
    const errors: string[] = [];
    const limits = { ...DEFAULT_LOG_LIMITS, maxResults: 1e9 };
    const engine = new LogEngine({
      dataDir: dataset.dir,
      limits,
      threads: 2,
      inlineBudgetUs: POOL_ONLY,
      onError: (m) => errors.push(m),
    });
    try {
      const small = parseFilter({ fromBlock: hex(100), toBlock: hex(110) }, 5000);
      const expectedSmall = oracleGetLogs(reader, small, limits).join(',');
      // Warm: both workers have loaded the code and opened the store.
      await Promise.all([onPool(engine.query(small, reader)), onPool(engine.query(small, reader))]);
      const before = engine.pool.threads.map((t) => t.threadId);
      assert.equal(before.length, 2);

      // query() hands its first tasks to the (ready) workers synchronously: each thread holds a
      // scan when it is terminated, the rest of the window waits in the queue.
      const running = onPool(engine.query(wholeRange(), reader));
      const planned = planTasks(0, HEAD, 2, DENSE_TASKS).length;
      assert.equal(engine.pool.queueSize, Math.min(planned, 2 * TASKS_PER_THREAD) - 2, 'both threads hold a task');
      const exits = engine.pool.threads.map((t) => t.terminate());
      await assert.rejects(running, (error: unknown) => {
        assert.ok(error instanceof ScanFailedError);
        assert.deepEqual(toRpcError(error)!.toJSON(), { code: -32603, message: 'internal error' });
        return true;
      });
      await Promise.all(exits);
      assert.ok(errors.includes('log scan worker died'), `onError was called: ${JSON.stringify(errors)}`);

      // The pool replaced its threads and answers the next queries, heavy ones included.
      assert.equal(text(await onPool(engine.query(small, reader))), expectedSmall);
      const heavy = await onPool(engine.query(wholeRange(), reader));
      assert.equal(text(heavy), oracleGetLogs(reader, wholeRange(), limits).join(','));
      const afterIds = engine.pool.threads.map((t) => t.threadId);
      assert.equal(afterIds.length, 2);
      for (const id of afterIds) assert.ok(!before.includes(id), 'new threads');
    } finally {
      await engine.close();
    }
  });

  test('a task on a store that does not exist fails its query with -32603 and kills nothing', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'ethlogd-missing-'));
    const errors: { message: string; error: unknown }[] = [];
    const engine = new LogEngine({
      dataDir: join(parent, 'no-such-store'),
      limits: DEFAULT_LOG_LIMITS,
      threads: 1,
      inlineBudgetUs: POOL_ONLY,
      onError: (message, error) => errors.push({ message, error }),
    });
    try {
      await engine.ready;
      const started = engine.pool.completed;
      const thread = engine.pool.threads[0]!;
      let exited = false;
      thread.once('exit', () => (exited = true));
      for (let i = 1; i <= 2; i++) {
        const oneTask = parseFilter({ fromBlock: hex(1), toBlock: hex(5), address: '0x' + '11'.repeat(20) }, 5000);
        await assert.rejects(onPool(engine.query(oneTask, reader)), (error: unknown) => {
          assert.ok(error instanceof ScanFailedError);
          assert.deepEqual(toRpcError(error)!.toJSON(), { code: -32603, message: 'internal error' });
          return true;
        });
        assert.equal(errors.length, i);
        assert.equal(errors[i - 1]!.message, 'log scan task failed');
        assert.match(String(errors[i - 1]!.error), /no-such-store|No such file|ENOENT/i);
      }
      assert.equal(exited, false);
      assert.equal(engine.pool.threads.length, 1);
      assert.equal(engine.pool.threads[0], thread, 'the same worker thread');
      assert.equal(engine.pool.completed - started, 2, 'one task per query');
    } finally {
      await engine.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test('after a capped answer no task keeps scanning for that query', async () => {
    const limits = { ...DEFAULT_LOG_LIMITS, maxResults: 10 };
    const engine = new LogEngine({
      dataDir: dataset.dir,
      limits,
      threads: 1,
      inlineBudgetUs: POOL_ONLY,
      onError: noErrors,
    });
    try {
      await engine.ready;
      const started = engine.pool.completed;
      // Record every task. The first runs at once; the others are held until the query has been
      // answered, then handed to the pool as they are: a task that starts after the answer must
      // see the query's shared cancel flag at its first check and read nothing.
      const runs: { task: ScanTask; result: Promise<ScanResult> }[] = [];
      let release!: () => void;
      const answered = new Promise<void>((resolve) => (release = resolve));
      const run = engine.pool.run.bind(engine.pool);
      engine.pool.run = ((task: ScanTask, options?: Parameters<typeof run>[1]) => {
        const result = (
          runs.length === 0 ? run(task, options) : answered.then(() => run(task, options))
        ) as Promise<ScanResult>;
        runs.push({ task, result });
        return result;
      }) as typeof engine.pool.run;

      await assert.rejects(onPool(engine.query(wholeRange(), reader)), (error: unknown) => {
        assert.equal(toRpcError(error)?.code, -32005);
        return true;
      });
      release();
      // One thread, a window of two tasks.
      assert.equal(runs.length, 2);
      const [first, second] = (await Promise.all(runs.map((r) => r.result))).map((r) => {
        assert.ok(r.ok);
        return r;
      }) as [Extract<ScanResult, { ok: true }>, Extract<ScanResult, { ok: true }>];
      assert.equal(first.stop, 'budget', 'the first task stops once over the budget');
      assert.ok(first.count > 10 && first.count < 200, `${first.count} results`);
      assert.ok(runs[1]!.task.to - runs[1]!.task.from > 100, 'the second task has work to skip');
      assert.equal(second.stop, 'cancelled');
      assert.equal(second.candidates, 0, 'it stopped at its first check, before reading a block');
      assert.equal(second.count, 0);
      // Nothing is left running: every dispatched task completed, and the next query is answered in full.
      assert.equal(engine.pool.completed - started, 2);
      engine.pool.run = run as typeof engine.pool.run;
      let n = 600;
      while (reader.logs(n).length === 0 || reader.logs(n).length > 10) n++;
      const spec = parseFilter({ fromBlock: hex(n), toBlock: hex(n) }, 5000);
      const expected = oracleGetLogs(reader, spec, limits).join(',');
      assert.ok(expected.length > 0);
      assert.equal(text(await onPool(engine.query(spec, reader))), expected);
    } finally {
      await engine.close();
    }
  });

  test('the tasks of a capped query all stop early, none scans its whole range', async () => {
    const limits = { ...DEFAULT_LOG_LIMITS, maxResults: 10 };
    const engine = new LogEngine({
      dataDir: dataset.dir,
      limits,
      threads: 2,
      inlineBudgetUs: POOL_ONLY,
      onError: noErrors,
    });
    try {
      await engine.ready;
      const started = engine.pool.completed;
      const runs: Promise<ScanResult>[] = [];
      const run = engine.pool.run.bind(engine.pool);
      engine.pool.run = ((task: ScanTask, options?: Parameters<typeof run>[1]) => {
        const result = run(task, options) as Promise<ScanResult>;
        runs.push(result);
        return result;
      }) as typeof engine.pool.run;
      await assert.rejects(onPool(engine.query(wholeRange(), reader)), ResultCapError);
      const results = await Promise.all(runs);
      assert.ok(results.length >= 2);
      for (const r of results) {
        assert.ok(r.ok);
        assert.notEqual(r.stop, 'done');
      }
      assert.equal(engine.pool.completed - started, results.length);
    } finally {
      await engine.close();
    }
  });
});

test('eth_getLogs by the hash of a reorganised-out block: its logs with removed: true', async () => {
  const small = await makeDataset(60, 0.05, 'reorged');
  try {
    const writable = openStore(small.dir);
    const r = new StoreReader(writable);
    const head = r.meta()!.head;
    const ROLLBACK = head - 3;
    const old: BlockBundle[] = [];
    for (let n = ROLLBACK + 1; n <= head; n++)
      old.push({
        header: r.header(n)!,
        transactions: r.transactions(n),
        receipts: r.receipts(n),
        logs: r.logs(n),
        storage: [],
      });
    new StoreWriter(writable).append({ rollbackTo: ROLLBACK, blocks: [] });
    await closeStore(writable);

    const svc = await startTestService(small);
    try {
      assert.equal(await svc.result('eth_blockNumber', []), hex(ROLLBACK));
      const withLogs = old.filter((b) => b.logs.length > 0);
      assert.ok(withLogs.length > 0);
      for (const b of withLogs) {
        const hash = bytesToHex(b.header.hash);
        const logs = (await svc.result('eth_getLogs', [{ blockHash: hash }])) as Obj[];
        assert.equal(logs.length, b.logs.length);
        logs.forEach((log, i) => {
          const l = b.logs[i]!;
          assert.equal(log.removed, true);
          assert.equal(log.blockHash, hash);
          assert.equal(log.blockNumber, hex(b.header.number));
          assert.equal(log.logIndex, hex(i));
          assert.equal(log.transactionIndex, hex(l.txIndex));
          assert.equal(log.transactionHash, bytesToHex(b.transactions[l.txIndex]!.hash));
          assert.equal(log.address, bytesToHex(l.address));
          assert.deepEqual(log.topics, l.topics.map(bytesToHex));
          assert.equal(log.data, bytesToHex(l.data));
        });
        // A filter applies to the orphan's logs too.
        const address = bytesToHex(b.logs[0]!.address);
        const filtered = (await svc.result('eth_getLogs', [{ blockHash: hash, address }])) as Obj[];
        assert.equal(filtered.length, b.logs.filter((l) => bytesToHex(l.address) === address).length);

        const block = (await svc.result('eth_getBlockByHash', [hash, false])) as Obj;
        assert.equal(block.hash, hash);
        assert.equal(block.number, hex(b.header.number));
        assert.deepEqual(
          block.transactions,
          b.transactions.map((t) => bytesToHex(t.hash)),
        );
        for (const tx of b.transactions)
          assert.equal(await svc.result('eth_getTransactionByHash', [bytesToHex(tx.hash)]), null);
      }
      // A range that used to hold the orphans no longer returns their logs.
      const orphanHashes = new Set(old.map((b) => bytesToHex(b.header.hash)));
      const range = (await svc.result('eth_getLogs', [{ fromBlock: hex(ROLLBACK - 5), toBlock: 'latest' }])) as Obj[];
      assert.ok(range.length > 0);
      for (const log of range) {
        assert.equal(log.removed, false);
        assert.ok(!orphanHashes.has(log.blockHash as string));
        assert.ok(Number(log.blockNumber) <= ROLLBACK);
      }
      const beyond = await svc.call('eth_getLogs', [{ fromBlock: hex(ROLLBACK - 5), toBlock: hex(head) }]);
      assert.deepEqual(beyond.error, {
        code: -32602,
        message: `block range extends beyond current head block (the head is ${hex(ROLLBACK)})`,
      });
    } finally {
      await svc.close();
    }
  } finally {
    small.remove();
  }
});

test(
  'a block replaced by a reorganisation is filtered by its new bloom ' +
    'and rendered anew, though the service had cached the old one',
  async () => {
    const small = await makeDataset(40, 0.05, 'replaced');
    try {
      const writable = openStore(small.dir);
      const r = new StoreReader(writable);
      const head = r.meta()!.head;
      // The replacement of the head carries the logs (and transactions, and bloom) of the block before it.
      let donor = head - 1;
      while (r.logs(donor).length === 0) donor--;
      const headBloom = Buffer.from(r.header(head)!.logsBloom);
      const absent = r.logs(donor).find((l) => !bloomHas(headBloom, l.address));
      assert.ok(absent, 'an address of the donor block that the head block bloom rules out');
      const address = bytesToHex(absent.address);
      const filter = { fromBlock: hex(head), toBlock: hex(head), address };

      const svc = await startTestService(small);
      try {
        assert.deepEqual(await svc.result('eth_getLogs', [filter]), [], 'the old head has no log of that address');
        const oldBlock = (await svc.result('eth_getBlockByNumber', [hex(head), false])) as Obj;

        const old = r.header(head)!;
        const from = r.header(donor)!;
        const header = { ...old, hash: Buffer.from(old.hash).fill(0xab, 0, 4), logsBloom: from.logsBloom };
        new StoreWriter(writable).append({
          rollbackTo: head - 1,
          blocks: [
            {
              header,
              transactions: r.transactions(donor),
              receipts: r.receipts(donor),
              logs: r.logs(donor),
              storage: [],
            },
          ],
        });

        const logs = (await svc.result('eth_getLogs', [filter])) as Obj[];
        assert.equal(logs.length, r.logs(head).filter((l) => bytesToHex(l.address) === address).length);
        assert.ok(logs.length > 0);
        for (const log of logs) assert.equal(log.blockHash, bytesToHex(header.hash));
        const block = (await svc.result('eth_getBlockByNumber', [hex(head), false])) as Obj;
        assert.notEqual(block.hash, oldBlock.hash);
        assert.equal(block.hash, bytesToHex(header.hash));
      } finally {
        await svc.close();
        await closeStore(writable);
      }
    } finally {
      small.remove();
    }
  },
);

/** Whether a 2048-bit logsBloom has the three bits of `item`. */
function bloomHas(bloom: Uint8Array, item: Uint8Array): boolean {
  return bloomBits(item).every((bit) => (bloom[255 - (bit >> 3)]! & (1 << (bit & 7))) !== 0);
}
