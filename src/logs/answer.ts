/**
 * What both eth_getLogs paths, inline and pooled, do with a range's matches: append those of the
 * pending or orphaned block it ends with, and answer the result-cap error with the range that fits;
 * and what they count.
 */

import { LogProtoWriter } from '../render/logProto.js';
import { renderBundleMatches } from './blockLogs.js';
import { ResultCapError } from './errors.js';
import { compileFilter, type FilterSpec, matchLog } from './filter.js';
import type { ResolvedRange } from './range.js';
import type { LogFormat } from './task.js';

/**
 * A query's matches in order, in chunks none of which is empty: comma-separated log JSON objects
 * (text, or its UTF-8 bytes) that the answer joins with commas, or protobuf Log messages.
 */
export type LogChunks = (string | Uint8Array)[];

/** eth_getLogs queries answered (not streams), by where they ran (read by the metrics). */
export interface QueryPaths {
  /** Answered inline, on the calling thread. */
  inline: number;
  /** Answered on the worker pool. */
  pool: number;
}

/** The work of the scans, inline and pooled, queries and streams together (read by the metrics). */
export interface ScanTotals {
  /** Blocks the scans covered. */
  blocks: number;
  /** Candidate blocks whose records were read. */
  candidates: number;
  /** Candidate blocks with at least one match (the others were bloom false positives). */
  matchedBlocks: number;
}

/** Where a thread that answers queries counts them: by path, and the scans' work. */
export interface ScanCounts {
  readonly paths: QueryPaths;
  readonly totals: ScanTotals;
}

/** Counts at zero, for a thread that answers queries inline. */
export function zeroScanCounts(): ScanCounts {
  return { paths: { inline: 0, pool: 0 }, totals: { blocks: 0, candidates: 0, matchedBlocks: 0 } };
}

/** Adds the counts of `from` to `into`. */
export function addScanCounts(into: ScanCounts, from: ScanCounts): void {
  into.paths.inline += from.paths.inline;
  into.paths.pool += from.paths.pool;
  into.totals.blocks += from.totals.blocks;
  into.totals.candidates += from.totals.candidates;
  into.totals.matchedBlocks += from.totals.matchedBlocks;
}

/** The matches of the pending or orphaned block a range ends with, in `format`, and how many there are. */
function renderExtra(
  range: ResolvedRange,
  spec: FilterSpec,
  format: LogFormat,
): { chunk?: string | Uint8Array; count: number } {
  const bundle = range.pending ?? range.orphan;
  if (!bundle) return { count: 0 };
  const kind = range.pending ? 'pending' : 'orphan';
  if (format !== 'proto') {
    const logs = renderBundleMatches(bundle, compileFilter(spec), kind);
    return logs.length > 0 ? { chunk: logs.join(','), count: logs.length } : { count: 0 };
  }
  const writer = new LogProtoWriter();
  const filter = compileFilter(spec);
  writer.writeBundle(bundle, (log) => matchLog(filter, log), kind);
  return writer.count > 0 ? { chunk: writer.take().bytes, count: writer.count } : { count: 0 };
}

/**
 * The answer of a range's `count` canonical matches in `chunks`, followed by the matches of the
 * pending or orphaned block it ends with; throws ResultCapError when they pass `maxResults`.
 */
export function withExtra(
  chunks: LogChunks,
  count: number,
  range: ResolvedRange,
  spec: FilterSpec,
  format: LogFormat,
  maxResults: number,
): LogChunks {
  const extra = renderExtra(range, spec, format);
  if (count + extra.count > maxResults) throw new ResultCapError(range.from, range.to, maxResults);
  if (extra.chunk !== undefined) chunks.push(extra.chunk);
  return chunks;
}

/**
 * The last block whose matches still fit under `maxResults`, given `before` matches ahead of the
 * pairs (block number, matches) of `blockCounts`; `fallback` when they all fit.
 */
export function lastFitting(
  blockCounts: ArrayLike<number>,
  before: number,
  maxResults: number,
  fallback: number,
): number {
  let running = before;
  for (let i = 0; i < blockCounts.length; i += 2) {
    running += blockCounts[i + 1]!;
    if (running > maxResults) return blockCounts[i]! - 1;
  }
  return fallback;
}
