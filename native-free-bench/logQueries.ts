/**
 * eth_getLogs engine benchmark on a generated store (no HTTP): latency percentiles of a
 * single-address query (an address in ~1% of blocks) by range size, the single-threaded oracle on
 * the same queries, 1 vs 2 workers on a scan-bound query, and a whole-dataset sparse scan rate.
 *
 *   node dist/native-free-bench/logQueries.js --data data/bench --seed bench [--reps 25]
 */
import { parseArgs } from 'node:util';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { DEFAULT_LOG_LIMITS, type LogLimits } from '#src/config.js';
import { LogEngine } from '#src/logs/engine.js';
import { oracleGetLogs } from '#src/logs/oracle.js';
import { parseFilter } from '#src/rpc/filterParams.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { describeDataset } from '#src/synth/generator.js';
import { type ChartData, type Row, table } from './report.js';

/** The log-query rows and the latency series of the chart. */
export interface LogQueryResults {
  rows: Row[];
  latencyByRange: ChartData['latencyByRange'];
}

/** The p-th percentile (0..100) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A small seeded PRNG (mulberry32), so runs pick the same windows. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs the log-query figures against the store in `dataDir`, generated with `seed`. */
export async function measureLogQueries(dataDir: string, seed: string, reps: number): Promise<LogQueryResults> {
  const store = openStore(dataDir, { readOnly: true });
  const reader = new StoreReader(store);
  const head = reader.meta()!.head;
  const rare = bytesToHex(describeDataset({ blocks: head + 1, seed, density: 1 }).rareAddress);
  const limits: LogLimits = { ...DEFAULT_LOG_LIMITS, maxResults: 1e9, timeoutMs: 600_000 };
  const rows: Row[] = [];
  const latencyByRange: ChartData['latencyByRange'] = [];
  const engines = new Map<number, LogEngine>();
  const engine = (threads: number) => {
    let e = engines.get(threads);
    if (!e) {
      e = new LogEngine({ dataDir, limits, threads, onError: (m, err) => console.error(m, err) });
      engines.set(threads, e);
    }
    return e;
  };
  const time = async (run: () => unknown) => {
    const t = performance.now();
    await run();
    return performance.now() - t;
  };
  const filterFor = (from: number, to: number, extra: Record<string, unknown> = {}) =>
    parseFilter({ fromBlock: quantityToHex(from), toBlock: quantityToHex(to), ...extra }, limits.maxParams);

  try {
    for (const threads of [1, 2])
      await engine(threads).query(filterFor(0, Math.min(head, 4096), { address: rare }), reader);
    for (const size of [100, 1000, 10_000]) {
      if (size > head + 1) continue;
      const rand = prng(size);
      const windows = Array.from({ length: reps }, () => {
        const from = Math.floor(rand() * (head + 1 - size));
        return filterFor(from, from + size - 1, { address: rare });
      });
      for (const spec of windows) await engine(2).query(spec, reader);
      const ours: number[] = [];
      for (const spec of windows) ours.push(await time(() => engine(2).query(spec, reader)));
      const oracleReps = Math.max(3, Math.floor(reps / (size / 100)));
      const oracle: number[] = [];
      for (const spec of windows.slice(0, oracleReps))
        oracle.push(await time(() => oracleGetLogs(reader, spec, limits)));
      const p50 = percentile(ours, 50);
      const oracleP50 = percentile(oracle, 50);
      latencyByRange.push({ blocks: size, oursMs: p50, oracleMs: oracleP50 });
      rows.push({
        figure:
          `eth_getLogs, one address in ~1% of blocks, ${size} ` +
          `blocks, p50 (p99 ${percentile(ours, 99).toFixed(1)} ms)`,
        ours: p50,
        unit: 'ms',
        baseline: oracleP50,
        baselineName: 'single-threaded oracle',
        target: size === 10_000 ? { kind: 'max', value: 20, text: '≤ 20 ms (geth ~204, Reth ~507)' } : undefined,
      });
    }

    const scanBound = filterFor(0, head, { topics: [null, null, null, '0x' + 'ab'.repeat(32)] });
    const scanOne: number[] = [];
    const scanTwo: number[] = [];
    await engine(1).query(scanBound, reader);
    await engine(2).query(scanBound, reader);
    for (let i = 0; i < Math.max(5, Math.floor(reps / 3)); i++) {
      scanOne.push(await time(() => engine(1).query(scanBound, reader)));
      scanTwo.push(await time(() => engine(2).query(scanBound, reader)));
    }
    rows.push({
      figure:
        'scan-bound query (absent 4th topic: saturated blooms pass most blocks, ' +
        `every record read, nothing matches; ${head + 1} blocks): 2 workers, p50`,
      ours: percentile(scanTwo, 50),
      unit: 'ms',
      baseline: percentile(scanOne, 50),
      baselineName: '1 worker',
      target: { kind: 'max', value: 1 / 1.7, ofRatio: true, text: '≥ 1.7× faster than 1 worker' },
    });
    const absent = filterFor(0, head, { address: '0x' + 'de'.repeat(20), topics: ['0x' + 'ad'.repeat(32)] });
    const sparse: number[] = [];
    await engine(2).query(absent, reader);
    for (let i = 0; i < Math.max(5, Math.floor(reps / 3)); i++)
      sparse.push(await time(() => engine(2).query(absent, reader)));
    rows.push({
      figure: `sparse query over the whole dataset (${head + 1} blocks, absent address + topic)`,
      ours: (head + 1) / (percentile(sparse, 50) / 1000),
      unit: 'blocks/s',
      target: { kind: 'min', value: 20_000_000, text: '≥ 20M blocks/s (HyperSync)' },
    });
    return { rows, latencyByRange };
  } finally {
    for (const e of engines.values()) await e.close();
    await closeStore(store);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { data: { type: 'string' }, seed: { type: 'string' }, reps: { type: 'string' } },
  });
  const { rows } = await measureLogQueries(
    values.data ?? 'data/bench',
    values.seed ?? 'bench',
    Number(values.reps ?? 25),
  );
  console.log(table(rows));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
