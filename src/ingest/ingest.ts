/**
 * Ingest from an upstream node: opens the store, checks it belongs to the node's chain, and either
 * copies up to a block (resuming after the last committed block, whose hash must still be the
 * node's) or follows the node's head through reorganisations until stopped.
 */
import { readFileSync } from 'node:fs';
import type { ChainKind } from '../chain/chainKind.js';
import { bytesEqual } from '../chain/hex.js';
import type { ChainMeta, StorageWrite } from '../chain/types.js';
import {
  INGEST_BLOCKS_PER_REQUEST,
  INGEST_COMMIT_BLOCKS,
  INGEST_COMMIT_INTERVAL_MS,
  INGEST_REQUESTS_IN_FLIGHT,
} from '../config.js';
import type { Logger } from '../logger.js';
import { StoreReader } from '../store/reader.js';
import { closeStore, openStore, type Store } from '../store/schema.js';
import { StoreWriter } from '../store/writer.js';
import { copyBlocks, type IngestContext, type IngestTuning } from './copy.js';
import { IngestConflictError, NodeDataError } from './errors.js';
import { Follower } from './follower.js';
import { genesisStorage } from './genesis.js';
import { Progress } from './progress.js';
import { RpcClient, type RpcClientOptions } from './rpcClient.js';
import { NodeSource, type StorageMode } from './source.js';

/** What to ingest, from where, into where, and how. */
export interface IngestOptions {
  /** The node's JSON-RPC URL. */
  rpc: string;
  /** Store directory (created if absent). */
  dataDir: string;
  /** First block of an empty store (default 0); a non-empty store must start there. */
  from?: number;
  /** Last block to copy (default: the node's head when ingest starts); not with `follow`. */
  to?: number;
  /** The chain's kind; by default detected from its blocks (docs/api.md). */
  chain?: ChainKind;
  /** Follow the head (reorganisations included) until the signal aborts. */
  follow?: boolean;
  storage?: StorageMode;
  /** A geth-style genesis.json whose alloc is block 0's storage (block 0 cannot be traced). */
  genesis?: string;
  tuning?: Partial<IngestTuning>;
  /** Head poll interval of follow mode. */
  pollMs?: number;
  /** Client settings (timeouts, retries); the stop signal is added. */
  rpcOptions?: Omit<RpcClientOptions, 'signal'>;
  /** Prints a progress bar (terminal) or plain progress lines (otherwise) on stderr. */
  progress?: boolean;
  progressIntervalSeconds?: number;
  /** Stops the run: the blocks fetched so far are committed, then runIngest returns. */
  signal?: AbortSignal;
  logger: Logger;
}

/** What a run did. */
export interface IngestResult {
  blocks: number;
  txs: number;
  logs: number;
  seconds: number;
  /** The stored head at the end. */
  head: number;
  requests: number;
  retries: number;
  /** Whether receipts came per block (false: the node lacks eth_getBlockReceipts). */
  receiptsByBlock: boolean;
  /** The chain's kind as recorded at the end (undefined: nothing told it from Ethereum, nor was it given). */
  chainKind: ChainKind | undefined;
}

/** The storage of `path`, a genesis.json; a file that cannot be read or parsed is an IngestConflictError naming it. */
function readGenesis(path: string): StorageWrite[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new IngestConflictError('genesis', `cannot read --genesis ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new IngestConflictError('genesis', `--genesis ${path} is not JSON: ${(error as Error).message}`);
  }
  return genesisStorage(json, path);
}

/** Checks that the stored head is the node's block at that height (copy mode resumes only on the same chain). */
async function checkStoredHead(ctx: IngestContext, head: number): Promise<void> {
  const [ref] = await ctx.source.refs(head, head);
  if (!ref || !bytesEqual(ref.hash, ctx.reader.header(head)!.hash)) {
    throw new IngestConflictError(
      'head-mismatch',
      `the stored head, block ${head}, is not the node's block ${head} ` +
        '(a reorganisation, or another chain): run with --follow to reconcile',
    );
  }
}

/** Runs ingest per `options` and returns what it did; resolves after a stop once the fetched blocks are committed. */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  const signal = options.signal ?? new AbortController().signal;
  const started = performance.now();
  const store = openStore(options.dataDir);
  try {
    return await ingestInto(store, options, signal, started);
  } finally {
    await closeStore(store);
  }
}

/** The node's client and source per `options`, stopped by `signal`. */
function nodeSource(options: IngestOptions, signal: AbortSignal): { client: RpcClient; source: NodeSource } {
  const client = new RpcClient(options.rpc, {
    ...options.rpcOptions,
    maxInFlight: options.tuning?.requestsInFlight ?? INGEST_REQUESTS_IN_FLIGHT,
    signal,
    onRetry: (attempt, error) => options.logger.warn(`retry ${attempt} after: ${error.message}`),
  });
  const genesis = options.genesis === undefined ? [] : readGenesis(options.genesis);
  const source = new NodeSource(client, options.storage ?? 'prestate', genesis, () =>
    options.logger.warn(
      'the node does not serve eth_getBlockReceipts: receipts are read with one eth_getTransactionReceipt per ' +
        'transaction instead (the same data, more requests)',
    ),
  );
  return { client, source };
}

/** The context the copy and the follower share: `store`'s reader and writer, the source, the tuning. */
function ingestContext(store: Store, source: NodeSource, options: IngestOptions, signal: AbortSignal): IngestContext {
  const reader = new StoreReader(store);
  return {
    source,
    writer: new StoreWriter(store),
    reader,
    chainId: 0n,
    chainKind: reader.chainKind() ?? options.chain,
    chainKindGiven: options.chain !== undefined,
    tuning: {
      blocksPerRequest: INGEST_BLOCKS_PER_REQUEST,
      requestsInFlight: INGEST_REQUESTS_IN_FLIGHT,
      commitBlocks: INGEST_COMMIT_BLOCKS,
      commitIntervalMs: INGEST_COMMIT_INTERVAL_MS,
      ...options.tuning,
    },
    signal,
    counts: { blocks: 0, txs: 0, logs: 0 },
  };
}

/**
 * Checks that the store (its meta `meta`) and the node agree with each other and with `options`:
 * the chain id, the chain's kind, the first block, and traces when storage is copied. An
 * IngestConflictError says which does not.
 */
async function checkStoreAndNode(
  ctx: IngestContext,
  meta: ChainMeta | undefined,
  options: IngestOptions,
): Promise<void> {
  const { dataDir } = options;
  if (meta && meta.chainId !== ctx.chainId) {
    throw new IngestConflictError(
      'chain-id',
      `the store at ${dataDir} holds chain ${meta.chainId}, the node serves chain ${ctx.chainId}`,
    );
  }
  const recorded = ctx.reader.chainKind();
  if (options.chain !== undefined && recorded !== undefined && recorded !== options.chain) {
    const message = `the store at ${dataDir} holds an ${recorded} chain, not ${options.chain}`;
    throw new IngestConflictError('chain-kind', message);
  }
  if (meta && options.from !== undefined && options.from !== meta.earliest) {
    throw new IngestConflictError(
      'start',
      `the store at ${dataDir} starts at block ${meta.earliest}, not ${options.from}: ` +
        'resume without --from, or use another directory',
    );
  }
  if (ctx.source.storage === 'prestate' && !(await ctx.source.tracesBlocks())) {
    throw new IngestConflictError(
      'no-traces',
      'the node does not serve debug_traceBlockByNumber, which storage history (eth_getStorageAt) is copied with: ' +
        'run with --storage none to copy blocks, transactions, receipts and logs without it',
    );
  }
}

/** Says whether block 0's storage (the genesis alloc) is stored, when this run copies block 0 with storage. */
function reportGenesis(ctx: IngestContext, meta: ChainMeta | undefined, options: IngestOptions): void {
  if (meta || (options.from ?? 0) !== 0 || ctx.source.storage !== 'prestate') return;
  if (options.genesis === undefined) {
    options.logger.warn(
      'block 0: its storage (the genesis alloc) is not copied, as no node can trace block 0: ' +
        'pass --genesis genesis.json to store it',
    );
  } else options.logger.info(`block 0: ${ctx.source.genesis.length} storage words from ${options.genesis}`);
}

/** Follows the node's head (reorganisations included) until the signal aborts. */
async function followHead(ctx: IngestContext, options: IngestOptions): Promise<void> {
  const follower = new Follower(ctx, {
    from: options.from ?? 0,
    pollMs: options.pollMs,
    logger: options.logger,
    progress: options.progress === true,
    progressIntervalSeconds: options.progressIntervalSeconds,
  });
  await follower.run();
}

/** Copies up to --to (or the node's head), after the stored head once it is checked to be the node's. */
async function copyUpTo(ctx: IngestContext, meta: ChainMeta | undefined, options: IngestOptions): Promise<void> {
  const nodeHead = await ctx.source.headNumber();
  const to = options.to ?? nodeHead;
  if (to > nodeHead) throw new NodeDataError('missing-block', `the node's head is block ${nodeHead}, below --to ${to}`);
  if (meta) await checkStoredHead(ctx, meta.head);
  const from = meta ? meta.head + 1 : (options.from ?? 0);
  const progress = new Progress(Math.max(0, to - from + 1), {
    enabled: options.progress === true,
    label: 'ingest',
    intervalSeconds: options.progressIntervalSeconds,
  });
  if (from <= to) await copyBlocks(ctx, from, to, progress);
  progress.finish();
}

/** Checks the store against the node, then copies or follows; returns what the run did, a stop included. */
async function ingestInto(
  store: Store,
  options: IngestOptions,
  signal: AbortSignal,
  started: number,
): Promise<IngestResult> {
  const { client, source } = nodeSource(options, signal);
  const ctx = ingestContext(store, source, options, signal);
  const { reader } = ctx;
  try {
    ctx.chainId = await source.chainId();
    const meta = reader.meta();
    await checkStoreAndNode(ctx, meta, options);
    reportGenesis(ctx, meta, options);
    if (options.follow) await followHead(ctx, options);
    else await copyUpTo(ctx, meta, options);
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  ctx.writer.saveMergeFilters();
  return {
    ...ctx.counts,
    seconds: (performance.now() - started) / 1000,
    head: reader.meta()?.head ?? -1,
    requests: client.stats.requests,
    retries: client.stats.retries,
    receiptsByBlock: source.receiptsByBlock,
    chainKind: reader.chainKind(),
  };
}
