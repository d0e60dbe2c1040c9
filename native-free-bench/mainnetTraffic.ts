/**
 * `make bench` section "traffic": mainnet-shaped traffic with no repeated request and the answer
 * cache off (`--answer-cache-mb 0`), as indexers ask: every call parsed, read and rendered.
 *
 * Pass 1, against anvil: anvil mines the integration tests' workload (about 88 transactions and 170 logs a
 * block: PASS1_TXS), `runIngest` copies the chain,
 * and each request shape cycles through EVERY distinct request of its kind over that chain (every
 * block by hash, every log address of the last 10 blocks, every address + topic0 pair, every
 * transaction, every block, every written slot), first checked to get the same answers from both
 * on a sample. wrk -t1 -c50 pinned to core 0, each server (all threads) pinned to core 1: a bare
 * uWebSockets.js server answering a constant body of the shape's mean answer size, anvil, ethlogd.
 *
 * Pass 2, mainnet density (about 480 logs a block), a generated store and no anvil: eth_getLogs by
 * blockHash over every block, pinned and unpinned; windows of just under 10,000 logs; and a mixed
 * load (blocks by hash beside point lookups, two wrk processes at once), in logs/s delivered, the
 * latency percentiles up to p99.9 and the server's CPU per request and per log.
 *
 * node dist/native-free-bench/mainnetTraffic.js [--blocks 288] [--seconds 5] [--mainnet-blocks 600] [--data
 * data/bench-traffic]
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { MAX_LOG_RESULTS } from '#src/config.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { batchCalls, type Call } from '../test/support/anvil.js';
import { lookupMethods, type TxPosition, writtenSlots } from './anvilBaseline.js';
import { ensureDataset } from './dataset.js';
import {
  GENERATOR_CPU,
  hasWrk,
  type Load,
  type LoadPart,
  loadTogether,
  SERVER_CPU,
  type Server,
  startPinned,
} from './pinnedLoad.js';
import type { Row, Target } from './report.js';
import {
  beside,
  fmtMs,
  fmtRps,
  lookupShapes,
  type PinnedResult,
  rpcBody,
  type Shape,
  type TxsPerBlock,
  withAnvilChain,
} from './smallRequests.js';

/** Options of the mainnet-traffic section. */
export interface TrafficOptions {
  /** Blocks anvil mines with the workload in pass 1 (the deployment block comes on top). */
  blocks: number;
  /** Seconds of measured load per run (after one second of warm-up). */
  seconds: number;
  /** Blocks of the generated mainnet-density store of pass 2. */
  mainnetBlocks: number;
  /** Where pass 2's store is generated (kept for later runs, see ensureDataset). */
  dataDir: string;
}

/**
 * Runs the wrk processes of `parts` at once against `server` (wrk on GENERATOR_CPU when `pinned`), again when one
 * answered nothing; each part's Load.
 */
type Measure = (what: string, server: Server, parts: LoadPart[], pinned: boolean) => Promise<Load[]>;

/**
 * Times a load is run again when a part of it answered no request at all, not even with an error:
 * on this shared machine a core now and then stalls for seconds, and such a run measures the stall.
 */
const STALL_RETRIES = 2;
/** Keep-alive connections of pass 1, as the small-requests section uses: enough to keep one server core busy. */
const CONNECTIONS = 50;
/**
 * Connections of pass 2's eth_getLogs loads: a few indexers at once; each answer is hundreds of logs, so more only
 * queue.
 */
const MAINNET_CONNECTIONS = 8;
/** Connections of each of the two wrk processes of the mixed load. */
const MIXED_CONNECTIONS = 16;
/**
 * Transactions anvil mines into each block of pass 1: about 88, which the workload's mix makes about
 * 170 logs a block, so a block by hash is a realistic answer and not a handful of logs.
 */
const PASS1_TXS: TxsPerBlock = { min: 60, max: 116 };

/** Calls per shape checked against anvil before the load (compareAnswers), and per pass-2 load checked to answer. */
const CHECKED = 64;
/** Pass 2's density: mainnet's, about 480 logs a block. */
const MAINNET_DENSITY = 1;
/** The seed of pass 2's generated store (fixed: every run measures the same chain). */
const TRAFFIC_SEED = 'traffic';
/**
 * Most turns of the mixed load's point lookups (a transaction, a block, a slot a turn): more than a
 * run asks (about 10k lookups/s here), so no transaction or slot comes twice in a run, and few enough
 * for wrk to load at once (every written slot of 600 mainnet blocks, 675k bodies, takes it a second).
 */
const MIX_TURNS = 50_000;
/** Logs a pass-2 range window may hold: the server's result cap, so none is refused. */
const WINDOW_LOGS = MAX_LOG_RESULTS;

const hex = quantityToHex;
const logs = (filter: Record<string, unknown>): Call => ({ method: 'eth_getLogs', params: [filter] });
const min = (value: number, text: string, ofRatio = true): Target => ({ kind: 'min', value, ofRatio, text });
const max = (value: number, text: string, ofRatio = true): Target => ({ kind: 'max', value, ofRatio, text });
const fmtLogs = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(0)}k`);

/** The serve command line of a store, the answer cache off. */
const serveArgs = (dir: string) => [
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
  '--access-log',
  'off',
  '--answer-cache-mb',
  '0',
];

/** What a store holds for the request lists: block hashes, logs per block, every transaction and written slot. */
interface ChainIndex {
  head: number;
  hashes: string[];
  logsPerBlock: number[];
  positions: TxPosition[];
  slots: string[][];
}

/** Reads the lists every pass cycles through from `store`, blocks 0 to its head. */
function indexChain(store: Store): ChainIndex {
  const reader = new StoreReader(store);
  const head = reader.head()!;
  const index: ChainIndex = { head, hashes: [], logsPerBlock: [], positions: [], slots: [] };
  for (let n = 0; n <= head; n++) {
    index.hashes.push(bytesToHex(reader.header(n)!.hash));
    index.logsPerBlock.push(reader.logs(n).length);
    const txs = reader.txHashes(n).length;
    for (let i = 0; i < txs; i++) index.positions.push({ n, i });
    index.slots.push(...writtenSlots(store, n));
  }
  return index;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Pass 1's shapes: every distinct request of each kind over the anvil chain, with the targets of the issue. */
function anvilShapes(store: Store, chain: ChainIndex): Shape[] {
  const reader = new StoreReader(store);
  const { head } = chain;
  const lastTen = new Set<string>();
  const lastHundred = new Set<string>();
  const pairs = new Map<string, number>();
  for (let n = 0; n <= head; n++) {
    for (const log of reader.logs(n)) {
      const address = bytesToHex(log.address);
      if (n > head - 10) lastTen.add(address);
      if (log.topics.length === 0) continue;
      const pair = `${address} ${bytesToHex(log.topics[0]!)}`;
      if (n > head - 100) lastHundred.add(pair);
      pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
    }
  }
  const pairFilter = (pair: string) => {
    const [address, topic] = pair.split(' ');
    return { address, topics: [topic] };
  };
  const latest = hex(head);
  const wholeChain = [...pairs].filter(([, count]) => count <= MAX_LOG_RESULTS).map(([pair]) => pair);
  const numbers = Array.from({ length: head + 1 }, (_, n) => n);
  const lookups = lookupMethods(reader, {
    byHash: chain.positions,
    numbers,
    byIndex: chain.positions,
    slots: chain.slots,
  });
  return [
    {
      name: `eth_getLogs {blockHash}, every block (mean ${mean(chain.logsPerBlock).toFixed(1)} logs)`,
      kind: 'log',
      calls: chain.hashes.map((blockHash) => logs({ blockHash })),
      minVsAnvil: 2,
      minVsBare: 0,
    },
    {
      name: 'eth_getLogs last 10 blocks, one address (each address)',
      kind: 'log',
      calls: [...lastTen].map((address) => logs({ fromBlock: hex(Math.max(0, head - 9)), toBlock: latest, address })),
      minVsAnvil: 1.5,
      minVsBare: 0,
    },
    {
      name: 'eth_getLogs last 100 blocks, address + topic0 (each pair)',
      kind: 'log',
      calls: [...lastHundred].map((pair) =>
        logs({ fromBlock: hex(Math.max(0, head - 99)), toBlock: latest, ...pairFilter(pair) }),
      ),
      minVsAnvil: 5,
      minVsBare: 0,
    },
    {
      name: 'eth_getLogs whole chain, address + topic0 (each pair)',
      kind: 'log',
      calls: wholeChain.map((pair) => logs({ fromBlock: '0x0', toBlock: latest, ...pairFilter(pair) })),
      minVsAnvil: 5,
      minVsBare: 0,
    },
    ...lookupShapes(lookups, { tx: 8, hashes: 1.5, full: 8, storage: 1.5 }, 0.5),
  ];
}

const ms3 = (l: Load) => `${fmtMs(l.p50Ms)} / ${fmtMs(l.p99Ms)} / ${fmtMs(l.p999Ms)}`;

/** A line under a table naming the loads that had socket errors, timeouts or non-2xx answers (none: no line). */
function badLine(loads: [string, Load][]): string[] {
  const bad = loads.filter(([, l]) => l.bad > 0).map(([name, l]) => `${name} ${l.bad}`);
  return bad.length > 0 ? ['', `Socket errors, timeouts or non-2xx answers: ${bad.join('; ')}.`] : [];
}

/** Pass 1's table. */
function anvilTable(results: PinnedResult[], chain: string): string {
  const lines = [
    `Distinct requests, answer cache off (${chain}; wrk -t1 -c${CONNECTIONS} ` +
      `on core ${GENERATOR_CPU}, each server on core ${SERVER_CPU}):`,
    '',
    '| shape | anvil req/s | ethlogd req/s | / anvil | % of bare | ' +
      'p99 anvil / ethlogd | p99.9 anvil / ethlogd | CPU µs anvil / ethlogd |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.shape.name}, ${r.shape.calls.length} distinct | ${fmtRps(r.anvil.rps)} | ${fmtRps(r.ours.rps)} ` +
        `| ${(r.ours.rps / r.anvil.rps).toFixed(2)}× | ${((100 * r.ours.rps) / r.bare.rps).toFixed(0)}% | ` +
        `${fmtMs(r.anvil.p99Ms)} / ${fmtMs(r.ours.p99Ms)} ms | ${fmtMs(r.anvil.p999Ms)} / ` +
        `${fmtMs(r.ours.p999Ms)} ms | ${r.anvil.cpuUs.toFixed(0)} / ${r.ours.cpuUs.toFixed(0)} |`,
    );
  }
  lines.push(
    ...badLine(
      results.flatMap(
        (r) =>
          [
            [`${r.shape.name}: bare`, r.bare],
            [`${r.shape.name}: anvil`, r.anvil],
            [`${r.shape.name}: ethlogd`, r.ours],
          ] as [string, Load][],
      ),
    ),
  );
  return lines.join('\n');
}

/** Pass 1's report rows of a shape: req/s against anvil (and bare), p99 and CPU per request against anvil. */
function anvilRows(r: PinnedResult, chain: string): Row[] {
  const name = `traffic: ${r.shape.name} (${r.shape.calls.length} distinct, cache off)`;
  const out: Row[] = [
    {
      figure: `${name}, req/s vs anvil (${chain}, pinned)`,
      ours: r.ours.rps,
      unit: 'req/s',
      baseline: r.anvil.rps,
      baselineName: 'anvil, same core',
      target: min(r.shape.minVsAnvil, `≥ ${r.shape.minVsAnvil}× anvil`),
    },
    {
      figure: `${name}, p99 vs anvil`,
      ours: r.ours.p99Ms,
      unit: 'ms',
      baseline: r.anvil.p99Ms,
      baselineName: 'anvil',
      target: max(1, '≤ anvil'),
    },
    {
      figure: `${name}, p99.9 vs anvil`,
      ours: r.ours.p999Ms,
      unit: 'ms',
      baseline: r.anvil.p999Ms,
      baselineName: 'anvil',
    },
    {
      figure: `${name}, server CPU per request vs anvil`,
      ours: r.ours.cpuUs,
      unit: 'µs',
      baseline: r.anvil.cpuUs,
      baselineName: 'anvil',
      target: max(1, '≤ anvil'),
    },
  ];
  if (r.shape.minVsBare > 0) {
    out.push({
      figure: `${name}, req/s vs bare uWS (${r.bytes}-byte body)`,
      ours: r.ours.rps,
      unit: 'req/s',
      baseline: r.bare.rps,
      baselineName: 'bare uWS, same size',
      target: min(r.shape.minVsBare, `≥ ${r.shape.minVsBare * 100}% of bare`),
    });
  }
  const bad = r.ours.bad + r.anvil.bad + r.bare.bad;
  if (bad > 0) out[0]!.note = `${bad} socket errors, timeouts or non-2xx answers`;
  return out;
}

/**
 * Pass 1: mines and ingests the anvil chain, checks a sample of every shape alike, measures every shape on bare, anvil
 * and ethlogd.
 */
async function anvilPass(
  o: TrafficOptions,
  measure: Measure,
): Promise<{ rows: Row[]; table: string; mismatches: string[] }> {
  return withAnvilChain(
    o.blocks,
    'bench-traffic',
    async ({ anvil, dir, head, store, key }) => {
      const shapes = anvilShapes(store, indexChain(store));
      await closeStore(store);
      const chain = `${head + 1}-block anvil chain`;
      console.log(`  traffic pass 1: ${chain}; ${shapes.map((s) => `${s.calls.length} ${s.name}`).join(', ')}`);

      const anvilServer: Server = { pid: anvil.pid, url: anvil.url, stop: () => anvil.stop() };
      const ours = await startPinned(serveArgs(dir), SERVER_CPU, `/v3/${key}`);
      let pinned: { mismatches: string[]; results: PinnedResult[] };
      try {
        pinned = await beside(shapes, ours, anvilServer, CHECKED, async (shape, bodies, bytes, bare) => {
          const one = async (server: Server, name: string) =>
            (await measure(`${shape.name} on ${name}`, server, [{ bodies, connections: CONNECTIONS }], true))[0]!;
          const r = {
            shape,
            bytes,
            bare: await one(bare, 'bare uWS'),
            anvil: await one(anvilServer, 'anvil'),
            ours: await one(ours, 'ethlogd'),
          };
          console.log(
            `  ${shape.name}: bare ${fmtRps(r.bare.rps)}, anvil ${fmtRps(r.anvil.rps)}, ethlogd ` +
              `${fmtRps(r.ours.rps)} req/s; p99 ${fmtMs(r.anvil.p99Ms)} / ${fmtMs(r.ours.p99Ms)} ms; ` +
              `CPU µs ${r.anvil.cpuUs.toFixed(0)} / ${r.ours.cpuUs.toFixed(0)}`,
          );
          return r;
        });
      } finally {
        await ours.stop();
      }
      const { mismatches, results } = pinned;
      return { rows: results.flatMap((r) => anvilRows(r, chain)), table: anvilTable(results, chain), mismatches };
    },
    PASS1_TXS,
  );
}

/** A pass-2 load: what it sent, the logs an answer carries on average, and what it measured. */
interface MainnetResult {
  name: string;
  /** Mean logs per answer (0: point lookups). */
  logsPerAnswer: number;
  load: Load;
  /** Whether the server's CPU is shared with another load running at once (the mixed load). */
  shared?: boolean;
}

/** Pass 2's table. */
function mainnetTable(results: MainnetResult[], chain: string): string {
  const lines = [
    `Mainnet density, answer cache off (${chain}):`,
    '',
    '| load | req/s | logs/s | p50 / p99 / p99.9 ms | CPU µs per request | CPU µs per log |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const perLog = r.logsPerAnswer > 0 && !r.shared ? (r.load.cpuUs / r.logsPerAnswer).toFixed(2) : '–';
    const cpu = r.shared ? `${r.load.cpuUs.toFixed(0)} (both loads)` : r.load.cpuUs.toFixed(0);
    lines.push(
      `| ${r.name} | ${fmtRps(r.load.rps)} | ` +
        `${r.logsPerAnswer > 0 ? fmtLogs(r.load.rps * r.logsPerAnswer) : '–'}` +
        ` | ${ms3(r.load)} | ${cpu} | ${perLog} |`,
    );
  }
  lines.push(...badLine(results.map((r) => [r.name, r.load])));
  return lines.join('\n');
}

/**
 * Contiguous windows [from, to] of the chain, one from every block, each extended while its logs stay within
 * WINDOW_LOGS (those the chain's end cuts short left out).
 */
function logWindows(logsPerBlock: number[]): { from: number; to: number; logs: number }[] {
  const windows: { from: number; to: number; logs: number }[] = [];
  for (let from = 0; from < logsPerBlock.length; from++) {
    let [to, count] = [from, 0];
    while (to < logsPerBlock.length && count + logsPerBlock[to]! <= WINDOW_LOGS) count += logsPerBlock[to++]!;
    if (to < logsPerBlock.length && to > from) windows.push({ from, to: to - 1, logs: count });
  }
  return windows;
}

/**
 * One item of every list a turn, for `turns` turns: a list shorter than that cycled, a longer one sampled evenly over
 * its length.
 */
function interleave<T>(lists: T[][], turns: number): T[] {
  const out: T[] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (const list of lists)
      out.push(list[list.length > turns ? Math.floor((turn * list.length) / turns) : turn % list.length]!);
  }
  return out;
}

/**
 * The calls of `calls` (the first CHECKED) that answered with an error, or with other than `expect(i)` logs when given.
 */
async function unanswered(url: string, name: string, calls: Call[], expect?: (i: number) => number): Promise<string[]> {
  const replies = await batchCalls(url, calls.slice(0, CHECKED), 1);
  return replies.flatMap((r, i) => {
    if (r.error || r.result === null) return [`${name} #${i}: ${JSON.stringify(r.error ?? null)}`];
    const got = Array.isArray(r.result) ? r.result.length : undefined;
    return expect && got !== expect(i) ? [`${name} #${i}: ${got} logs, the store holds ${expect(i)}`] : [];
  });
}

/**
 * Pass 2: the generated mainnet-density store, eth_getLogs by blockHash and over ~10,000-log windows, and the mixed
 * load.
 */
async function mainnetPass(
  o: TrafficOptions,
  measure: Measure,
): Promise<{ rows: Row[]; table: string; mismatches: string[] }> {
  ensureDataset({ dir: o.dataDir, blocks: o.mainnetBlocks, density: MAINNET_DENSITY, seed: TRAFFIC_SEED });
  const store = openStore(o.dataDir);
  const key = createApiKey(store, 'bench-traffic');
  const index = indexChain(store);
  const reader = new StoreReader(store);
  const txHashes = index.positions.map(({ n, i }) => bytesToHex(reader.txHash(n, i)!));
  await closeStore(store);
  const { head, logsPerBlock } = index;
  const perBlock = mean(logsPerBlock);
  const windows = logWindows(logsPerBlock);
  if (windows.length === 0) throw new Error(`no window of whole blocks holds ${WINDOW_LOGS} logs or fewer`);
  const perWindow = mean(windows.map((w) => w.logs));
  const chain =
    `${head + 1} blocks generated at density ${MAINNET_DENSITY}, ${(perBlock * (head + 1)).toFixed(0)} ` +
    `logs, ${txHashes.length} transactions, ${index.slots.length} written slots`;
  console.log(`  traffic pass 2: ${chain}`);

  const byHash = index.hashes.map((blockHash) => logs({ blockHash }));
  const ranges = windows.map((w) => logs({ fromBlock: hex(w.from), toBlock: hex(w.to) }));
  const lookupLists: Call[][] = [
    txHashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })),
    index.hashes.map((_, n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
    index.slots.map((params) => ({ method: 'eth_getStorageAt', params })),
  ];
  const lookups = interleave(lookupLists, Math.min(MIX_TURNS, Math.max(...lookupLists.map((l) => l.length))));
  const blockName = `eth_getLogs {blockHash}, every block (mean ${perBlock.toFixed(0)} logs)`;
  const rangeName =
    `eth_getLogs ${windows.length} windows of ~${mean(windows.map((w) => w.to - w.from + 1)).toFixed(0)} ` +
    `blocks, no address (mean ${perWindow.toFixed(0)} logs)`;
  const results: MainnetResult[] = [];
  const mismatches: string[] = [];
  const bodies = (calls: Call[]) => calls.map(rpcBody);

  const pinned = await startPinned(serveArgs(o.dataDir), SERVER_CPU, `/v3/${key}`);
  try {
    mismatches.push(...(await unanswered(pinned.url, 'getLogs {blockHash}', byHash, (i) => logsPerBlock[i]!)));
    mismatches.push(...(await unanswered(pinned.url, 'getLogs window', ranges, (i) => windows[i]!.logs)));
    mismatches.push(...(await unanswered(pinned.url, 'point lookup', lookups)));
    const name =
      `${blockName}, pinned: wrk -c${MAINNET_CONNECTIONS} on ` + `core ${GENERATOR_CPU}, server on core ${SERVER_CPU}`;
    results.push({
      name,
      logsPerAnswer: perBlock,
      load: (await measure(name, pinned, [{ bodies: bodies(byHash), connections: MAINNET_CONNECTIONS }], true))[0]!,
    });
    results.push({
      name: `${rangeName}, pinned`,
      logsPerAnswer: perWindow,
      load: (
        await measure(
          `${rangeName}, pinned`,
          pinned,
          [{ bodies: bodies(ranges), connections: MAINNET_CONNECTIONS }],
          true,
        )
      )[0]!,
    });
  } finally {
    await pinned.stop();
  }
  const free = await startPinned(serveArgs(o.dataDir), undefined, `/v3/${key}`);
  try {
    const name =
      `${blockName}, unpinned: wrk -c${MAINNET_CONNECTIONS}, ` +
      `server on ${availableParallelism()} cores (default threads)`;
    results.push({
      name,
      logsPerAnswer: perBlock,
      load: (await measure(name, free, [{ bodies: bodies(byHash), connections: MAINNET_CONNECTIONS }], false))[0]!,
    });
    const [blocks, points] = await measure(
      'the mixed load',
      free,
      [
        { bodies: bodies(byHash), connections: MIXED_CONNECTIONS },
        { bodies: bodies(lookups), connections: MIXED_CONNECTIONS },
      ],
      false,
    );
    results.push(
      {
        name: `mixed, unpinned: ${blockName}, wrk -c${MIXED_CONNECTIONS}`,
        logsPerAnswer: perBlock,
        load: blocks!,
        shared: true,
      },
      {
        name:
          'mixed, unpinned: point lookups (a tx by hash, a block by number, ' +
          `a written slot in turn; ${lookups.length} bodies), wrk -c${MIXED_CONNECTIONS}`,
        logsPerAnswer: 0,
        load: points!,
        shared: true,
      },
    );
  } finally {
    await free.stop();
  }
  for (const r of results)
    console.log(
      `  ${r.name}: ${fmtRps(r.load.rps)} req/s, p50/p99/p99.9 ${ms3(r.load)} ms, CPU µs ${r.load.cpuUs.toFixed(0)}`,
    );

  const [block, range, blockFree, mixedBlocks, mixedPoints] = results as [
    MainnetResult,
    MainnetResult,
    MainnetResult,
    MainnetResult,
    MainnetResult,
  ];
  const logsPerSecond = (r: MainnetResult) => r.load.rps * r.logsPerAnswer;
  const where = `${head + 1}-block mainnet-density store, cache off`;
  const rows: Row[] = [
    {
      figure: `traffic: ${blockName}, logs/s on one core (pinned, ${where})`,
      ours: logsPerSecond(block),
      unit: 'logs/s',
      target: min(1e6, '≥ 1M logs/s per core', false),
    },
    {
      figure: `traffic: ${blockName}, server CPU per block (pinned)`,
      ours: block.load.cpuUs / 1000,
      unit: 'ms',
      target: max(0.5 * (perBlock / 500), `≤ 0.5 ms per 500 logs`, false),
      note: `${(block.load.cpuUs / perBlock).toFixed(2)} µs per log`,
    },
    {
      figure: `traffic: ${blockName}, p99.9 (pinned)`,
      ours: block.load.p999Ms,
      unit: 'ms',
      note: `p50 ${fmtMs(block.load.p50Ms)} ms, p99 ${fmtMs(block.load.p99Ms)} ms`,
    },
    {
      figure: `traffic: ${rangeName}, logs/s on one core (pinned)`,
      ours: logsPerSecond(range),
      unit: 'logs/s',
      target: min(1e6, '≥ 1M logs/s per core', false),
    },
    {
      figure: `traffic: ${rangeName}, server CPU per answer (pinned)`,
      ours: range.load.cpuUs / 1000,
      unit: 'ms',
      target: max(10 * (perWindow / WINDOW_LOGS), `≤ 10 ms per ${WINDOW_LOGS} logs`, false),
      note:
        `p50 ${fmtMs(range.load.p50Ms)} ms, p99 ${fmtMs(range.load.p99Ms)} ` +
        `ms, p99.9 ${fmtMs(range.load.p999Ms)} ms`,
    },
    {
      figure: `traffic: ${blockName}, logs/s on ${availableParallelism()} cores (unpinned)`,
      ours: logsPerSecond(blockFree),
      unit: 'logs/s',
      target: min(5e5, '≥ 500k logs/s', false),
    },
    {
      figure: `traffic: ${blockName}, p99 (unpinned)`,
      ours: blockFree.load.p99Ms,
      unit: 'ms',
      target: max(20, '≤ 20 ms', false),
      note: `p99.9 ${fmtMs(blockFree.load.p999Ms)} ms`,
    },
    {
      figure:
        'traffic: mixed load, point lookups p99 beside eth_getLogs {blockHash} ' +
        `(unpinned, ${MIXED_CONNECTIONS} + ${MIXED_CONNECTIONS} connections)`,
      ours: mixedPoints.load.p99Ms,
      unit: 'ms',
      target: max(5, '≤ 5 ms', false),
      note: `${fmtRps(mixedPoints.load.rps)} req/s, p99.9 ${fmtMs(mixedPoints.load.p999Ms)} ms`,
    },
    {
      figure: 'traffic: mixed load, eth_getLogs {blockHash} p99.9 vs its p50',
      ours: mixedBlocks.load.p999Ms,
      unit: 'ms',
      baseline: mixedBlocks.load.p50Ms,
      baselineName: 'its p50',
      target: max(10, '≤ 10× p50'),
      note: `${fmtRps(mixedBlocks.load.rps)} req/s`,
    },
  ];
  const bad = results.reduce((sum, r) => sum + r.load.bad, 0);
  if (bad > 0) rows[0]!.note = `${bad} socket errors, timeouts or non-2xx answers over pass 2`;
  return { rows, table: mainnetTable(results, chain), mismatches };
}

/**
 * Both passes: distinct requests against anvil, then mainnet density; the rows, the two tables and any answer that
 * differed.
 */
export async function measureMainnetTraffic(
  o: TrafficOptions,
): Promise<{ rows: Row[]; table: string; mismatches: string[] }> {
  if (availableParallelism() < 2)
    throw new Error(
      'the traffic section pins the load generator and the server to two different cores: this machine has one',
    );
  if (!hasWrk())
    throw new Error(
      'the traffic section needs wrk (apt-get install wrk): two load generators at once, and p99.9 from its Lua done()',
    );
  const stalls: string[] = [];
  const measure: Measure = async (what, server, parts, pinned) => {
    for (let retry = 0; ; retry++) {
      const loads = await loadTogether(server.url, [server.pid], parts, o.seconds, pinned);
      if (loads.every((l) => l.rps > 0) || retry === STALL_RETRIES) return loads;
      stalls.push(what);
      console.log(`  ${what}: no request answered in ${o.seconds} s, measured again`);
    }
  };
  const anvil = await anvilPass(o, measure);
  const mainnet = await mainnetPass(o, measure);
  const stallLine =
    stalls.length > 0
      ? `\n\nMeasured again after a run that answered no request (the machine stalled): ${stalls.join('; ')}.`
      : '';
  return {
    rows: [...anvil.rows, ...mainnet.rows],
    table: `${anvil.table}\n\n${mainnet.table}${stallLine}`,
    mismatches: [...anvil.mismatches, ...mainnet.mismatches],
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      blocks: { type: 'string' },
      seconds: { type: 'string' },
      'mainnet-blocks': { type: 'string' },
      data: { type: 'string' },
    },
  });
  const { table, mismatches } = await measureMainnetTraffic({
    blocks: Number(values.blocks ?? 288),
    seconds: Number(values.seconds ?? 5),
    mainnetBlocks: Number(values['mainnet-blocks'] ?? 600),
    dataDir: values.data ?? 'data/bench-traffic',
  });
  console.log(table);
  if (mismatches.length > 0)
    console.log(`\n${mismatches.length} answers differed or failed:\n${mismatches.join('\n')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
