/**
 * Plain-number accumulators behind the per-call metrics: recording a call costs a map lookup and a
 * few additions (no label strings, no objects), and the Prometheus series are built from them only
 * when /metrics is scraped (metrics.ts). Each HTTP thread keeps its own; their snapshots (plain data
 * a MessagePort carries) are added up when scraped.
 */

import type { ScanCounts } from '../logs/answer.js';
import type { AnswerCacheCounts } from '../rpc/answerCache.js';
import { CALL_OK, type CallObserver } from '../rpc/observe.js';

/** The calls of one label: how many per outcome, and their latency distribution. */
export class CallStats {
  /** Calls answered with a result. */
  ok = 0;
  /** Calls answered with an error, per JSON-RPC error code. */
  readonly errors = new Map<number, number>();
  /**
   * Calls per latency bucket, not cumulative: index i counts those ≤ bounds[i] and > bounds[i-1]; the last one those
   * past every bound.
   */
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

  /** Adds the calls of `snapshot` (same bounds). */
  add(snapshot: CallStatsSnapshot): void {
    this.ok += snapshot.ok;
    for (const [code, count] of snapshot.errors) this.errors.set(code, (this.errors.get(code) ?? 0) + count);
    for (let i = 0; i < this.buckets.length; i++) this.buckets[i]! += snapshot.buckets[i]!;
    this.sum += snapshot.sum;
    this.count += snapshot.count;
  }

  /** Forgets every call. */
  clear(): void {
    this.ok = 0;
    this.errors.clear();
    this.buckets.fill(0);
    this.sum = 0;
    this.count = 0;
  }

  /** The counts as plain data. */
  snapshot(): CallStatsSnapshot {
    return { ok: this.ok, errors: [...this.errors], buckets: [...this.buckets], sum: this.sum, count: this.count };
  }
}

/** The counts of a CallStats as plain data (structured-clone safe). */
export interface CallStatsSnapshot {
  ok: number;
  /** Pairs (JSON-RPC error code, calls). */
  errors: [number, number][];
  /** Calls per latency bucket, as CallStats.buckets. */
  buckets: number[];
  sum: number;
  count: number;
}

/** The counts of one thread's calls and HTTP responses, as plain data. */
export interface ThreadCounts {
  /** Pairs (call label, its counts). */
  calls: [string, CallStatsSnapshot][];
  /** Pairs (HTTP status, responses). */
  statuses: [number, number][];
  /** The eth_getLogs queries the thread answered inline, and their scans' work. */
  logs: ScanCounts;
  /** The thread's answer cache's hits and misses (zero without a cache). */
  answers: AnswerCacheCounts;
  /** Pairs (refusal reason, requests, messages or connections refused). */
  refusals: [RefusalReason, number][];
}

/**
 * Why a transport refused a request, a message or a connection before the JSON-RPC layer saw it:
 * `body_too_large` (HTTP 413), `content_length` (HTTP 400, conflicting Content-Length),
 * `ws_message_too_large` (WebSocket close 1009), `grpc_connections` (over the gRPC connection cap),
 * `grpc_preface_timeout` (a gRPC connection that sent nothing in time).
 */
export type RefusalReason =
  | 'body_too_large'
  | 'content_length'
  | 'ws_message_too_large'
  | 'grpc_connections'
  | 'grpc_preface_timeout';

/** The reasons in the order the metrics show them (each series exists from the start, at zero). */
export const REFUSAL_REASONS: readonly RefusalReason[] = [
  'body_too_large',
  'content_length',
  'ws_message_too_large',
  'grpc_connections',
  'grpc_preface_timeout',
];

/** Refusals counted by reason. */
export class RefusalCounts {
  readonly byReason = new Map<RefusalReason, number>();

  /** Counts `refusals` (one by default) for `reason`. */
  add(reason: RefusalReason, refusals = 1): void {
    this.byReason.set(reason, (this.byReason.get(reason) ?? 0) + refusals);
  }

  /** Forgets every refusal. */
  clear(): void {
    this.byReason.clear();
  }

  /** The counts as plain data. */
  snapshot(): ThreadCounts['refusals'] {
    return [...this.byReason];
  }
}

/** CallStats per call label, created on a label's first call (the JSON-RPC layer keeps labels a small fixed set). */
export class CallStatsTable implements CallObserver {
  /** The stats of every label seen (or declared), in the order they appeared. */
  readonly byMethod = new Map<string, CallStats>();

  /**
   * Tracks calls with latency buckets `bounds`; `methods` start with zero counts, so their series exist before a first
   * call.
   */
  constructor(
    /** The latency buckets' upper bounds in seconds, ascending. */
    readonly bounds: readonly number[],
    methods: Iterable<string> = [],
  ) {
    for (const method of methods) this.byMethod.set(method, new CallStats(bounds));
  }

  /** Records a call (CallObserver). */
  onCall(method: string, code: number, seconds: number): void {
    this.stats(method).record(code, seconds);
  }

  /** Adds the calls of a table's snapshot (same bounds), label by label. */
  add(snapshot: ThreadCounts['calls']): void {
    for (const [method, counts] of snapshot) this.stats(method).add(counts);
  }

  /** Forgets every call; the labels stay, at zero. */
  clear(): void {
    for (const stats of this.byMethod.values()) stats.clear();
  }

  /** The counts of every label as plain data. */
  snapshot(): ThreadCounts['calls'] {
    return [...this.byMethod].map(([method, stats]) => [method, stats.snapshot()]);
  }

  /** The stats of `method`, made on its first use. */
  private stats(method: string): CallStats {
    let stats = this.byMethod.get(method);
    if (stats === undefined) {
      stats = new CallStats(this.bounds);
      this.byMethod.set(method, stats);
    }
    return stats;
  }
}

/** Counts per HTTP status. */
export class StatusCounts {
  /** Responses per status code. */
  readonly byStatus = new Map<number, number>();

  /** Counts `responses` (one by default) with `status`. */
  add(status: number, responses = 1): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + responses);
  }

  /** Responses of every status. */
  get total(): number {
    let total = 0;
    for (const count of this.byStatus.values()) total += count;
    return total;
  }

  /** Forgets every response. */
  clear(): void {
    this.byStatus.clear();
  }

  /** The counts as plain data. */
  snapshot(): ThreadCounts['statuses'] {
    return [...this.byStatus];
  }
}
