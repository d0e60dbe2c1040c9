/**
 * `make bench` / `make bench-quick`: every figure of docs/architecture.md §7 beside its baseline,
 * and the peer baseline (anvil serving the same chain for the same requests), measured in one run
 * on this machine, printed as one table and written as JSON, Markdown and an SVG chart under
 * native-free-bench/results/.
 *
 *   node dist/native-free-bench/run.js [--quick] [--only logs,http,anvil,small,traffic,cluster,ingest,export,micro]
 *
 * With --only, just the named sections run and the table is printed, not written: results/ keeps
 * the last whole run (docs/benchmarks.md's table is copied from results/full.md).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ANVIL_BIN } from '../test/support/anvil.js';
import { measureAnvil } from './anvilBaseline.js';
import { measureCluster } from './cluster.js';
import { ensureDataset } from './dataset.js';
import { measureExport } from './exportLogs.js';
import { measureHttp } from './http.js';
import { measureIngest } from './ingest.js';
import { measureLogQueries } from './logQueries.js';
import { measureMainnetTraffic } from './mainnetTraffic.js';
import { measureMicro } from './micro.js';
import { type ChartData, type Row, table, writeReport } from './report.js';
import { measureSmallRequests } from './smallRequests.js';

/**
 * The two profiles: the full one on a 20,480-block mainnet-density dataset (and a 3,000-block anvil
 * chain), the quick one on a small dataset in about seven minutes (mostly the pinned loads of the
 * small-requests and traffic sections).
 */
const PROFILES = {
  full: {
    data: 'data/bench',
    blocks: 20_480,
    density: 1,
    reps: 25,
    seconds: 8,
    runs: 3,
    ingestBlocks: 1000,
    microTime: 1,
    anvilBlocks: 3_000,
    anvilSeconds: 8,
    anvilLatencyRequests: 2_000,
    anvilLogReps: 50,
    smallBlocks: 287,
    smallSeconds: 6,
    trafficBlocks: 288,
    trafficMainnetBlocks: 600,
    trafficSeconds: 6,
    trafficData: 'data/bench-traffic',
  },
  quick: {
    data: 'data/bench-quick',
    blocks: 4_200,
    density: 0.2,
    reps: 7,
    seconds: 2,
    runs: 1,
    ingestBlocks: 100,
    microTime: 0.1,
    anvilBlocks: 300,
    anvilSeconds: 1,
    anvilLatencyRequests: 300,
    anvilLogReps: 20,
    smallBlocks: 287,
    smallSeconds: 1,
    trafficBlocks: 100,
    trafficMainnetBlocks: 100,
    trafficSeconds: 1,
    trafficData: 'data/bench-traffic-quick',
  },
} as const;

/** The sections of the benchmark, in the order they run. */
const SECTIONS = ['logs', 'http', 'anvil', 'small', 'traffic', 'cluster', 'ingest', 'export', 'micro'] as const;
type Section = (typeof SECTIONS)[number];

/** The seed of the benchmark datasets (fixed: every run measures the same chain). */
const SEED = 'bench';

function sections(only: string | undefined): Set<Section> {
  if (only === undefined) return new Set(SECTIONS);
  const names = only.split(',').map((s) => s.trim());
  const unknown = names.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new Error(`--only: unknown section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
  return new Set(names as Section[]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, only: { type: 'string' } } });
  const name = values.quick ? 'quick' : 'full';
  const p = PROFILES[name];
  const run = sections(values.only);
  const started = Date.now();
  const sectionSeconds: Record<string, number> = {};
  const step = async (section: Section | 'dataset', label: string, body: () => Promise<void> | void) => {
    console.log(`${label} …`);
    const t = Date.now();
    await body();
    sectionSeconds[section] = (Date.now() - t) / 1000;
    console.log(`  ${label}: ${sectionSeconds[section].toFixed(0)} s`);
  };
  if (run.has('logs') || run.has('http') || run.has('export') || run.has('micro'))
    await step('dataset', `dataset ${p.data}`, () =>
      ensureDataset({ dir: p.data, blocks: p.blocks, density: p.density, seed: SEED }),
    );
  const rows: Row[] = [];
  const chart: ChartData = { latencyByRange: [], throughput: [] };
  const extra: Record<string, unknown> = { profile: { name, ...p }, sectionSeconds };
  if (run.has('logs')) {
    await step('logs', 'log queries', async () => {
      const logs = await measureLogQueries(p.data, SEED, p.reps);
      rows.push(...logs.rows);
      chart.latencyByRange.push(...logs.latencyByRange);
    });
  }
  if (run.has('http')) {
    await step('http', 'HTTP', async () => {
      const http = await measureHttp({
        dataDir: p.data,
        seed: SEED,
        seconds: p.seconds,
        connections: 50,
        runs: p.runs,
      });
      rows.push(...http.rows);
      chart.throughput.push(...http.throughput);
    });
  }
  if (run.has('anvil') && !existsSync(ANVIL_BIN))
    console.log(`anvil baseline skipped: ${ANVIL_BIN} is not installed (npm's optional @foundry-rs/anvil-linux-amd64)`);
  else if (run.has('anvil')) {
    await step('anvil', `anvil baseline (${p.anvilBlocks}-block chain)`, async () => {
      try {
        const anvil = await measureAnvil({
          blocks: p.anvilBlocks,
          seconds: p.anvilSeconds,
          connections: 50,
          runs: p.runs,
          latencyRequests: p.anvilLatencyRequests,
          logReps: p.anvilLogReps,
        });
        rows.push(...anvil.rows);
        chart.throughput.push(...anvil.throughput);
        extra.anvil = { chain: anvil.chain, mismatches: anvil.mismatches };
      } catch (error) {
        console.log(`anvil baseline failed, its rows are missing: ${(error as Error).stack}`);
        extra.anvil = { error: (error as Error).message };
      }
    });
  }
  /**
   * A section against anvil that prints a table: skipped, saying so, without anvil's binary; when it fails, its rows
   * are missing and the reason printed.
   */
  const anvilSection = async (
    section: 'small' | 'traffic',
    label: string,
    measure: () => Promise<{ rows: Row[]; table: string; mismatches: string[] }>,
  ) => {
    if (!run.has(section)) return;
    if (!existsSync(ANVIL_BIN))
      return console.log(
        `${label} skipped: ${ANVIL_BIN} is not installed (npm's optional @foundry-rs/anvil-linux-amd64)`,
      );
    await step(section, label, async () => {
      try {
        const measured = await measure();
        rows.push(...measured.rows);
        extra[section] = { table: measured.table, mismatches: measured.mismatches };
        console.log(measured.table);
      } catch (error) {
        console.log(`${label} failed, the section's rows are missing: ${(error as Error).stack}`);
        extra[section] = { error: (error as Error).message };
      }
    });
  };
  await anvilSection('small', 'small requests', () =>
    measureSmallRequests({ blocks: p.smallBlocks, seconds: p.smallSeconds, connections: 50 }),
  );
  await anvilSection('traffic', 'mainnet-shaped traffic', () =>
    measureMainnetTraffic({
      blocks: p.trafficBlocks,
      seconds: p.trafficSeconds,
      mainnetBlocks: p.trafficMainnetBlocks,
      dataDir: p.trafficData,
    }),
  );
  if (run.has('cluster')) {
    await step('cluster', 'replicas behind HAProxy', async () => {
      try {
        rows.push(...(await measureCluster({ seconds: p.seconds, connections: 50 })));
      } catch (error) {
        console.log(`cluster skipped or failed, its rows are missing: ${(error as Error).message}`);
        extra.cluster = { error: (error as Error).message };
      }
    });
  }
  if (run.has('ingest')) {
    const dataset = { dir: p.data, blocks: p.blocks, density: p.density, seed: SEED };
    await step('ingest', 'ingest', async () => void rows.push(...(await measureIngest(p.ingestBlocks, dataset))));
  }
  if (run.has('export'))
    await step('export', 'export to Parquet', async () => void rows.push(...(await measureExport(p.data))));
  if (run.has('micro'))
    await step(
      'micro',
      'micro-benchmarks',
      async () => void rows.push(...(await measureMicro(p.data, SEED, p.microTime))),
    );
  const seconds = (Date.now() - started) / 1000;
  if (values.only !== undefined) {
    console.log(`\n${table(rows)}\n(${seconds.toFixed(0)} s; --only: results/ not written)`);
    return;
  }
  const md = writeReport('native-free-bench/results', name, rows, chart, { ...extra, seconds });
  console.log(`\n${md}\n(${seconds.toFixed(0)} s; results in native-free-bench/results/${name}.{json,md,svg})`);
}

await main();
