/**
 * Plain-number accumulators behind the per-call metrics: recording a call costs a map lookup and a
 * few additions (no label strings, no objects), and the Prometheus series are built from them only
 * when /metrics is scraped (metrics.ts).
 */
import { CALL_OK, type CallObserver } from '../rpc/observe.js';

/** The calls of one label: how many per outcome, and their latency distribution. */
export class CallStats {
  /** Calls answered with a result. */
  ok = 0;
  /** Calls answered with an error, per JSON-RPC error code. */
  readonly errors = new Map<number, number>();
  /** Calls per latency bucket, not cumulative: index i counts those ≤ bounds[i] and > bounds[i-1]; the last one those past every bound. */
  readonly buckets: Float64Array;
  /** Sum of the latencies in seconds. */
  sum = 0;
  /** Calls recorded. */
  count = 0;

  /** Accumulates into latency buckets with upper bounds `bounds` (seconds, ascending). */
  constructor(private readonly bounds: readonly number[]) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  /** Records one call answered with `code` (CALL_OK or an error code) after `seconds`. */
  record(code: number, seconds: number): void {
    if (code === CALL_OK) this.ok++;
    else this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/** CallStats per call label, created on a label's first call (the JSON-RPC layer keeps labels a small fixed set). */
export class CallStatsTable implements CallObserver {
  /** The stats of every label seen (or declared), in the order they appeared. */
  readonly byMethod = new Map<string, CallStats>();

  /** Tracks calls with latency buckets `bounds`; `methods` start with zero counts, so their series exist before a first call. */
  constructor(
    /** The latency buckets' upper bounds in seconds, ascending. */
    readonly bounds: readonly number[],
    methods: Iterable<string> = [],
  ) {
    for (const method of methods) this.byMethod.set(method, new CallStats(bounds));
  }

  /** Records a call (CallObserver). */
  onCall(method: string, code: number, seconds: number): void {
    let stats = this.byMethod.get(method);
    if (stats === undefined) {
      stats = new CallStats(this.bounds);
      this.byMethod.set(method, stats);
    }
    stats.record(code, seconds);
  }
}

/** Counts per HTTP status. */
export class StatusCounts {
  /** Responses per status code. */
  readonly byStatus = new Map<number, number>();

  /** Counts one response with `status`. */
  add(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }
}
