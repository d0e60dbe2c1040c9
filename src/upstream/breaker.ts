/**
 * A circuit breaker over the upstream node: after a run of failed requests (no answer, a timeout,
 * garbage) it opens, and calls fail at once instead of each waiting for its own timeout; once its
 * backoff has passed it lets one request through as a probe, which closes it on success or opens
 * it again for twice as long (up to a bound). The node's JSON-RPC errors are answers, not failures.
 */

/** How the breaker trips and backs off. */
export interface BreakerOptions {
  /** Failed requests in a row that open it. */
  failures: number;
  /** First time it stays open, in milliseconds; doubled at each failed probe. */
  baseMs: number;
  /** Longest time it stays open. */
  maxMs: number;
  /** The clock in milliseconds (tests inject one); performance.now by default. */
  now?: () => number;
}

/**
 * What the breaker says about a request: go ahead (`probe` when it is the one trial of a half-open
 * breaker), or wait `retryInMs`.
 */
export type Admission = { admitted: true; probe: boolean } | { admitted: false; retryInMs: number };

/** The breaker of one upstream node. */
export class CircuitBreaker {
  private failuresInRow = 0;
  private openUntil = 0;
  private openMs = 0;
  private probing = false;
  private readonly now: () => number;

  /** A closed breaker with `options`. */
  constructor(private readonly options: BreakerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether it is open now (refusing every request but a probe once its backoff has passed). */
  get open(): boolean {
    return this.openMs > 0;
  }

  /** Asks to send a request now. */
  admit(): Admission {
    if (this.openMs === 0) return { admitted: true, probe: false };
    const wait = this.openUntil - this.now();
    if (wait > 0) return { admitted: false, retryInMs: Math.ceil(wait) };
    if (this.probing) return { admitted: false, retryInMs: 0 };
    this.probing = true;
    return { admitted: true, probe: true };
  }

  /** Reports a request admitted as `probe` that got an answer. */
  succeeded(probe: boolean): void {
    if (probe) this.probing = false;
    this.failuresInRow = 0;
    this.openMs = 0;
  }

  /** Reports a request admitted as `probe` that failed. */
  failed(probe: boolean): void {
    if (probe) this.probing = false;
    this.failuresInRow++;
    if (this.openMs > 0) {
      // A failed probe (or a request admitted before the breaker opened): open again, longer.
      if (probe) this.trip(Math.min(this.options.maxMs, this.openMs * 2));
      return;
    }
    if (this.failuresInRow >= this.options.failures) this.trip(this.options.baseMs);
  }

  private trip(ms: number): void {
    this.openMs = ms;
    this.openUntil = this.now() + ms;
  }
}
