/**
 * Matching and rendering the logs of one block: the step the oracle and the worker engine share,
 * so that both render byte-identical JSON.
 */
import { bytesToHex, quantityToHex } from '../chain/hex.js';
import type { BlockBundle, Log } from '../chain/types.js';
import { type LogContext, renderLogJson } from '../render/format.js';
import type { StoreReader } from '../store/reader.js';
import { type CompiledFilter, matchLog } from './filter.js';

/** Renders the logs of `logs` that match `filter` as JSON fragments, for canonical block `number`. */
export function renderCanonicalMatches(
  reader: StoreReader,
  number: number,
  logs: Log[],
  filter: CompiledFilter,
): string[] {
  const out: string[] = [];
  let ctx: LogContext | undefined;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    if (!matchLog(filter, log)) continue;
    ctx ??= canonicalContext(reader, number);
    out.push(renderLogJson(log, i, ctx));
  }
  return out;
}

/** The context canonical block `number`'s logs render with (transaction hashes read as needed). */
export function canonicalContext(reader: StoreReader, number: number): LogContext {
  const header = reader.header(number)!;
  const hashes = new Map<number, string>();
  let stored: Uint8Array[] | undefined;
  return {
    blockHash: bytesToHex(header.hash),
    blockNumber: quantityToHex(number),
    blockTimestamp: quantityToHex(header.timestamp),
    txHash: (i) => {
      let h = hashes.get(i);
      if (h === undefined) {
        // The block's hashes in one read, at the first log that needs one.
        stored ??= reader.txHashes(number);
        h = bytesToHex(stored[i]!);
        hashes.set(i, h);
      }
      return h;
    },
    removed: false,
    pending: false,
  };
}

/**
 * Renders the matching logs of a whole stored block from log `fromIndex` on as JSON lines, with
 * the marks of a stream (end offset, block number, log index per log; see stream.ts).
 */
export function renderBundleLines(
  bundle: BlockBundle,
  filter: CompiledFilter,
  kind: 'pending' | 'orphan',
  fromIndex: number,
): { bytes: Uint8Array; marks: Float64Array } {
  const ctx = bundleContext(bundle, kind);
  const parts: string[] = [];
  const marks: number[] = [];
  let length = 0;
  for (let i = fromIndex; i < bundle.logs.length; i++) {
    const log = bundle.logs[i]!;
    if (!matchLog(filter, log)) continue;
    const line = renderLogJson(log, i, ctx) + '\n';
    parts.push(line);
    length += line.length;
    marks.push(length, bundle.header.number, i);
  }
  return { bytes: new Uint8Array(Buffer.from(parts.join(''), 'latin1')), marks: new Float64Array(marks) };
}

/** Renders the matching logs of a whole stored block: pending (null positions) or orphaned (removed: true). */
export function renderBundleMatches(bundle: BlockBundle, filter: CompiledFilter, kind: 'pending' | 'orphan'): string[] {
  const ctx = bundleContext(bundle, kind);
  const out: string[] = [];
  bundle.logs.forEach((log, i) => {
    if (matchLog(filter, log)) out.push(renderLogJson(log, i, ctx));
  });
  return out;
}

/** The context the logs of a whole stored block render with: pending ones without positions, orphaned ones removed. */
export function bundleContext(bundle: BlockBundle, kind: 'pending' | 'orphan'): LogContext {
  const pending = kind === 'pending';
  const h = bundle.header;
  return {
    blockHash: pending ? null : bytesToHex(h.hash),
    blockNumber: pending ? null : quantityToHex(h.number),
    blockTimestamp: pending ? null : quantityToHex(h.timestamp),
    txHash: (i) => (pending ? null : bytesToHex(bundle.transactions[i]!.hash)),
    removed: !pending,
    pending,
  };
}
