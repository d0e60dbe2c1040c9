/**
 * Why the log engine refuses or fails a query (eth_getLogs, gRPC GetLogs and StreamLogs, the
 * library's logs()): one class per case, carrying the values that explain it. No transport's codes
 * or wording here: rpc/errors.ts (toRpcError) and grpc/errors.ts map each class to their answers.
 * Errors cross threads by class name and own fields (http/threadProtocol.ts), so every field is
 * plain data.
 */

/** The range ends before it starts, once its tags are resolved. */
export class RangeInvertedError extends Error {
  /** The range [from, to] asked for, from > to. */
  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    super(`block range [${from}, ${to}] ends before it starts`);
  }
}

/** The range ends at a block number past the head. */
export class RangeBeyondHeadError extends Error {
  /** `to`: the range's last block; `head`: the head when the range was resolved. */
  constructor(
    readonly to: number,
    readonly head: number,
  ) {
    super(`block range ends at ${to}, beyond the head block ${head}`);
  }
}

/** The query matched more logs than the result cap; [from, to] is the range whose matches fit under it. */
export class ResultCapError extends Error {
  /** The last block of the range that fits (at least `from`). */
  readonly to: number;

  /** The cap error of a range starting at `from` whose matches up to `lastFitting` fit under `limit`. */
  constructor(
    readonly from: number,
    lastFitting: number,
    readonly limit: number,
  ) {
    const to = Math.max(from, lastFitting);
    super(`more than ${limit} logs match; blocks [${from}, ${to}] fit`);
    this.to = to;
  }
}

/** The query passed its deadline. */
export class DeadlineExceededError extends Error {
  /** Builds the deadline error. */
  constructor() {
    super('the query passed its deadline');
  }
}

/** The filter has more topic positions than a log has topics. */
export class TooManyTopicsError extends Error {
  /** `positions` given, at most `max` allowed. */
  constructor(
    readonly positions: number,
    readonly max: number,
  ) {
    super(`${positions} topic positions, at most ${max}`);
  }
}

/** The filter has more parameters (addresses plus topic values) than the limit. */
export class TooManyParamsError extends Error {
  /** `count` parameters given, at most `max` allowed. */
  constructor(
    readonly count: number,
    readonly max: number,
  ) {
    super(`${count} filter parameters, at most ${max}`);
  }
}

/** A scan task failed unexpectedly (a worker's error or death); the details went to the engine's onError. */
export class ScanFailedError extends Error {
  /** Builds the failure of a query whose scan failed. */
  constructor() {
    super('a log scan failed');
  }
}

/** The query's caller went away (its connection closed): it is stopped, queued or running. */
export class QueryCancelledError extends Error {
  /** Builds the cancellation error. */
  constructor() {
    super('the query was cancelled: its client went away');
  }
}
