/**
 * The bulk copy loop: fetches block ranges ahead of the writer with bounded concurrency, appends
 * them in order with one StoreWriter.append (one write transaction) per commit batch, carrying the
 * node's safe/finalized markers. On a stop it commits the blocks it already holds, then returns.
 */
import { type ChainKind, detectChainKind } from '../chain/chainKind.js';
import type { BlockBundle } from '../chain/types.js';
import type { StoreReader } from '../store/reader.js';
import type { StoreWriter } from '../store/writer.js';
import { IngestConflictError } from './errors.js';
import type { Progress, ProgressCounts } from './progress.js';
import type { NodeMarkers, NodeSource } from './source.js';

/** Batch sizes and concurrency of ingest (defaults in src/config.ts). */
export interface IngestTuning {
  blocksPerRequest: number;
  requestsInFlight: number;
  commitBlocks: number;
  commitIntervalMs: number;
}

/** What the copy and follow loops share: the node, the store, the settings, the stop signal and the running totals. */
export interface IngestContext {
  source: NodeSource;
  writer: StoreWriter;
  reader: StoreReader;
  chainId: bigint;
  /** The chain's kind as recorded, given (`--chain`) or detected so far; undefined while nothing tells. */
  chainKind: ChainKind | undefined;
  /** Whether `--chain` gave the kind (blocks of another kind are then refused). */
  chainKindGiven: boolean;
  tuning: IngestTuning;
  signal: AbortSignal;
  /** Totals over the whole run, updated at every commit. */
  counts: ProgressCounts;
}

/**
 * The kind to record with a batch of `blocks`: the given or recorded kind on the store's first
 * batch, the kind the blocks show once they show one other than the recorded Ethereum (undefined:
 * nothing to record). Blocks of another kind than a given or non-Ethereum one are refused.
 */
export function batchChainKind(
  ctx: IngestContext,
  blocks: readonly BlockBundle[],
  first: boolean,
): ChainKind | undefined {
  const seen = detectChainKind(blocks);
  if (seen === undefined || seen === ctx.chainKind) return first ? ctx.chainKind : undefined;
  if (ctx.chainKind !== undefined && (ctx.chainKindGiven || ctx.chainKind !== 'ethereum')) {
    const from = blocks[0]!.header.number;
    throw new IngestConflictError(
      'chain-kind',
      `blocks ${from}..${blocks.at(-1)!.header.number} are of an ${seen} chain, the store's is ${ctx.chainKind}`,
    );
  }
  ctx.chainKind = seen;
  return seen;
}

/** The node's markers as the store may hold them after a commit ending at `head` (never above it). */
export function markersAt(markers: NodeMarkers, head: number): { safe?: number; finalized?: number } {
  return {
    safe: markers.safe === undefined ? undefined : Math.min(markers.safe, head),
    finalized: markers.finalized === undefined ? undefined : Math.min(markers.finalized, head),
  };
}

/** The node's current markers, or none once the run is stopping (the client's requests are aborted then). */
export async function currentMarkers(ctx: IngestContext): Promise<NodeMarkers> {
  try {
    return await ctx.source.markers();
  } catch (error) {
    if (ctx.signal.aborted) return {};
    throw error;
  }
}

/** Adds committed blocks to a counter. */
export function countBlocks(counts: ProgressCounts, blocks: BlockBundle[]): void {
  for (const b of blocks) {
    counts.blocks++;
    counts.txs += b.transactions.length;
    counts.logs += b.logs.length;
  }
}

/** Fetches blocks [from, to] as concurrent requests of blocksPerRequest blocks, in order. */
export async function fetchBlocks(ctx: IngestContext, from: number, to: number): Promise<BlockBundle[]> {
  const chunks: Promise<BlockBundle[]>[] = [];
  for (let a = from; a <= to; a += ctx.tuning.blocksPerRequest) {
    chunks.push(ctx.source.bundles(a, Math.min(to, a + ctx.tuning.blocksPerRequest - 1)));
  }
  return (await Promise.all(chunks)).flat();
}

/**
 * Copies blocks [from, to] into the store and returns how many it committed (fewer after a stop).
 * The first block must extend the stored head: otherwise the writer's ChainContinuityError
 * surfaces (the node reorganised), after the blocks before it were committed.
 */
export async function copyBlocks(ctx: IngestContext, from: number, to: number, progress?: Progress): Promise<number> {
  const { tuning, signal } = ctx;
  const window: Promise<BlockBundle[]>[] = [];
  let next = from;
  const fill = () => {
    while (window.length < tuning.requestsInFlight * 2 && next <= to && !signal.aborted) {
      const end = Math.min(to, next + tuning.blocksPerRequest - 1);
      const chunk = ctx.source.bundles(next, end);
      chunk.catch(() => undefined);
      window.push(chunk);
      next = end + 1;
    }
  };
  const copied: ProgressCounts = { blocks: 0, txs: 0, logs: 0 };
  let buffer: BlockBundle[] = [];
  let oldest = 0;
  const commit = async () => {
    const blocks = buffer;
    buffer = [];
    const head = blocks[blocks.length - 1]!.header.number;
    const markers = await currentMarkers(ctx);
    const chainKind = batchChainKind(ctx, blocks, ctx.reader.meta() === undefined);
    ctx.writer.append({ blocks, chainId: ctx.chainId, chainKind, ...markersAt(markers, head) });
    countBlocks(copied, blocks);
    countBlocks(ctx.counts, blocks);
    progress?.update(copied);
  };
  fill();
  let failure: unknown;
  while (window.length > 0) {
    let blocks: BlockBundle[];
    try {
      blocks = await window.shift()!;
    } catch (error) {
      if (!signal.aborted) failure = error;
      break;
    }
    if (buffer.length === 0) oldest = performance.now();
    for (const b of blocks) buffer.push(b);
    fill();
    const due =
      buffer.length >= tuning.commitBlocks ||
      performance.now() - oldest >= tuning.commitIntervalMs ||
      window.length === 0 ||
      signal.aborted;
    if (due) await commit();
    if (signal.aborted) break;
  }
  if (buffer.length > 0) await commit();
  if (failure !== undefined) throw failure;
  return copied.blocks;
}
