/**
 * What the upstream client counts for the metrics: calls by method and outcome, and their latency,
 * in plain accumulators read when /metrics is scraped (metrics/metrics.ts). Only the main thread's
 * client sends calls, so one set counts them all.
 */
import { CallStatsTable } from '../metrics/callStats.js';

/** How a forwarded call ended: answered with a result, with the node's error, not in time, or not at all. */
export type UpstreamOutcome = 'ok' | 'node_error' | 'timeout' | 'unavailable';

/** The counts of forwarded calls. */
export class UpstreamStats {
  /** Calls per method, per outcome. */
  readonly outcomes = new Map<string, Map<UpstreamOutcome, number>>();
  /** Calls' latency per method (from their request's start to its answer); its outcome codes are unused. */
  readonly latency: CallStatsTable;

  /** Counts with latency buckets `bounds` (seconds, ascending). */
  constructor(bounds: readonly number[]) {
    this.latency = new CallStatsTable(bounds);
  }

  /** Records a call of `method` that ended with `outcome` after `seconds`. */
  record(method: string, outcome: UpstreamOutcome, seconds: number): void {
    let byOutcome = this.outcomes.get(method);
    if (byOutcome === undefined) {
      byOutcome = new Map();
      this.outcomes.set(method, byOutcome);
    }
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    this.latency.onCall(method, 0, seconds);
  }
}
