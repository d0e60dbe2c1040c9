/**
 * The export's worker task measured in this one thread, in-process: every log of blocks 0–1,999 of
 * DATA in two 1,000-block chunks, four times, with zstd; the module's load time, the first chunk's
 * rows/s (a cold thread) and the last six chunks' (warm), and the process's CPU time (user +
 * system, so garbage collection's helper threads count too) per log of each, which a loaded machine
 * disturbs less than the rates. ROOT is the checkout whose build's
 * worker is loaded (default this one), so two builds compare on the same data in the same session:
 *
 *   node dist/native-free-bench/exportTask.js DATA [ROOT]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ExportTask } from '#src/export/task.js';

/** Chunks of the run: blocks 0–999 and 1,000–1,999, four times over. */
const CHUNKS = [0, 1000, 0, 1000, 0, 1000, 0, 1000];
/** Blocks per chunk, the export's default. */
const CHUNK_BLOCKS = 1000;

const [dataDir = 'data/bench-quick', root = '.'] = process.argv.slice(2);
const started = performance.now();
const worker = (await import(pathToFileURL(resolve(root, 'dist/src/export/worker.js')).href)) as {
  default: (task: ExportTask) => { rows: number };
};
const out = mkdtempSync(join(tmpdir(), 'export-task-'));
const loadMs = performance.now() - started;
const runs: { rows: number; ms: number; cpuUs: number }[] = [];
for (const from of CHUNKS) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const result = worker.default({
    dataDir: resolve(dataDir),
    kind: 'logs',
    from,
    to: from + CHUNK_BLOCKS - 1,
    addresses: [],
    topics: [],
    hex: false,
    compression: 'zstd',
    chainId: 1n,
    path: join(out, 'chunk.parquet'),
  });
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  runs.push({ rows: result.rows, ms, cpuUs: used.user + used.system });
}
rmSync(out, { recursive: true, force: true });
const sum = (list: typeof runs, key: 'rows' | 'ms' | 'cpuUs') => list.reduce((s, r) => s + r[key], 0);
const rate = (list: typeof runs) => Math.round(sum(list, 'rows') / (sum(list, 'ms') / 1000));
const cpuPerLog = (list: typeof runs) => (sum(list, 'cpuUs') / sum(list, 'rows')).toFixed(2);
const [cold, warm] = [runs.slice(0, 1), runs.slice(2)];
console.log(
  `${resolve(root)}: load ${loadMs.toFixed(0)} ms, first chunk ${rate(cold)} ` +
    `rows/s (${cpuPerLog(cold)} µs CPU a log), warm ${rate(warm)} rows/s (` +
    `${cpuPerLog(warm)} µs CPU a log) (${runs[0]!.rows + runs[1]!.rows} logs)`,
);
