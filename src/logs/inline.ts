/**
 * The inline path of eth_getLogs: a query whose work the planner estimates under its budget
 * (planner.ts) is scanned on the thread that received it, with the same candidate selection and
 * block scan as a pool worker, so both paths render byte-identical answers. The estimate grows in
 * three steps: the blocks and segments the range spans and the candidate blocks they select, each
 * checked before that work is done; then, block by block, the records scanned and the logs
 * rendered. Past the budget at any step the query goes to the pool, so the work an abandoned
 * inline attempt wastes is bounded by the budget itself.
 */

import { LogProtoWriter } from '../render/logProto.js';
import type { StoreReader } from '../store/reader.js';
import { segmentOf, segmentStart } from '../store/segments.js';
import { type LogChunks, lastFitting, type ScanCounts, withExtra } from './answer.js';
import { giveBack, keepSpare, lend, takeSpare } from './answerBuffers.js';
import { blockScanner, SCAN_REFUSED, type ScanReads } from './blockScan.js';
import { bloomCandidates, candidateBlocks, candidateQuery } from './candidates.js';
import { ResultCapError } from './errors.js';
import type { FilterSpec } from './filter.js';
import { JsonSink } from './jsonSink.js';
import { fitsInline, type QueryWork } from './planner.js';
import type { ResolvedRange } from './range.js';
import type { LogFormat } from './task.js';

/**
 * The JSON sink inline answers of this thread are rendered into, each into memory of its own taken
 * from the thread's spare answer buffers (answerBuffers.ts) and lent with the answer; an answer
 * abandoned for the pool leaves its memory to the next one.
 */
const sink = new JsonSink(false, 16 * 1024);

/**
 * Bytes a log takes in a logs record at the least, about (a mainnet block's: 64): a record's logs estimated from its
 * size.
 */
const RECORD_BYTES_PER_LOG = 64;

/** Bytes of a fresh answer buffer when the thread has no spare (it grows as the answer needs). */
const FRESH_ANSWER_BYTES = 64 * 1024;

/** A filter's block range and conditions, as the inline scan takes them. */
export interface InlineQuery {
  /** First block (inclusive); the range is empty when from > to. */
  from: number;
  to: number;
  /** Empty: any address. */
  addresses: Uint8Array[];
  /** Per position: null is a wildcard, otherwise the alternatives. */
  topics: (Uint8Array[] | null)[];
  /** The store's head when the caller read it in this snapshot (else it is read). */
  head?: number;
}

/** What an inline scan rendered. */
export interface InlineScan {
  /**
   * The matches in order: comma-separated JSON objects (UTF-8, in a lent answer buffer: answerBuffers.ts), or protobuf
   * Log messages.
   */
  chunk: Uint8Array;
  count: number;
  /** Pairs (block number, matches in it) for every block with matches, in order. */
  blockCounts: number[];
  /** The work done, as the planner counts it. */
  work: QueryWork;
}

/**
 * The blocks of [from, to] answered from per-block blooms (at or after `openStart`), and the complete segments spanned
 * before it.
 */
function rangeWork(from: number, to: number, openStart: number, filtered: boolean): QueryWork {
  const work: QueryWork = { bloomBlocks: 0, segments: 0, candidates: 0, recordBytes: 0, logs: 0 };
  if (from > to) return work;
  if (from < openStart) work.segments = segmentOf(Math.min(to, openStart - 1)) - segmentOf(from) + 1;
  // Without a condition every block is a candidate, known before reading anything.
  if (!filtered) work.candidates = to - from + 1;
  else if (to >= openStart) work.bloomBlocks = to - Math.max(from, openStart) + 1;
  return work;
}

/**
 * Scans `q` on this thread when its estimated work fits `budgetUs` microseconds, rendering in
 * `format`; undefined when it does not (the caller runs it on the pool). It stops once more than
 * `maxResults` logs matched (the caller answers the result-cap error).
 */
export function scanInline(
  reader: StoreReader,
  q: InlineQuery,
  format: Exclude<LogFormat, 'jsonl'>,
  maxResults: number,
  budgetUs: number,
): InlineScan | undefined {
  const head = q.head ?? reader.head() ?? -1;
  const selection = candidateQuery(reader.store, q.addresses, q.topics);
  const filtered = selection.bits.address !== null || selection.bits.topics.length > 0;
  // The open segment (the one the next block joins) has no bloom rows or address index yet.
  const openStart = segmentStart(segmentOf(head + 1));
  const work = rangeWork(q.from, q.to, openStart, filtered);
  if (!fitsInline(work, budgetUs)) return undefined;

  const blocks: number[] = [];
  const indexedEnd = Math.min(q.to, openStart - 1);
  for (let segment = segmentOf(q.from); q.from <= indexedEnd && segment <= segmentOf(indexedEnd); segment++) {
    for (const n of candidateBlocks(reader.store, segment, q.from, indexedEnd, selection)) blocks.push(n);
  }
  if (q.to >= openStart)
    for (const n of bloomCandidates(
      reader.store,
      Math.max(q.from, openStart),
      q.to,
      selection.bits,
      reader.rollbacks(),
    ))
      blocks.push(n);
  work.candidates = blocks.length;
  if (!fitsInline(work, budgetUs)) return undefined;

  const json = format === 'json' ? sink : undefined;
  json?.adopt(takeSpare() ?? new ArrayBuffer(FRESH_ANSWER_BYTES));
  const proto = json ? undefined : new LogProtoWriter();
  const out = json ?? proto!;
  // Without a condition every log of a record matches: a record too large for what is left of the
  // budget is refused before it is rendered.
  const reads: ScanReads = { recordBytes: 0 };
  if (!filtered)
    reads.admit = (bytes) =>
      fitsInline(
        { ...work, recordBytes: work.recordBytes + bytes, logs: work.logs + bytes / RECORD_BYTES_PER_LOG },
        budgetUs,
      );
  const scanBlock = blockScanner(reader, q.addresses, q.topics, reads);
  const blockCounts: number[] = [];
  for (const n of blocks) {
    const matched = scanBlock(n, out);
    work.recordBytes = reads.recordBytes;
    if (matched !== SCAN_REFUSED) work.logs += matched;
    if (matched === SCAN_REFUSED || !fitsInline(work, budgetUs)) {
      if (json) keepSpare(json.view().buffer as ArrayBuffer);
      return undefined;
    }
    if (matched === 0) continue;
    blockCounts.push(n, matched);
    if (work.logs > maxResults) break;
  }
  let chunk: Uint8Array;
  if (!json) chunk = proto!.take().bytes;
  else if (work.logs === 0) {
    // Nothing to answer with: the memory stays this thread's.
    keepSpare(json.view().buffer as ArrayBuffer);
    chunk = new Uint8Array(0);
  } else {
    chunk = json.view();
    lend(chunk.buffer as ArrayBuffer);
  }
  return { chunk, count: work.logs, blockCounts, work };
}

/**
 * The whole answer of `spec` over its resolved `range` when its work fits `budgetUs` (see
 * scanInline): its chunks, the pending or orphaned block's matches included; undefined when it
 * does not fit. Throws ResultCapError past `maxResults`. Counts the query and its scan in
 * `counts`.
 */
export function answerInline(
  range: ResolvedRange,
  spec: FilterSpec,
  reader: StoreReader,
  format: Exclude<LogFormat, 'jsonl'>,
  maxResults: number,
  budgetUs: number,
  counts: ScanCounts,
): LogChunks | undefined {
  const scan = scanInline(
    reader,
    { from: range.from, to: range.to, addresses: spec.addresses, topics: spec.topics, head: range.head },
    format,
    maxResults,
    budgetUs,
  );
  if (scan === undefined) return undefined;
  counts.paths.inline++;
  counts.totals.blocks += Math.max(0, range.to - range.from + 1);
  counts.totals.candidates += scan.work.candidates;
  counts.totals.matchedBlocks += scan.blockCounts.length / 2;
  if (scan.count > maxResults) {
    giveBack([scan.chunk]);
    throw new ResultCapError(range.from, lastFitting(scan.blockCounts, 0, maxResults, range.to), maxResults);
  }
  return withExtra(scan.count > 0 ? [scan.chunk] : [], scan.count, range, spec, format, maxResults);
}
