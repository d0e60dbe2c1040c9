/**
 * `make bench` section "small requests": the requests indexers in realtime mode and load tests send
 * most (eth_getLogs by blockHash or over the last blocks, single blocks, transactions, storage
 * words), against anvil serving the same chain and against a bare uWebSockets.js server answering
 * a constant body of the same size (the transport's ceiling).
 *
 * Anvil mines the integration tests' workload, `runIngest` copies the chain with its storage diffs,
 * and every request shape is first checked to get the same answer from both. The load generator is
 * wrk (Debian's `wrk`) pinned to core 0 with every server, all its threads, pinned to core 1, so the
 * generator never takes the server's CPU; when wrk is not installed, autocannon runs in this process,
 * pinned to core 0, and the table says so. Per shape and server: req/s, p50/p99 at `connections`
 * keep-alive connections, and the server's CPU time per request (utime + stime of /proc/PID/stat,
 * every thread of the process). ethlogd is measured twice, with its answer cache (the default:
 * the generator repeats its bodies, so after the first round every call is a kept answer) and
 * without (`--answer-cache-mb 0`: every call parsed, read and rendered). Then the same load with
 * nothing pinned (ethlogd with its default threads, and with an HTTP thread per core), each server
 * UNPINNED_ROUNDS times in turn, for the median p99s, with the largest share of the time an ethlogd
 * thread was runnable but waited for a core.
 *
 *   node dist/native-free-bench/smallRequests.js [--blocks 288] [--seconds 5]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { Anvil, type Call } from '../test/support/anvil.js';
import { ANVIL_EXTRAS, compareAnswers } from '../test/support/differ.js';
import { Workload } from '../test/support/workload.js';
import { type Method, sampleRequests } from './anvilBaseline.js';
import { GENERATOR_CPU, hasWrk, type Load, load, pin, SERVER_CPU, type Server, startPinned } from './pinnedLoad.js';
import type { Row, Target } from './report.js';

/** Options of the small-request comparison. */
export interface SmallBenchOptions {
  /** Blocks anvil mines with the workload (the deployment block comes on top). */
  blocks: number;
  /** Seconds of measured load per shape and server (after one second of warm-up). */
  seconds: number;
  connections: number;
}

/** One request shape: its bodies (the generator cycles through them) and the answer kind for the differ. */
export interface Shape {
  name: string;
  kind: string;
  calls: Call[];
  /** The targets: at least this many times anvil's req/s, and this share of bare's. */
  minVsAnvil: number;
  minVsBare: number;
}

/** A shape's measurements on the three servers pinned: bare (answering `bytes`-byte bodies), anvil and ethlogd. */
export interface PinnedResult {
  shape: Shape;
  bytes: number;
  bare: Load;
  anvil: Load;
  ours: Load;
}

/** A shape's measurements on the three servers, pinned, and on anvil and ethlogd unpinned. */
interface ShapeResult extends PinnedResult {
  /** ethlogd with its answer cache off (--answer-cache-mb 0): every call parsed, read and rendered. */
  cold: Load;
  anvilFree: Load;
  oursFree: Load;
  /**
   * ethlogd unpinned with an HTTP thread on every core (`--http-threads <cores>`): the load generator keeps no core of
   * its own.
   */
  oursFreeAll: Load;
}

/**
 * Rounds of the unpinned pass, each server in turn within a round: unpinned, this machine's speed
 * swings by up to a factor of two from one minute to the next, so each server's p99 is the median
 * of this many runs interleaved with the others' (medianByP99), not one run at another minute.
 */
const UNPINNED_ROUNDS = 3;

/** The run whose p99 is the median of `runs` (its req/s, p50 and CPU go with it). */
function medianByP99(runs: Load[]): Load {
  return [...runs].sort((a, b) => a.p99Ms - b.p99Ms)[Math.floor(runs.length / 2)]!;
}

/** Distinct bodies per point-lookup shape (the generator cycles through them). */
const SAMPLES = 64;

const hex = quantityToHex;
/** The JSON-RPC body of call `c` with id `id`. */
export const rpcBody = (c: Call, id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: c.method, params: c.params });

/** Requests in flight at once while meanAnswerBytes sizes answers: a shape may have thousands of bodies. */
const SIZING_BATCH = 64;

/**
 * The mean size in bytes of the uncompressed answers `url` gives to `bodies` (the bare server's body for the shape).
 */
export async function meanAnswerBytes(url: string, bodies: string[]): Promise<number> {
  let total = 0;
  for (let at = 0; at < bodies.length; at += SIZING_BATCH) {
    const sizes = await Promise.all(
      bodies.slice(at, at + SIZING_BATCH).map(
        async (body) =>
          (
            await (
              await fetch(url, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' },
                body,
              })
            ).arrayBuffer()
          ).byteLength,
      ),
    );
    total += sizes.reduce((a, b) => a + b, 0);
  }
  return Math.round(total / bodies.length);
}

/** The four eth_getLogs shapes of the issue, picked from the ingested chain. */
function logShapes(store: Store, head: number): Shape[] {
  const reader = new StoreReader(store);
  const oneLog: string[] = [];
  const pairs = new Map<string, number[]>();
  const byAddress = new Map<string, number>();
  for (let n = 0; n <= head; n++) {
    const logs = reader.logs(n);
    if (logs.length === 1) oneLog.push(bytesToHex(reader.header(n)!.hash));
    for (const log of logs) {
      const address = bytesToHex(log.address);
      if (n > head - 10) byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
      if (log.topics.length === 0) continue;
      const pair = `${address} ${bytesToHex(log.topics[0]!)}`;
      pairs.set(pair, [...(pairs.get(pair) ?? []), n]);
    }
  }
  if (oneLog.length === 0) throw new Error('no block with exactly one log');
  /** The address + topic0 pair whose matches from block `from` on are closest to 10. */
  const tenLogs = (from: number) => {
    let best = '';
    let distance = Infinity;
    for (const [pair, blocks] of pairs) {
      const d = Math.abs(blocks.filter((n) => n >= from).length - 10);
      if (d < distance) [best, distance] = [pair, d];
    }
    const [address, topic] = best.split(' ');
    return { address, topics: [topic] };
  };
  // A contract with a few logs in those blocks, as a realtime indexer of one contract asks.
  const oneContract = [...byAddress].sort((a, b) => Math.abs(a[1] - 3) - Math.abs(b[1] - 3))[0]![0];
  const latest = hex(head);
  return [
    {
      name: 'eth_getLogs {blockHash} (1 log)',
      kind: 'log',
      calls: oneLog.slice(0, SAMPLES).map((blockHash) => ({ method: 'eth_getLogs', params: [{ blockHash }] })),
      minVsAnvil: 1,
      minVsBare: 0.35,
    },
    {
      name: 'eth_getLogs last 10 blocks, one address',
      kind: 'log',
      calls: [{ method: 'eth_getLogs', params: [{ fromBlock: hex(head - 9), toBlock: latest, address: oneContract }] }],
      minVsAnvil: 1,
      minVsBare: 0.35,
    },
    {
      name: 'eth_getLogs last 100 blocks, address + topic0 (~10 logs)',
      kind: 'log',
      calls: [
        { method: 'eth_getLogs', params: [{ fromBlock: hex(head - 99), toBlock: latest, ...tenLogs(head - 99) }] },
      ],
      minVsAnvil: 1.5,
      minVsBare: 0,
    },
    {
      name: 'eth_getLogs whole chain, address + topic0 (~10 logs)',
      kind: 'log',
      calls: [{ method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: latest, ...tenLogs(0) }] }],
      minVsAnvil: 2,
      minVsBare: 0,
    },
  ];
}

/**
 * What each point lookup reads, by the names lookupMethods (anvilBaseline.ts) gives them: the targets are set per kind.
 */
const LOOKUP_KINDS: Record<string, keyof LookupTargets> = {
  eth_getTransactionByHash: 'tx',
  eth_getTransactionByBlockNumberAndIndex: 'tx',
  'eth_getBlockByNumber (hashes)': 'hashes',
  'eth_getBlockByNumber (full txs)': 'full',
  'eth_getStorageAt (a written slot, at the block that wrote it)': 'storage',
};

/**
 * Times anvil's req/s the point lookups must reach: a transaction, a block with hashes or full transactions, a storage
 * word.
 */
export interface LookupTargets {
  tx: number;
  hashes: number;
  full: number;
  storage: number;
}

/**
 * The point-lookup shapes of `methods` with their targets: `vsAnvil` by kind, and `vsBare` of the bare server's req/s.
 */
export function lookupShapes(methods: Method[], vsAnvil: LookupTargets, vsBare: number): Shape[] {
  return methods.map((m) => ({ ...m, minVsAnvil: vsAnvil[LOOKUP_KINDS[m.name]!], minVsBare: vsBare }));
}

/** Figures as the tables print them: req/s (thousands past 10,000) and ms (one decimal under 10). */
export const fmtRps = (n: number) => (n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0));
export const fmtMs = (n: number) => (n >= 10 ? n.toFixed(0) : n.toFixed(1));
const pct = (share: number) => `${(100 * share).toFixed(0)}%`;

/** The section's table, in the layout. */
export function smallTable(results: ShapeResult[], generator: string): string {
  const lines = [
    '| request | bare req/s | anvil req/s | ethlogd req/s | ethlogd / anvil | ethlogd / bare | ' +
      'p50 anvil / ethlogd | p99 anvil / ethlogd | p99 unpinned, median of 3, anvil / ethlogd ' +
      '(HTTP thread per core) | CPU µs anvil / ethlogd | no answer cache: req/s, / anvil, CPU µs |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.shape.name} | ${fmtRps(r.bare.rps)} | ${fmtRps(r.anvil.rps)} | ${fmtRps(r.ours.rps)} | ` +
        `${(r.ours.rps / r.anvil.rps).toFixed(2)}× | ${((100 * r.ours.rps) / r.bare.rps).toFixed(0)}% | ` +
        `${fmtMs(r.anvil.p50Ms)} / ${fmtMs(r.ours.p50Ms)} ms | ${fmtMs(r.anvil.p99Ms)} / ` +
        `${fmtMs(r.ours.p99Ms)} ms | ${fmtMs(r.anvilFree.p99Ms)} / ${fmtMs(r.oursFree.p99Ms)} (` +
        `${fmtMs(r.oursFreeAll.p99Ms)}) ms | ${r.anvil.cpuUs.toFixed(0)} / ${r.ours.cpuUs.toFixed(0)} | ` +
        `${fmtRps(r.cold.rps)}, ${(r.cold.rps / r.anvil.rps).toFixed(2)}×, ${r.cold.cpuUs.toFixed(0)} |`,
    );
  }
  const waits = results.map((r) => `${r.shape.name} ${pct(r.oursFree.waitShare)} / ${pct(r.oursFreeAll.waitShare)}`);
  lines.push(
    '',
    `Load generator: ${generator}.`,
    '',
    'Unpinned, the largest share of the measured time an ethlogd thread was runnable but waited for a core ' +
      `(/proc/PID/task/TID/schedstat), default threads / an HTTP thread per core: ${waits.join('; ')}.`,
  );
  return lines.join('\n');
}

/** The report rows of a shape: throughput against anvil and bare, CPU and p99 against anvil. */
function rows(r: ShapeResult, generator: string, chain: string): Row[] {
  const min = (value: number, text: string): Target => ({ kind: 'min', value, ofRatio: true, text });
  const max = (value: number, text: string): Target => ({ kind: 'max', value, ofRatio: true, text });
  const where = `${chain}, ${generator}`;
  const out: Row[] = [
    {
      figure: `small: ${r.shape.name}, req/s vs anvil (${where})`,
      ours: r.ours.rps,
      unit: 'req/s',
      baseline: r.anvil.rps,
      baselineName: 'anvil, same core',
      target: min(r.shape.minVsAnvil, `≥ ${r.shape.minVsAnvil}× anvil`),
    },
    {
      figure: `small: ${r.shape.name}, server CPU per request vs anvil`,
      ours: r.ours.cpuUs,
      unit: 'µs',
      baseline: r.anvil.cpuUs,
      baselineName: 'anvil',
      target: r.shape.kind === 'log' ? max(1, '≤ anvil') : undefined,
    },
    {
      figure: `small: ${r.shape.name}, p99 vs anvil (pinned)`,
      ours: r.ours.p99Ms,
      unit: 'ms',
      baseline: r.anvil.p99Ms,
      baselineName: 'anvil',
      target: max(1, '≤ anvil'),
    },
    {
      figure: `small: ${r.shape.name}, p99 vs anvil (unpinned)`,
      ours: r.oursFree.p99Ms,
      unit: 'ms',
      baseline: r.anvilFree.p99Ms,
      baselineName: 'anvil',
      target: max(1, '≤ anvil'),
      note:
        `median of ${UNPINNED_ROUNDS} interleaved runs; a thread waited for a ` +
        `core ${pct(r.oursFree.waitShare)} of the time`,
    },
    {
      figure: `small: ${r.shape.name}, p99 vs anvil (unpinned, an HTTP thread per core)`,
      ours: r.oursFreeAll.p99Ms,
      unit: 'ms',
      baseline: r.anvilFree.p99Ms,
      baselineName: 'anvil',
      note: `a thread waited for a core ${pct(r.oursFreeAll.waitShare)} of the time`,
    },
  ];
  out.push(
    {
      figure: `small: ${r.shape.name}, answer cache off, req/s vs anvil`,
      ours: r.cold.rps,
      unit: 'req/s',
      baseline: r.anvil.rps,
      baselineName: 'anvil, same core',
    },
    {
      figure: `small: ${r.shape.name}, answer cache off, server CPU per request vs anvil`,
      ours: r.cold.cpuUs,
      unit: 'µs',
      baseline: r.anvil.cpuUs,
      baselineName: 'anvil',
    },
  );
  if (r.shape.minVsBare > 0) {
    out.push({
      figure: `small: ${r.shape.name}, req/s vs bare uWS (${r.bytes}-byte body)`,
      ours: r.ours.rps,
      unit: 'req/s',
      baseline: r.bare.rps,
      baselineName: 'bare uWS, same size',
      target: min(r.shape.minVsBare, `≥ ${r.shape.minVsBare * 100}% of bare`),
    });
  }
  const bad = r.ours.bad + r.cold.bad + r.anvil.bad + r.bare.bad + r.oursFree.bad + r.anvilFree.bad;
  if (bad > 0) out[0]!.note = `${bad} socket errors, timeouts or non-2xx answers`;
  return out;
}

/** The cores the 1-vs-2 HTTP threads comparison gives the server (the generator keeps GENERATOR_CPU). */
const SCALING_CPUS = '1,2';

/**
 * With 4 or more cores: the first two shapes (eth_getLogs by blockHash, the last 10 blocks) and a
 * block lookup on `serve --http-threads 1` and `--http-threads 2`, both pinned to SCALING_CPUS;
 * with fewer, a line saying why not.
 */
async function httpThreadScaling(
  serve: (cpus: string | undefined, extra?: string[]) => Promise<Server>,
  shapes: Shape[],
  o: SmallBenchOptions,
  wrk: boolean,
): Promise<{ rows: Row[]; text: string }> {
  const cores = availableParallelism();
  if (cores < 4)
    return {
      rows: [],
      text:
        `1 vs 2 HTTP threads: not measured, this machine has ${cores} cores ` +
        "(it takes 4: the load generator's, two for the server, one spare).",
    };
  const picked = [shapes[0]!, shapes[1]!, shapes.find((s) => s.name === 'eth_getBlockByNumber (hashes)')!];
  const rowsOut: Row[] = [];
  const lines = ['| request | 1 HTTP thread req/s | 2 HTTP threads req/s | ratio |', '|---|---|---|---|'];
  for (const shape of picked) {
    const rps: number[] = [];
    for (const threads of [1, 2]) {
      const server = await serve(SCALING_CPUS, ['--http-threads', String(threads)]);
      try {
        rps.push((await load(server.url, [server.pid], shape.calls.map(rpcBody), o, wrk, true)).rps);
      } finally {
        await server.stop();
      }
    }
    lines.push(`| ${shape.name} | ${fmtRps(rps[0]!)} | ${fmtRps(rps[1]!)} | ${(rps[1]! / rps[0]!).toFixed(2)}× |`);
    rowsOut.push({
      figure: `small: ${shape.name}, 2 vs 1 HTTP threads on cores ${SCALING_CPUS}`,
      ours: rps[1]!,
      unit: 'req/s',
      baseline: rps[0]!,
      baselineName: '1 HTTP thread',
    });
  }
  return { rows: rowsOut, text: lines.join('\n') };
}

/**
 * The integration tests' workload mined on anvil and ingested: the node, the store (open), its directory, head and a
 * new API key.
 */
export interface AnvilChain {
  anvil: Anvil;
  dir: string;
  head: number;
  store: Store;
  key: string;
}

/** eth_getLogs calls a check sends in one batch. */
const LOG_CHECK_BATCH = 4;

/** How many transactions anvil mines into each block (drawn evenly from min to max). */
export interface TxsPerBlock {
  min: number;
  max: number;
}

/** The small-requests section's blocks: about 7 transactions and 14 logs each. */
const SMALL_BLOCKS: TxsPerBlock = { min: 4, max: 10 };

/**
 * Starts anvil (--no-mining: idle but for answering), mines `blocks` blocks of the workload, ingests
 * them with their storage diffs into a temporary store with an API key named `keyName`, and runs
 * `body` on it (which closes the store); anvil is stopped and the store removed after.
 */
export async function withAnvilChain<T>(
  blocks: number,
  keyName: string,
  body: (chain: AnvilChain) => Promise<T>,
  txs: TxsPerBlock = SMALL_BLOCKS,
): Promise<T> {
  const anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  const dir = mkdtempSync(join(tmpdir(), `ethlogd-${keyName}-`));
  try {
    const workload = await Workload.deploy(anvil);
    await workload.mine(blocks, { ...txs, special: false });
    const head = await anvil.head();
    await runIngest({ rpc: anvil.url, dataDir: dir, storage: 'prestate', logger: createLogger('warn') });
    const store = openStore(dir);
    return await body({ anvil, dir, head, store, key: createApiKey(store, keyName) });
  } finally {
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Checks the first `checked` calls of every shape answered alike by ethlogd (`ours`) and `anvil`,
 * pins anvil to SERVER_CPU, then runs `measure` on each shape with its bodies and a bare server
 * pinned there too, answering bodies of the shape's mean answer size from ethlogd; returns the
 * differences and what `measure` returned for each shape.
 */
export async function beside<T>(
  shapes: Shape[],
  ours: Server,
  anvil: Server,
  checked: number,
  measure: (shape: Shape, bodies: string[], bytes: number, bare: Server) => Promise<T>,
): Promise<{ mismatches: string[]; results: T[] }> {
  const mismatches: string[] = [];
  // Log answers in small batches: a batch of large ones passes the response cap (-32003), as geth's does.
  for (const shape of shapes)
    mismatches.push(
      ...(await compareAnswers(
        ours.url,
        anvil.url,
        shape.kind,
        shape.calls.slice(0, checked),
        ANVIL_EXTRAS,
        shape.kind === 'log' ? LOG_CHECK_BATCH : undefined,
      )),
    );
  if (mismatches.length > 0)
    console.log(`  anvil and ethlogd answer differently: ${mismatches.slice(0, 5).join('; ')}`);
  pin(anvil.pid, SERVER_CPU);
  const results: T[] = [];
  for (const shape of shapes) {
    const bodies = shape.calls.map(rpcBody);
    const bytes = await meanAnswerBytes(ours.url, bodies);
    const bare = await startPinned(['dist/native-free-bench/bareServer.js', String(bytes)], SERVER_CPU, '/');
    try {
      results.push(await measure(shape, bodies, bytes, bare));
    } finally {
      await bare.stop();
    }
  }
  return { mismatches, results };
}

/** Mines the chain on anvil, ingests it, checks the answers alike, and measures every shape on the three servers. */
export async function measureSmallRequests(
  o: SmallBenchOptions,
): Promise<{ rows: Row[]; table: string; mismatches: string[] }> {
  if (availableParallelism() < 2)
    throw new Error(
      'the small-request section pins the load generator and the server to two different cores: this machine has one',
    );
  const wrk = hasWrk();
  const generator = wrk
    ? `wrk -t1 -c${o.connections} on core ${GENERATOR_CPU}, servers on core ${SERVER_CPU}`
    : "autocannon (wrk is not installed: apt-get install wrk), in the benchmark's " +
      `process on core ${GENERATOR_CPU}, servers on core ${SERVER_CPU}`;
  if (!wrk) execFileSync('taskset', ['-a', '-cp', GENERATOR_CPU, String(process.pid)], { stdio: 'ignore' });
  return withAnvilChain(o.blocks, 'bench-small', async ({ anvil, dir, head, store, key }) => {
    const shapes: Shape[] = [
      ...logShapes(store, head),
      ...lookupShapes(
        sampleRequests(store, head).methods.map((m) => ({ ...m, calls: m.calls.slice(0, SAMPLES) })),
        { tx: 2, hashes: 1, full: 2, storage: 1 },
        0.5,
      ),
    ];
    await closeStore(store);
    const chain = `${head + 1}-block anvil chain`;
    console.log(`  small requests: ${chain}; ${generator}`);

    const serve = (cpus: string | undefined, extra: string[] = []) =>
      startPinned(
        [
          'dist/src/cli.js',
          'serve',
          '--data',
          dir,
          '--port',
          '0',
          '--host',
          '127.0.0.1',
          '--log-level',
          'warn',
          ...extra,
        ],
        cpus,
        `/v3/${key}`,
      );
    const anvilServer: Server = { pid: anvil.pid, url: anvil.url, stop: () => anvil.stop() };
    // Started on core 1 alone, the service sizes its HTTP threads and pool to that one core.
    const ours = await serve(SERVER_CPU);
    const cold = await serve(SERVER_CPU, ['--answer-cache-mb', '0']);
    let pinned: { mismatches: string[]; results: ShapeResult[] };
    try {
      pinned = await beside(shapes, ours, anvilServer, Infinity, async (shape, bodies, bytes, bare) => {
        const result = {
          shape,
          bytes,
          bare: await load(bare.url, [bare.pid], bodies, o, wrk, true),
          anvil: await load(anvilServer.url, [anvilServer.pid], bodies, o, wrk, true),
          ours: await load(ours.url, [ours.pid], bodies, o, wrk, true),
          cold: await load(cold.url, [cold.pid], bodies, o, wrk, true),
        };
        console.log(
          `  ${shape.name}: bare ${fmtRps(result.bare.rps)}, anvil ${fmtRps(result.anvil.rps)}` +
            `, ethlogd ${fmtRps(result.ours.rps)} (answer cache off ${fmtRps(result.cold.rps)}) ` +
            `req/s; CPU µs ${result.anvil.cpuUs.toFixed(0)} / ${result.ours.cpuUs.toFixed(0)} (` +
            `${result.cold.cpuUs.toFixed(0)})`,
        );
        return { ...result, anvilFree: result.anvil, oursFree: result.ours, oursFreeAll: result.ours };
      });
    } finally {
      await Promise.all([ours.stop(), cold.stop()]);
    }
    const { mismatches, results } = pinned;
    // Unpinned: the service with its defaults for the whole machine (the cores but one answer HTTP,
    // see defaultHttpThreads), then with an HTTP thread on every core, anvil on every core.
    const free = await serve(undefined);
    const freeAll = await serve(undefined, ['--http-threads', String(availableParallelism())]);
    try {
      pin(anvil.pid, `0-${availableParallelism() - 1}`);
      for (const r of results) {
        const bodies = r.shape.calls.map(rpcBody);
        const runs: { anvil: Load[]; ours: Load[]; all: Load[] } = { anvil: [], ours: [], all: [] };
        for (let round = 0; round < UNPINNED_ROUNDS; round++) {
          runs.anvil.push(await load(anvilServer.url, [anvilServer.pid], bodies, o, wrk, false));
          runs.ours.push(await load(free.url, [free.pid], bodies, o, wrk, false));
          runs.all.push(await load(freeAll.url, [freeAll.pid], bodies, o, wrk, false));
        }
        r.anvilFree = medianByP99(runs.anvil);
        r.oursFree = medianByP99(runs.ours);
        r.oursFreeAll = medianByP99(runs.all);
        const p99s = (loads: Load[]) => loads.map((l) => fmtMs(l.p99Ms)).join('/');
        console.log(
          `  unpinned ${r.shape.name}: p99 anvil ${p99s(runs.anvil)}, ethlogd ${p99s(runs.ours)} ` +
            `(an HTTP thread per core ${p99s(runs.all)}) ms; an ethlogd thread waited for a core ` +
            `${pct(r.oursFree.waitShare)} of the time (${pct(r.oursFreeAll.waitShare)})`,
        );
      }
    } finally {
      await Promise.all([free.stop(), freeAll.stop()]);
    }
    const scaling = await httpThreadScaling(serve, shapes, o, wrk);
    const tableText = [smallTable(results, generator), scaling.text].join('\n');
    return {
      rows: [...results.flatMap((r) => rows(r, wrk ? 'wrk' : 'autocannon', chain)), ...scaling.rows],
      table: tableText,
      mismatches,
    };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { blocks: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' } },
  });
  const { table } = await measureSmallRequests({
    blocks: Number(values.blocks ?? 287),
    seconds: Number(values.seconds ?? 5),
    connections: Number(values.connections ?? 50),
  });
  console.log(table);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
