/**
 * The simple, obviously correct, single-threaded eth_getLogs: walks every block of the range in
 * order. It is kept as the test oracle of the parallel engine and as a benchmark baseline.
 */
import type { LogLimits } from '../config.js';
import type { StoreReader } from '../store/reader.js';
import { renderBundleMatches, renderCanonicalMatches } from './blockLogs.js';
import { DeadlineExceededError, ResultCapError } from './errors.js';
import { compileFilter, type FilterSpec } from './filter.js';
import { resolveRange } from './range.js';

/** Answers a parsed filter with the matching logs as JSON fragments, in order; throws ResultCapError and DeadlineExceededError (errors.ts). */
export function oracleGetLogs(reader: StoreReader, spec: FilterSpec, limits: LogLimits): string[] {
  const started = Date.now();
  const range = resolveRange(spec, reader);
  const filter = compileFilter(spec);
  const out: string[] = [];
  for (let n = range.from; n <= range.to; n++) {
    if (Date.now() - started > limits.timeoutMs) throw new DeadlineExceededError();
    const matches = renderCanonicalMatches(reader, n, reader.logs(n), filter);
    if (out.length + matches.length > limits.maxResults) throw new ResultCapError(range.from, n - 1, limits.maxResults);
    for (const m of matches) out.push(m);
  }
  const extra = range.pending ? renderBundleMatches(range.pending, filter, 'pending') : range.orphan ? renderBundleMatches(range.orphan, filter, 'orphan') : [];
  if (out.length + extra.length > limits.maxResults) throw new ResultCapError(range.from, range.to, limits.maxResults);
  for (const m of extra) out.push(m);
  return out;
}
