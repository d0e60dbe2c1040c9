/**
 * The simple, obviously correct, single-threaded eth_getLogs: walks every block of the range in
 * order, decodes its logs, matches them field by field and renders each as an object in geth's key
 * order. It is the test oracle of the parallel engine and a benchmark baseline, so it shares none
 * of the engine's logic (range resolution, the compiled filter, the JSON writers), only the store's
 * reader and the domain error classes: a bug in the engine's code cannot hide in both.
 */
import { bytesEqual, bytesToHex, quantityToHex } from '../chain/hex.js';
import type { BlockBundle, BlockId, Log } from '../chain/types.js';
import type { LogLimits } from '../config.js';
import type { StoreReader } from '../store/reader.js';
import { DeadlineExceededError, RangeBeyondHeadError, RangeInvertedError, ResultCapError } from './errors.js';
import type { FilterSpec } from './filter.js';

/** Whether `log` passes the filter, as geth's filterLogs decides: address, then positions in order. */
function matches(spec: FilterSpec, log: Log): boolean {
  if (spec.addresses.length > 0 && !spec.addresses.some((a) => bytesEqual(a, log.address))) return false;
  if (spec.topics.length > log.topics.length) return false;
  return spec.topics.every(
    (alternatives, i) => alternatives === null || alternatives.some((t) => bytesEqual(t, log.topics[i]!)),
  );
}

/** Where a block's logs sit: its header fields and transaction hashes, read only once a log matches. */
interface LogBlock {
  header(): { number: number; hash: Uint8Array; timestamp: number };
  txHash(index: number): Uint8Array;
  logs: readonly Log[];
}

/** A log as eth_getLogs answers it, keys in geth's order (plus blockTimestamp); positions null when pending. */
function render(log: Log, logIndex: number, block: LogBlock, kind: 'canonical' | 'pending' | 'orphan'): string {
  const pending = kind === 'pending';
  const header = block.header();
  return JSON.stringify({
    address: bytesToHex(log.address),
    topics: log.topics.map(bytesToHex),
    data: bytesToHex(log.data),
    blockNumber: pending ? null : quantityToHex(header.number),
    transactionHash: pending ? null : bytesToHex(block.txHash(log.txIndex)),
    transactionIndex: pending ? null : quantityToHex(log.txIndex),
    blockHash: pending ? null : bytesToHex(header.hash),
    blockTimestamp: pending ? null : quantityToHex(header.timestamp),
    logIndex: pending ? null : quantityToHex(logIndex),
    removed: kind === 'orphan',
  });
}

/** The matching logs of a whole block, rendered. */
function blockMatches(spec: FilterSpec, block: LogBlock, kind: 'canonical' | 'pending' | 'orphan'): string[] {
  const out: string[] = [];
  block.logs.forEach((log, i) => {
    if (matches(spec, log)) out.push(render(log, i, block, kind));
  });
  return out;
}

/** A stored whole block (pending or orphaned) as a LogBlock. */
function bundle(b: BlockBundle): LogBlock {
  return { header: () => b.header, txHash: (i) => b.transactions[i]!.hash, logs: b.logs };
}

/** Canonical block `n` as a LogBlock (its header read once, at the first match). */
function canonical(reader: StoreReader, n: number): LogBlock {
  let header: BlockBundle['header'] | undefined;
  let hashes: Uint8Array[] | undefined;
  return {
    header: () => (header ??= reader.header(n)!),
    txHash: (i) => (hashes ??= reader.txHashes(n))[i]!,
    logs: reader.logs(n),
  };
}

/**
 * The number an endpoint names: its own number, or the marker its tag reads (pending is head + 1 while a pending block
 * is stored).
 */
function endpoint(ref: BlockId, reader: StoreReader, pending: boolean): number {
  if ('number' in ref) return ref.number;
  const meta = reader.meta()!;
  if (!('tag' in ref)) throw new TypeError('a range endpoint is a number or a tag');
  if (ref.tag === 'earliest') return meta.earliest;
  if (ref.tag === 'safe') return meta.safe;
  if (ref.tag === 'finalized') return meta.finalized;
  return ref.tag === 'pending' && pending ? meta.head + 1 : meta.head;
}

/**
 * Answers a parsed filter with the matching logs as JSON fragments, in order; throws the domain errors (errors.ts) the
 * engine throws.
 */
export function oracleGetLogs(reader: StoreReader, spec: FilterSpec, limits: LogLimits): string[] {
  const started = Date.now();
  if (spec.blockHash !== undefined) {
    const n = reader.numberByHash(spec.blockHash);
    if (n !== undefined) return capped(blockMatches(spec, canonical(reader, n), 'canonical'), n, n, limits);
    const orphan = reader.orphan(spec.blockHash);
    return orphan === undefined ? [] : capped(blockMatches(spec, bundle(orphan), 'orphan'), 1, 0, limits);
  }
  const meta = reader.meta();
  if (meta === undefined) return [];
  const stored = reader.pending();
  const toPending = 'tag' in spec.toBlock && spec.toBlock.tag === 'pending' && stored !== undefined;
  const namesPending = [spec.fromBlock, spec.toBlock].some((ref) => 'tag' in ref && ref.tag === 'pending');
  const from = endpoint(spec.fromBlock, reader, namesPending && stored !== undefined);
  const to = endpoint(spec.toBlock, reader, namesPending && stored !== undefined);
  if ('number' in spec.toBlock && spec.toBlock.number > meta.head)
    throw new RangeBeyondHeadError(spec.toBlock.number, meta.head);
  if (from > to) throw new RangeInvertedError(from, to);
  const first = Math.max(from, meta.earliest);
  const out: string[] = [];
  for (let n = first; n <= Math.min(to, meta.head); n++) {
    if (Date.now() - started > limits.timeoutMs) throw new DeadlineExceededError();
    const found = blockMatches(spec, canonical(reader, n), 'canonical');
    if (out.length + found.length > limits.maxResults) throw new ResultCapError(first, n - 1, limits.maxResults);
    out.push(...found);
  }
  if (toPending) {
    const found = blockMatches(spec, bundle(stored), 'pending');
    if (out.length + found.length > limits.maxResults)
      throw new ResultCapError(first, Math.min(to, meta.head), limits.maxResults);
    out.push(...found);
  }
  return out;
}

/** `found`, or the cap's error for the range [from, to] when it holds more than maxResults. */
function capped(found: string[], from: number, to: number, limits: LogLimits): string[] {
  if (found.length > limits.maxResults) throw new ResultCapError(from, to, limits.maxResults);
  return found;
}
