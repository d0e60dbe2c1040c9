/**
 * `ethlogd ingest`: copies a node's chain into a store, or follows its head, until done or stopped
 * (SIGINT/SIGTERM stop cleanly after the current batch; a second signal kills).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN_KINDS, type ChainKind } from '../chain/chainKind.js';
import {
  FOLLOW_POLL_MS,
  INGEST_BLOCKS_PER_REQUEST,
  INGEST_COMMIT_BLOCKS,
  INGEST_REQUESTS_IN_FLIGHT,
} from '../config.js';
import { type IngestOptions, type IngestResult, runIngest } from '../ingest/ingest.js';
import type { StorageMode } from '../ingest/source.js';
import { createLogger, isLogLevel, LOG_LEVELS, type Logger } from '../logger.js';
import { STORE_DATA_FILE } from '../store/dataFile.js';
import { StoreReader } from '../store/reader.js';
import { closeStore, openStore } from '../store/schema.js';
import { integer, parse, positive, required, UsageError } from './args.js';

/** Usage text of `ingest`. */
export const INGEST_USAGE =
  `Usage: ethlogd ingest --rpc URL --data DIR [--from N] [--to N | --follow] ` +
  `[--storage prestate|none]
                      [--genesis genesis.json] [--chain ethereum|op|arbitrum]

Copies blocks with full transactions, receipts' logs, the chain id, the safe/finalized markers and
storage changes from an Ethereum, OP-stack or Arbitrum node's JSON-RPC into the store in DIR (other
chains' transaction types and fields are kept as the node gives them). A stopped or killed ingest
continues from the last committed block; a first ingest that fails before committing a block
removes the store it created (and DIR, when it created DIR). With --follow it then polls the node's head and follows
reorganisations (reorganised-out blocks move to orphans). SIGINT/SIGTERM stop it cleanly after the
current batch.

Options:
  --rpc URL                 the node's JSON-RPC endpoint (HTTP)          required
  --data DIR                store directory (created if absent)          required
  --from N                  first block of an empty store                default 0
  --to N                    last block to copy, then exit                default the node's head
  --follow                  after catching up, follow the head until stopped (not with --to)
  --storage prestate|none   storage history from debug_traceBlockByNumber
                            (prestateTracer, diffMode), or none          default prestate
  --genesis FILE            the chain's genesis.json: block 0's storage is its alloc
                            (block 0 cannot be traced; without it, absent)
  --chain KIND              ethereum, op or arbitrum, recorded in the store;
                            blocks of another kind are then refused       default detected
  --poll-ms MS              head poll interval with --follow             default ${FOLLOW_POLL_MS}
  --blocks-per-request N    blocks per batch request                     default ${INGEST_BLOCKS_PER_REQUEST}
  --in-flight N             batch requests in flight                     default ${INGEST_REQUESTS_IN_FLIGHT}
  --commit-blocks N         blocks per write transaction                 default ${INGEST_COMMIT_BLOCKS}
  --progress-seconds S      seconds between progress lines when stderr
                            is not a terminal                            default 5
  --log-level LEVEL         debug|info|warn|error|silent (JSON lines on
                            stderr; or ETHLOGD_LOG_LEVEL)                default info
  -h, --help                this text`;

function chainKind(value: string | boolean | undefined): ChainKind | undefined {
  if (value === undefined) return undefined;
  if ((CHAIN_KINDS as readonly unknown[]).includes(value)) return value as ChainKind;
  throw new UsageError(`--chain must be one of ${CHAIN_KINDS.join(', ')}`);
}

function storageMode(value: string | boolean | undefined): StorageMode {
  if (value === undefined) return 'prestate';
  if (value === 'prestate' || value === 'none') return value;
  throw new UsageError('--storage must be prestate or none');
}

/** Whether the store in `dir` holds no block (true when there is none at all). */
async function storeIsEmpty(dir: string): Promise<boolean> {
  if (!existsSync(join(dir, STORE_DATA_FILE))) return true;
  const store = openStore(dir, { readOnly: true });
  try {
    return new StoreReader(store).head() === undefined;
  } finally {
    await closeStore(store);
  }
}

/**
 * Removes what a failed first ingest created in `dir`: the directory when it did not exist (`before` undefined), else
 * the new files.
 */
function removeCreated(dir: string, before: Set<string> | undefined, logger: Logger): void {
  if (before === undefined) rmSync(dir, { recursive: true, force: true });
  else
    for (const name of readdirSync(dir))
      if (!before.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
  logger.info(`removed the empty store the failed ingest created in ${dir}`);
}

/** Parses `ingest`'s arguments. */
function parseIngestArgs(argv: string[]) {
  return parse(argv, {
    rpc: { type: 'string' },
    data: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    follow: { type: 'boolean' },
    storage: { type: 'string' },
    genesis: { type: 'string' },
    chain: { type: 'string' },
    'poll-ms': { type: 'string' },
    'blocks-per-request': { type: 'string' },
    'in-flight': { type: 'string' },
    'commit-blocks': { type: 'string' },
    'progress-seconds': { type: 'string' },
    'log-level': { type: 'string' },
  }).values;
}

type IngestArgs = ReturnType<typeof parseIngestArgs>;

/** The run's options from the parsed arguments (all but the logger, the progress and the stop signal). */
function ingestOptions(values: IngestArgs): Omit<IngestOptions, 'logger'> & { dataDir: string } {
  const rpc = required(values.rpc, 'rpc');
  const dataDir = required(values.data, 'data');
  if (values.follow && values.to !== undefined) throw new UsageError('--to and --follow exclude each other');
  const from = values.from === undefined ? undefined : integer(values.from, 'from', 0);
  const to = values.to === undefined ? undefined : integer(values.to, 'to', 0);
  if (from !== undefined && to !== undefined && to < from) throw new UsageError('--to must not be below --from');
  return {
    rpc,
    dataDir,
    from,
    to,
    follow: values.follow === true,
    storage: storageMode(values.storage),
    genesis: values.genesis === undefined ? undefined : String(values.genesis),
    chain: chainKind(values.chain),
    pollMs: integer(values['poll-ms'], 'poll-ms', FOLLOW_POLL_MS, 1),
    tuning: {
      blocksPerRequest: integer(values['blocks-per-request'], 'blocks-per-request', INGEST_BLOCKS_PER_REQUEST, 1, 1000),
      requestsInFlight: integer(values['in-flight'], 'in-flight', INGEST_REQUESTS_IN_FLIGHT, 1, 256),
      commitBlocks: integer(values['commit-blocks'], 'commit-blocks', INGEST_COMMIT_BLOCKS, 1, 100_000),
    },
    progressIntervalSeconds: positive(values['progress-seconds'], 'progress-seconds', 5),
  };
}

/** The logger of --log-level (or ETHLOGD_LOG_LEVEL). */
function commandLogger(value: string | boolean | undefined): Logger {
  const level = value ?? process.env.ETHLOGD_LOG_LEVEL ?? 'info';
  if (typeof level !== 'string' || !isLogLevel(level)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return createLogger(level);
}

/**
 * Aborts `stop` on SIGINT, SIGTERM, or the IPC channel closing (run by a replica, serve
 * --follow-rpc: the channel closing means the replica died, and no writer is left behind it; the
 * channel alone keeps no run alive). Returns what removes the listeners.
 */
function stopOnSignals(stop: AbortController, logger: Logger): () => void {
  const onSignal = (signal: string) => {
    logger.info(`${signal}: stopping after the current batch`);
    stop.abort(new Error(`stopped by ${signal}`));
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  const onOrphaned = () => onSignal('the replica running it exited');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  process.channel?.unref();
  process.once('disconnect', onOrphaned);
  return () => {
    process.removeListener('SIGINT', onInt);
    process.removeListener('SIGTERM', onTerm);
    process.removeListener('disconnect', onOrphaned);
  };
}

/**
 * Runs the ingest. A first ingest that fails before committing a block removes what it made in
 * DIR, so no empty store is left for serve to serve (a failure after some blocks keeps them: it
 * resumes).
 */
async function ingestOrClean(options: IngestOptions & { dataDir: string }): Promise<IngestResult> {
  const { dataDir, logger } = options;
  const before = existsSync(dataDir) ? new Set(readdirSync(dataDir)) : undefined;
  const firstRun = !before?.has(STORE_DATA_FILE);
  try {
    return await runIngest(options);
  } catch (error) {
    if (firstRun && (await storeIsEmpty(dataDir))) removeCreated(dataDir, before, logger);
    throw error;
  }
}

/** The line a finished run prints. */
function summaryLine(r: IngestResult, dataDir: string): string {
  const rate = (n: number) => Math.round(n / Math.max(r.seconds, 1e-9));
  return (
    `ingested ${r.blocks} blocks, ${r.txs} transactions, ${r.logs} logs in ${r.seconds.toFixed(1)} s ` +
    `(${rate(r.blocks)} blocks/s, ${rate(r.logs)} logs/s; ${r.requests} requests, ${r.retries} retries` +
    `${r.receiptsByBlock ? '' : ', receipts per transaction'}); head ${r.head} in ${dataDir}` +
    `${r.chainKind === undefined ? '' : ` (${r.chainKind} chain)`}`
  );
}

/** Runs `ingest`. */
export async function ingestCommand(argv: string[]): Promise<number> {
  const values = parseIngestArgs(argv);
  if (values.help) {
    console.log(INGEST_USAGE);
    return 0;
  }
  const options = ingestOptions(values);
  const logger = commandLogger(values['log-level']);
  const stop = new AbortController();
  const removeListeners = stopOnSignals(stop, logger);
  try {
    const r = await ingestOrClean({ ...options, progress: true, signal: stop.signal, logger });
    console.log(summaryLine(r, options.dataDir));
    return 0;
  } finally {
    removeListeners();
  }
}
