/**
 * The export benchmark: every log of the dataset exported to Parquet by `ethlogd export logs`
 * (zstd, the default chunks and threads), against the JSONL query path (`ethlogd query logs` over
 * the same range, its output counted by this process) in the same run. Both are whole CLI runs,
 * process start included; logs/s and bytes per log of each output. The store's file is read once
 * before each, so both run from the page cache: this machine's memory reclaim evicts cold pages
 * between sections, and a scan that reads them back from the disk measures the disk, not the path.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EthLogStore } from '#src/api/store.js';
import { STORE_DATA_FILE } from '#src/store/dataFile.js';
import type { Row } from './report.js';

const CLI = 'dist/src/cli.js';

/** Runs `ethlogd args...`, counting its stdout's bytes; resolves with the seconds it took and the bytes. */
function timed(args: string[]): Promise<{ seconds: number; stdoutBytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdoutBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`ethlogd ${args.join(' ')} exited ${code}`));
      else resolve({ seconds: (performance.now() - started) / 1000, stdoutBytes });
    });
  });
}

/** Bytes read at a time when the store's file is brought into the page cache. */
const WARM_READ_BYTES = 8 << 20;

/** Reads the store's data file in `dataDir` once, so its pages are in the page cache. */
function warmPageCache(dataDir: string): void {
  const fd = openSync(join(dataDir, STORE_DATA_FILE), 'r');
  const buf = Buffer.allocUnsafe(WARM_READ_BYTES);
  try {
    while (readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

/** Measures the export of every log of `dataDir` against `query logs` of the same logs. */
export async function measureExport(dataDir: string): Promise<Row[]> {
  const store = EthLogStore.open(dataDir);
  const head = store.head()!;
  await store.close();
  const out = mkdtempSync(join(tmpdir(), 'ethlogd-bench-export-'));
  try {
    warmPageCache(dataDir);
    const exported = await timed([
      'export',
      'logs',
      '--data',
      dataDir,
      '--out',
      out,
      '--from',
      '0',
      '--to',
      String(head),
    ]);
    const parquetBytes = readdirSync(out).reduce((sum, name) => sum + statSync(join(out, name)).size, 0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const logs = Number(
      (await db.runAndReadAll(`SELECT count(*) FROM read_parquet('${join(out, '*.parquet')}')`)).getRows()[0]![0],
    );
    db.closeSync();
    warmPageCache(dataDir);
    const jsonl = await timed(['query', 'logs', '--data', dataDir, '--from', '0', '--to', String(head)]);
    const lines = `${logs} logs of blocks 0–${head}`;
    return [
      {
        figure:
          'export: every log to Parquet (zstd, 1,000-block files), ' +
          `${lines}, against query logs (JSONL) in the same run`,
        ours: logs / exported.seconds,
        unit: 'logs/s',
        baseline: logs / jsonl.seconds,
        baselineName: 'query logs, JSONL',
        target: { kind: 'min', value: 1_000_000, text: '≥ 1M logs/s' },
        note: `export ${exported.seconds.toFixed(2)} s, query ${jsonl.seconds.toFixed(2)} s, both whole CLI runs`,
      },
      {
        figure: 'export: bytes per log, Parquet (zstd) against JSONL',
        ours: parquetBytes / logs,
        unit: 'B/log',
        baseline: jsonl.stdoutBytes / logs,
        baselineName: 'query logs, JSONL',
      },
    ];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
