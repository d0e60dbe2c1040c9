/**
 * `make bench-scale`: how the figures grow with the chain. One store, generated to the first size
 * and extended to each next one (generate N then a larger N continues the same chain); at each
 * size: the generate rate of the blocks just added, the store's bytes per log, `verify`'s time,
 * and over HTTP against a fresh `serve`: p50/p99 of long-range eth_getLogs (one address over the
 * whole chain, that address with its topic0, and a sparse whole-range query of an absent address,
 * in blocks/s) and of the realtime ones (the last 10 blocks for one address, the head block by
 * hash), then the server's resident memory. The density is the one that fits this machine's
 * disk at a million blocks (printed), unless given, so runs of fewer sizes measure the same chain.
 * Written to native-free-bench/results/scale.*.
 *
 *   node dist/native-free-bench/scale.js [--sizes 10000,100000,1000000] [--density D] [--dir data/scale] [--reps 15]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { bytesToHex, quantityToHex } from '../src/chain/hex.js';
import { createApiKey } from '../src/store/apiKeys.js';
import { StoreReader } from '../src/store/reader.js';
import { closeStore, openStore, storeDiskBytes } from '../src/store/schema.js';
import { ANSWER_UPDATED_TOPIC } from '../src/synth/events.js';
import { rareAddress } from '../src/synth/generator.js';
import { startChild } from './http.js';
import { percentile } from './logQueries.js';
import { machine, panelsSvg, table, type Panel, type Row } from './report.js';

/** The chain lengths measured by default. */
const DEFAULT_SIZES = [10_000, 100_000, 1_000_000];
/** Bytes a block takes in the store at density 1 (whole file: about 660 B per log, about 480 logs a block). */
const BYTES_PER_BLOCK_AT_DENSITY_1 = 330_000;
/** Share of the free disk the largest store may take: room for the system, other work and LMDB's growth. */
const DISK_SHARE = 0.5;
/** Highest density: mainnet's. */
const MAX_DENSITY = 1;
/** The seed of the scale chain. */
const SEED = 'scale';
/** Result cap of the server: the one-address query returns ~1% of the blocks' worth of logs (10,000 at a million blocks), all of them. */
const MAX_LOG_RESULTS = 1_000_000;
/** Deadline of the server's eth_getLogs: whole-chain queries of a million blocks must finish, not time out. */
const LOG_TIMEOUT_MS = 600_000;
/** Timed queries of each kind at each size by default: enough for a p99 of a few slow ones. */
const DEFAULT_REPS = 15;
/** Queries before timing: the first ones fill the page cache and warm the workers. */
const WARMUP_QUERIES = 2;

/** What was measured at one size. */
interface SizeResult {
  blocks: number;
  logs: number;
  generateLogsPerSecond: number;
  bytesPerLog: number;
  verifySeconds: number;
  serveRssMiB: number;
  /** The part of it that is the process's own memory (RssAnon); the rest is LMDB's mapped pages of the store (RssFile), shared page cache. */
  serveAnonMiB: number;
  query: Record<QueryName, { p50: number; p99: number; logs: number }>;
}

type QueryName = 'address' | 'addressTopic' | 'sparse' | 'recent' | 'byHash';

/** Blocks of the realtime range query: the last ten, as Subsquid asks them. */
const RECENT_BLOCKS = 10;

/** The density whose largest store fits DISK_SHARE of the free space where `dir` lives, at most 1, two significant digits (rounded down). */
function fittingDensity(dir: string, largest: number): { density: number; freeBytes: number } {
  mkdirSync(dirname(dir), { recursive: true });
  const fs = statfsSync(dirname(dir));
  const freeBytes = fs.bavail * fs.bsize;
  const raw = (DISK_SHARE * freeBytes) / (largest * BYTES_PER_BLOCK_AT_DENSITY_1);
  const scale = 10 ** (Math.floor(Math.log10(raw)) - 1);
  return { density: Math.min(MAX_DENSITY, Math.floor(raw / scale) * scale), freeBytes };
}

/** Runs `ethlogd args…` to its end; throws with its output when it fails. */
function cli(args: string[]): string {
  const r = spawnSync(process.execPath, ['dist/src/cli.js', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`ethlogd ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Milliseconds from sending `body` until the answer's last byte, and the answer's log count. */
function timedQuery(url: string, body: string): Promise<{ ms: number; logs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - started;
        const answer = JSON.parse(Buffer.concat(chunks).toString()) as { result?: unknown[]; error?: { message: string } };
        if (!answer.result) reject(new Error(`eth_getLogs failed: ${answer.error?.message}`));
        else resolve({ ms, logs: answer.result.length });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A resident-memory field of process `pid` (VmRSS, RssAnon), in MiB (Linux /proc). */
function rssMiB(pid: number, field: 'VmRSS' | 'RssAnon'): number {
  const kib = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

/** Serves the store in `dir` and times the long-range queries, then reads the server's memory. */
async function measureServe(dir: string, head: number, reps: number): Promise<Pick<SizeResult, 'serveRssMiB' | 'serveAnonMiB' | 'query'>> {
  const store = openStore(dir);
  const key = createApiKey(store, 'bench-scale');
  const reader = new StoreReader(store);
  const headHash = bytesToHex(reader.header(head)!.hash);
  // The realtime range asks for the contract of the newest log at or below the head.
  let newest = head;
  while (newest > 0 && reader.logs(newest).length === 0) newest--;
  const busy = bytesToHex(reader.logs(newest).at(-1)?.address ?? rareAddress(SEED));
  await closeStore(store);
  const server = await startChild([
    'dist/src/cli.js', 'serve', '--data', dir, '--port', '0', '--host', '127.0.0.1', '--access-log', 'off', '--answer-cache-mb', '0',
    '--max-log-results', String(MAX_LOG_RESULTS), '--log-timeout-ms', String(LOG_TIMEOUT_MS),
  ]);
  try {
    const url = `http://127.0.0.1:${server.port}/v3/${key}`;
    const rare = bytesToHex(rareAddress(SEED));
    const range = { fromBlock: '0x0', toBlock: quantityToHex(head) };
    const filters: Record<QueryName, object> = {
      address: { ...range, address: rare },
      addressTopic: { ...range, address: rare, topics: [bytesToHex(ANSWER_UPDATED_TOPIC)] },
      sparse: { ...range, address: '0x' + 'de'.repeat(20) },
      recent: { fromBlock: quantityToHex(Math.max(0, head - RECENT_BLOCKS + 1)), toBlock: quantityToHex(head), address: busy },
      byHash: { blockHash: headHash },
    };
    const query = {} as SizeResult['query'];
    for (const [name, filter] of Object.entries(filters) as [QueryName, object][]) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
      for (let i = 0; i < WARMUP_QUERIES; i++) await timedQuery(url, body);
      const times: number[] = [];
      let logs = 0;
      for (let i = 0; i < reps; i++) {
        const t = await timedQuery(url, body);
        times.push(t.ms);
        logs = t.logs;
      }
      query[name] = { p50: percentile(times, 50), p99: percentile(times, 99), logs };
    }
    return { serveRssMiB: rssMiB(server.pid, 'VmRSS'), serveAnonMiB: rssMiB(server.pid, 'RssAnon'), query };
  } finally {
    await server.stop();
  }
}

/** Generates (or extends) the store in `dir` to `blocks` blocks and measures every figure at that size. */
async function measureSize(dir: string, blocks: number, density: number, reps: number, logsBefore: number): Promise<SizeResult> {
  const out = cli(['generate', '--out', dir, '--blocks', String(blocks), '--density', String(density), '--seed', SEED]);
  const generated = /^generated \d+ blocks, \d+ transactions, (\d+) logs in .* \((\d+) logs\/s\)/m.exec(out);
  if (!generated) throw new Error(`generate printed no summary: ${out}`);
  const logs = logsBefore + Number(generated[1]);
  const started = performance.now();
  cli(['verify', '--data', dir]);
  const verifySeconds = (performance.now() - started) / 1000;
  const served = await measureServe(dir, blocks - 1, reps);
  return {
    blocks,
    logs,
    generateLogsPerSecond: Number(generated[2]),
    bytesPerLog: storeDiskBytes(dir) / logs,
    verifySeconds,
    ...served,
  };
}

/** The table rows of one size. */
function rowsOf(r: SizeResult): Row[] {
  const at = `${r.blocks} blocks`;
  const q = r.query;
  return [
    { figure: `${at}: generate (the blocks added to reach this size)`, ours: r.generateLogsPerSecond, unit: 'logs/s' },
    { figure: `${at}: store file per log (${r.logs} logs)`, ours: r.bytesPerLog, unit: 'B/log' },
    { figure: `${at}: serve's resident memory after the queries (its own, RssAnon: ${r.serveAnonMiB.toFixed(0)} MiB; the rest the store's mapped pages)`, ours: r.serveRssMiB, unit: 'MiB' },
    { figure: `${at}: eth_getLogs, one address (~1% of blocks, ${q.address.logs} logs) over the whole chain, p50 (p99 ${q.address.p99.toFixed(1)} ms)`, ours: q.address.p50, unit: 'ms' },
    { figure: `${at}: eth_getLogs, that address + its topic0 (${q.addressTopic.logs} logs) over the whole chain, p50 (p99 ${q.addressTopic.p99.toFixed(1)} ms)`, ours: q.addressTopic.p50, unit: 'ms' },
    {
      figure: `${at}: eth_getLogs, an absent address over the whole chain (p50 ${q.sparse.p50.toFixed(1)} ms, p99 ${q.sparse.p99.toFixed(1)} ms)`,
      ours: r.blocks / (q.sparse.p50 / 1000),
      unit: 'blocks/s',
      target: { kind: 'min', value: 20_000_000, text: '≥ 20M blocks/s at 1M blocks' },
    },
    { figure: `${at}: eth_getLogs, the last ${RECENT_BLOCKS} blocks for one contract (${q.recent.logs} logs), p50 (p99 ${q.recent.p99.toFixed(2)} ms)`, ours: q.recent.p50, unit: 'ms' },
    { figure: `${at}: eth_getLogs, the head block by hash (${q.byHash.logs} logs), p50 (p99 ${q.byHash.p99.toFixed(2)} ms)`, ours: q.byHash.p50, unit: 'ms' },
    { figure: `${at}: verify`, ours: r.verifySeconds, unit: 's' },
  ];
}

/** The charts: each figure against the chain length. */
function panelsOf(results: SizeResult[]): Panel[] {
  const series = (title: string, unit: string, value: (r: SizeResult) => number): Panel => ({ title, unit, points: results.map((r) => ({ blocks: r.blocks, value: value(r) })) });
  return [
    series('generate', 'logs/s', (r) => r.generateLogsPerSecond),
    series('store file per log', 'B', (r) => r.bytesPerLog),
    series('serve resident memory', 'MiB', (r) => r.serveRssMiB),
    series('serve own memory (RssAnon)', 'MiB', (r) => r.serveAnonMiB),
    series('one address, whole chain, p50', 'ms', (r) => r.query.address.p50),
    series('address + topic0, whole chain, p50', 'ms', (r) => r.query.addressTopic.p50),
    series('absent address, whole chain', 'blocks/s', (r) => r.blocks / (r.query.sparse.p50 / 1000)),
    series(`last ${RECENT_BLOCKS} blocks, one contract, p50`, 'ms', (r) => r.query.recent.p50),
    series('head block by hash, p50', 'ms', (r) => r.query.byHash.p50),
    series('verify', 's', (r) => r.verifySeconds),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, density: { type: 'string' }, dir: { type: 'string' }, reps: { type: 'string' } } });
  const sizes = values.sizes === undefined ? DEFAULT_SIZES : values.sizes.split(',').map(Number);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 1)) throw new Error(`--sizes: positive block counts, comma-separated, not ${values.sizes}`);
  sizes.sort((a, b) => a - b);
  const dir = values.dir ?? 'data/scale';
  const reps = Number(values.reps ?? DEFAULT_REPS);
  // The density of the default run's largest store, so a run of fewer sizes measures the same chain.
  const fitting = fittingDensity(dir, Math.max(sizes[sizes.length - 1]!, DEFAULT_SIZES[DEFAULT_SIZES.length - 1]!));
  const density = values.density === undefined ? fitting.density : Number(values.density);
  if (!(density > 0)) throw new Error(`--density: a positive number, not ${values.density}`);
  console.log(
    `scale benchmark: sizes ${sizes.join(', ')} blocks at density ${density} ` +
      `(${(fitting.freeBytes / 2 ** 30).toFixed(0)} GiB free: ${DEFAULT_SIZES[DEFAULT_SIZES.length - 1]} blocks take about ` +
      `${((DEFAULT_SIZES[DEFAULT_SIZES.length - 1]! * density * BYTES_PER_BLOCK_AT_DENSITY_1) / 2 ** 30).toFixed(1)} GiB); store in ${dir}`,
  );
  rmSync(dir, { recursive: true, force: true });
  const results: SizeResult[] = [];
  for (const blocks of sizes) {
    const started = Date.now();
    results.push(await measureSize(dir, blocks, density, reps, results.at(-1)?.logs ?? 0));
    console.log(`${table(rowsOf(results.at(-1)!))}\n(${blocks} blocks: ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const rows = results.flatMap(rowsOf);
  const md = `Machine: ${machine()}\n\nDensity ${density}, seed "${SEED}"\n\n${table(rows)}\n`;
  const out = 'native-free-bench/results';
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'scale.json'), JSON.stringify({ date: new Date().toISOString(), machine: machine(), density, seed: SEED, results }, null, 2) + '\n');
  writeFileSync(join(out, 'scale.md'), md);
  writeFileSync(join(out, 'scale.svg'), panelsSvg(panelsOf(results)));
  console.log(`${md}\nresults in ${out}/scale.{json,md,svg}`);
}

await main();
