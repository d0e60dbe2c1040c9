/**
 * `make bench` / `make bench-quick`: every figure of DESIGN.md §7 beside its baseline, measured in
 * one run on this machine, printed as one table and written as JSON, Markdown and an SVG chart
 * under native-free-bench/results/.
 *
 *   node dist/native-free-bench/run.js [--quick]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measureHttp } from './http.js';
import { measureIngest } from './ingest.js';
import { measureLogQueries } from './logQueries.js';
import { measureMicro } from './micro.js';
import { writeReport, type Row } from './report.js';

/** The two profiles: the full one on a 20,480-block mainnet-density dataset, the quick one in under two minutes. */
const PROFILES = {
  full: { data: 'data/bench', blocks: 20_480, density: 1, reps: 25, seconds: 8, runs: 3, ingestBlocks: 1000, microTime: 1 },
  quick: { data: 'data/bench-quick', blocks: 4_200, density: 0.2, reps: 7, seconds: 2, runs: 1, ingestBlocks: 100, microTime: 0.1 },
} as const;

/** The seed of the benchmark datasets (fixed: every run measures the same chain). */
const SEED = 'bench';

function ensureDataset(p: (typeof PROFILES)[keyof typeof PROFILES]): void {
  if (existsSync(join(p.data, 'data.mdb'))) return;
  console.log(`generating ${p.data} (${p.blocks} blocks, density ${p.density}); reused by later runs`);
  const r = spawnSync(process.execPath, ['dist/src/cli.js', 'generate', '--out', p.data, '--blocks', String(p.blocks), '--density', String(p.density), '--seed', SEED], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('dataset generation failed');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  const name = values.quick ? 'quick' : 'full';
  const p = PROFILES[name];
  const started = Date.now();
  ensureDataset(p);
  const rows: Row[] = [];
  console.log('log queries …');
  const logs = await measureLogQueries(p.data, SEED, p.reps);
  rows.push(...logs.rows);
  console.log('HTTP …');
  const http = await measureHttp({ dataDir: p.data, seed: SEED, seconds: p.seconds, connections: 50, runs: p.runs });
  rows.push(...http.rows);
  console.log('ingest …');
  rows.push(...(await measureIngest(p.ingestBlocks)));
  console.log('micro-benchmarks …');
  rows.push(...(await measureMicro(p.data, SEED, p.microTime)));
  const md = writeReport('native-free-bench/results', name, rows, { latencyByRange: logs.latencyByRange, throughput: http.throughput }, {
    profile: { name, ...p },
    seconds: (Date.now() - started) / 1000,
  });
  console.log(`\n${md}\n(${((Date.now() - started) / 1000).toFixed(0)} s; results in native-free-bench/results/${name}.{json,md,svg})`);
}

await main();
