/**
 * What the JSON-RPC layer tells its observers about the calls it answers: every call's label
 * (the method, or a fixed label for calls without a known method, so labels stay a small fixed
 * set whatever clients send) and outcome, for metrics; and per request body, for the request log,
 * which names methods as the calls gave them (cut short), so an operator sees what a client tried.
 */

/** The outcome code of a call answered with a result (JSON-RPC error codes are never 0). */
export const CALL_OK = 0;

/** The label of a call naming a method this service does not have. */
export const UNKNOWN_METHOD = 'unknown';

/**
 * The label of a body or batch item that is not a valid request (bad JSON, not a request object, empty or oversized
 * batch).
 */
export const INVALID_REQUEST = 'invalid';

/** Receives every answered call (each item of a batch, and each refused body once). */
export interface CallObserver {
  /** `method`: the call's label; `code`: CALL_OK or the JSON-RPC error code answered; `seconds`: time to answer it. */
  onCall(method: string, code: number, seconds: number): void;
}

/**
 * Distinct method names one request's log line lists: a batch of up to 1,000 calls of made-up names
 * would otherwise make a line of tens of kilobytes; its `calls` still counts them all.
 */
export const MAX_TRACED_METHODS = 16;

/**
 * Characters of a method name a log line keeps: every method served fits (the longest has 39), a made-up name is cut
 * here.
 */
export const MAX_TRACED_METHOD_CHARS = 64;

/** What one request body held, filled by the handler as its calls are answered (for the request log). */
export class RequestTrace {
  /**
   * Distinct method names as the calls gave them (cut to MAX_TRACED_METHOD_CHARS; unknown ones too), in the order their
   * calls were answered, at most MAX_TRACED_METHODS.
   */
  readonly methods: string[] = [];
  /** Distinct JSON-RPC error codes answered, in the order they first were. */
  readonly codes: number[] = [];
  /** Calls answered (batch items, or 1). */
  calls = 0;
  /** Calls answered with an error. */
  errors = 0;
  /** Whether the body was a batch. */
  batch = false;
  /** Calls forwarded to the upstream node (serve --upstream). */
  forwarded = 0;

  /**
   * Notes one answered call of `method` (its name, or INVALID_REQUEST) answered with `code` (CALL_OK or an error code).
   */
  note(method: string, code: number): void {
    this.calls++;
    if (code !== CALL_OK) {
      this.errors++;
      if (!this.codes.includes(code)) this.codes.push(code);
    }
    const name = method.length > MAX_TRACED_METHOD_CHARS ? `${method.slice(0, MAX_TRACED_METHOD_CHARS)}…` : method;
    if (this.methods.length < MAX_TRACED_METHODS && !this.methods.includes(name)) this.methods.push(name);
  }
}
