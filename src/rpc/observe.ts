/**
 * What the JSON-RPC layer tells its observers about the calls it answers: every call's label
 * (the method, or a fixed label for calls without a known method, so labels stay a small fixed
 * set whatever clients send) and outcome, for metrics; and per request body, for the request log.
 */

/** The outcome code of a call answered with a result (JSON-RPC error codes are never 0). */
export const CALL_OK = 0;

/** The label of a call naming a method this service does not have. */
export const UNKNOWN_METHOD = 'unknown';

/** The label of a body or batch item that is not a valid request (bad JSON, not a request object, empty or oversized batch). */
export const INVALID_REQUEST = 'invalid';

/** Receives every answered call (each item of a batch, and each refused body once). */
export interface CallObserver {
  /** `method`: the call's label; `code`: CALL_OK or the JSON-RPC error code answered; `seconds`: time to answer it. */
  onCall(method: string, code: number, seconds: number): void;
}

/** What one request body held, filled by the handler as its calls are answered (for the request log). */
export class RequestTrace {
  /** Distinct call labels, in the order their calls were answered. */
  readonly methods: string[] = [];
  /** Calls answered (batch items, or 1). */
  calls = 0;
  /** Calls answered with an error. */
  errors = 0;
  /** Whether the body was a batch. */
  batch = false;

  /** Notes one answered call. */
  note(method: string, code: number): void {
    this.calls++;
    if (code !== CALL_OK) this.errors++;
    if (!this.methods.includes(method)) this.methods.push(method);
  }
}
