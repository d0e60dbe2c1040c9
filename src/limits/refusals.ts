/**
 * Refusals of the admission limits by reason, counted in one SharedArrayBuffer so that every HTTP
 * thread, the gRPC front and the main thread's engine add to the same counters with no message on a
 * request's path; /metrics reads them when scraped (ethlogd_refusals_total).
 */

/** Why a call, a filter, a subscription or a stream was refused or ended by a limit. */
export const LIMIT_REFUSAL_REASONS = [
  /** A log query (eth_getLogs, filter logs, gRPC GetLogs) found its key's or the process's queue full. */
  'log_queries',
  /** A StreamLogs call found its key's or the process's streams all taken. */
  'streams',
  /** A polling filter over its key's or the process's byte budget. */
  'filter_bytes',
  /** A `logs` subscription over its key's or the process's byte budget. */
  'subscription_bytes',
  /** A WebSocket subscriber whose notifications waiting to be sent passed their bound: closed. */
  'slow_subscriber',
] as const;

/** One reason of LIMIT_REFUSAL_REASONS. */
export type LimitRefusalReason = (typeof LIMIT_REFUSAL_REASONS)[number];

/** Counters of refusals by reason, shared by every thread given the same buffer. */
export class LimitRefusals {
  /** The buffer every thread's counts attach to. */
  readonly buffer: SharedArrayBuffer;
  private readonly cells: Uint32Array;

  /** New counters at zero, or (given `buffer`) the counters another thread created in it. */
  constructor(buffer?: SharedArrayBuffer) {
    this.buffer = buffer ?? new SharedArrayBuffer(LIMIT_REFUSAL_REASONS.length * 4);
    this.cells = new Uint32Array(this.buffer);
  }

  /** Counts one refusal for `reason`. */
  add(reason: LimitRefusalReason): void {
    Atomics.add(this.cells, LIMIT_REFUSAL_REASONS.indexOf(reason), 1);
  }

  /** The refusals counted for `reason`. */
  get(reason: LimitRefusalReason): number {
    return Atomics.load(this.cells, LIMIT_REFUSAL_REASONS.indexOf(reason));
  }
}
