/**
 * `ethlogd export logs|blocks|transactions|receipts`: writes a range of a store to Parquet files in
 * cryo's layout and schemas (docs/export.md), through EthLogStore.export; resumable, with a
 * progress line on stderr.
 */
import { availableParallelism } from 'node:os';
import type { EthLogStore } from '../api/store.js';
import type { LogFilter } from '../api/types.js';
import { DEFAULT_CHUNK_BLOCKS } from '../export/chunks.js';
import { COMPRESSIONS, type CompressionName, isCompression } from '../export/compression.js';
import { type ExportSummary, prestartPool, stopPrestartedPool } from '../export/exporter.js';
import { OutDirError } from '../export/files.js';
import { ExportOptionsError } from '../export/optionsRecord.js';
import { EXPORT_KINDS, isExportKind } from '../export/schemas.js';
import { Progress } from '../ingest/progress.js';
import { RpcError } from '../rpc/errors.js';
import { existingStore, integer, parse, required, UsageError } from './args.js';
import { LOG_FILTER_OPTIONS, logFilter, logFilterUsage } from './logFilterArgs.js';

/** Most worker threads `--threads` accepts: as `query`, far beyond any core count this runs on. */
const MAX_THREADS = 256;

/**
 * Most blocks per file `--chunk-blocks` accepts: a chunk's columns are built in one worker's memory, and a million
 * mainnet blocks would not fit.
 */
const MAX_CHUNK_BLOCKS = 1_000_000;

/** Exit code after SIGINT: the shell's convention, 128 + the signal's number (2). */
const EXIT_INTERRUPTED = 130;

/** Usage text of `export`. */
export const EXPORT_USAGE =
  `Usage:
  ethlogd export logs|blocks|transactions|receipts --data DIR --out DIR [--from B] [--to B]
                 [--chunk-blocks N] [--compression zstd|snappy|lz4|none] [--hex]
                 [--overwrite] [--threads N] [--progress]
  ethlogd export logs ... (--filter JSON | [--address A]... [--topic0 T] .. [--topic3 T])

Writes a range of the store in DIR (read-only: a server or a writer may keep running) to Parquet
files in --out, one per chunk of --chunk-blocks blocks, named as cryo names them:
  {network}__{datatype}__{first:08}_to_{last:08}.parquet   (last block inclusive)
network from the chain id as cryo names it (1: ethereum, else e.g. network_31337). The columns are
cryo's, with its types (u32/u64 numbers, binary hashes, 256-bit values as _binary, _string and _f64
columns), then the store's columns cryo lacks; docs/export.md lists every column.

Resumable: each file is written under a hidden temporary name and renamed once complete, so a
rerun skips the files that exist (and removes temporaries a killed run left); Ctrl-C finishes the
chunks in flight and stops (exit ${EXIT_INTERRUPTED}). A chunk at the head shorter than --chunk-blocks is
replaced by the longer one when a later run exports further. The options (filter, --hex,
--compression, --chunk-blocks) are recorded beside the files (.ethlogd-export-{network}__{datatype}.json):
files of the datatype written with other options refuse the export (exit 2, naming them), or
with --overwrite are replaced.

  logs: the logs matching the filter, as eth_getLogs answers them (same filter options as query logs):
${logFilterUsage('earliest', 'latest')}
  blocks, transactions, receipts: every one in --from..--to.

  --data DIR           store directory                                                 required
  --out DIR            output directory (created when absent)                          required
  --chunk-blocks N     blocks per file                                                 default ${DEFAULT_CHUNK_BLOCKS}
  --compression C      ${COMPRESSIONS.join(', ')} (Parquet codecs ZSTD, SNAPPY, LZ4_RAW, UNCOMPRESSED)  ` +
  `default ${COMPRESSIONS[0]}
  --hex                byte columns as 0x-hex text instead of binary
  --overwrite          replace files of the datatype in --out written with other options
  --threads N          worker threads, each building and encoding one chunk          ` +
  `default ${availableParallelism()} (the cores)
  --progress           a progress line on stderr even when it is not a terminal (it is shown on one)
  -h, --help           this text

Prints one summary line on stdout: files written and skipped, rows, bytes, seconds.
Exit codes: 0 done; 1 an error, one line on stderr; 2 a usage error; ${EXIT_INTERRUPTED} interrupted (SIGINT).`;

/** The range and filter of the export, from the filter options. */
function exportFilter(kind: string, values: Record<string, unknown>): LogFilter {
  if (kind !== 'logs') {
    const logOnly = ['filter', 'address', 'topic0', 'topic1', 'topic2', 'topic3'].find(
      (name) => values[name] !== undefined,
    );
    if (logOnly) throw new UsageError(`--${logOnly} filters logs, not ${kind}`);
  }
  const filter = logFilter(values);
  const { fromBlock, toBlock } = filter;
  if (typeof fromBlock === 'bigint' && typeof toBlock === 'bigint' && fromBlock > toBlock)
    throw new UsageError(`--from ${fromBlock} is after --to ${toBlock}`);
  return filter;
}

/** Parses `export`'s arguments after the datatype. */
function parseExportArgs(argv: string[]): Record<string, string | boolean | undefined> {
  return parse(argv, {
    data: { type: 'string' },
    out: { type: 'string' },
    ...LOG_FILTER_OPTIONS,
    'chunk-blocks': { type: 'string' },
    compression: { type: 'string' },
    hex: { type: 'boolean' },
    overwrite: { type: 'boolean' },
    threads: { type: 'string' },
    progress: { type: 'boolean' },
  }).values;
}

/** What the options ask for, checked. */
interface ExportSettings {
  dir: string;
  out: string;
  filter: LogFilter;
  chunkBlocks: number;
  compression: CompressionName;
  threads: number;
}

/** The export's settings from the parsed options of datatype `kind`. */
function exportSettings(kind: string, values: Record<string, string | boolean | undefined>): ExportSettings {
  const dir = existingStore(values.data);
  const out = required(values.out, 'out');
  const filter = exportFilter(kind, values);
  const chunkBlocks = integer(values['chunk-blocks'], 'chunk-blocks', DEFAULT_CHUNK_BLOCKS, 1, MAX_CHUNK_BLOCKS);
  const compression = typeof values.compression === 'string' ? values.compression : COMPRESSIONS[0];
  if (!isCompression(compression)) throw new UsageError(`--compression must be one of ${COMPRESSIONS.join(', ')}`);
  const threads = integer(values.threads, 'threads', availableParallelism(), 1, MAX_THREADS);
  return { dir, out, filter, chunkBlocks, compression, threads };
}

/**
 * Starts the pool's threads, which load while this thread loads the store's modules and plans the
 * export; a range given in numbers says how many chunks there are, and no more threads start than that.
 */
function prestartThreads({ filter, chunkBlocks, threads }: ExportSettings): void {
  const { fromBlock, toBlock } = filter;
  const chunks =
    typeof fromBlock === 'bigint' && typeof toBlock === 'bigint'
      ? Math.ceil(Number(toBlock - fromBlock + 1n) / chunkBlocks)
      : threads;
  prestartPool(Math.max(1, Math.min(threads, chunks)));
}

/** The summary line of a finished export. */
function summaryLine(kind: string, summary: ExportSummary, seconds: number, out: string): string {
  const removed = summary.removed.length > 0 ? `, ${summary.removed.length} removed` : '';
  const rate = Math.round(summary.rows / Math.max(seconds, 1e-9));
  return (
    `exported ${kind}: ${summary.written.length} files written, ${summary.skipped.length} skipped${removed}, ` +
    `${summary.rows} rows, ${summary.bytes} bytes in ${seconds.toFixed(1)} s (${rate} rows/s) into ${out}`
  );
}

/** The usage error an export error is on the command line (a bad --out, options that differ, a bad range), else it. */
function commandError(error: unknown): unknown {
  if (error instanceof OutDirError) return new UsageError(`--out: ${error.message}`);
  if (error instanceof ExportOptionsError) return new UsageError(`--out: ${error.message}`);
  if (error instanceof RpcError && error.code === -32602) return new UsageError(error.message);
  return error;
}

/** Runs `export`. */
export async function exportCommand(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind === undefined || kind === '--help' || kind === '-h') {
    console.log(EXPORT_USAGE);
    return kind === undefined ? 2 : 0;
  }
  if (!isExportKind(kind)) {
    throw new UsageError(
      kind.startsWith('-')
        ? `say what to export: ${EXPORT_KINDS.join(', ')}`
        : `unknown datatype "${kind}" (${EXPORT_KINDS.join(', ')})`,
    );
  }
  const values = parseExportArgs(rest);
  if (values.help) {
    console.log(EXPORT_USAGE);
    return 0;
  }
  const settings = exportSettings(kind, values);
  const { out, filter, chunkBlocks, compression, threads } = settings;
  // The library is imported here and not above so that the pool's threads load alongside it.
  prestartThreads(settings);
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once('SIGINT', onInterrupt);
  let progress: Progress | undefined;
  let store: EthLogStore | undefined;
  try {
    store = (await import('../api/store.js')).EthLogStore.open(settings.dir, { threads });
    const started = performance.now();
    const showProgress = values.progress === true || process.stderr.isTTY === true;
    const summary = await store.export(kind, {
      out,
      filter,
      chunkBlocks,
      compression,
      hex: values.hex === true,
      overwrite: values.overwrite === true,
      threads,
      signal: controller.signal,
      onProgress: (p) => {
        progress ??= new Progress(p.totalBlocks, { enabled: showProgress, label: `export ${kind}`, rowUnit: 'rows' });
        progress.update({ blocks: p.blocks, txs: 0, logs: p.rows });
      },
    });
    progress?.finish();
    console.log(summaryLine(kind, summary, (performance.now() - started) / 1000, out));
    if (summary.interrupted) {
      console.error('ethlogd export: interrupted; run the same command again to finish (complete files are kept)');
      return EXIT_INTERRUPTED;
    }
    return 0;
  } catch (error) {
    progress?.finish();
    throw commandError(error);
  } finally {
    await stopPrestartedPool();
    process.off('SIGINT', onInterrupt);
    await store?.close();
  }
}
