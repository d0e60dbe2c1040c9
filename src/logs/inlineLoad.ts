/**
 * How much of a thread's time its inline eth_getLogs scans took lately, and the inline budget that
 * follows from it. A thread that answers HTTP also answers the point lookups that come with the
 * scans: while it spends most of its time rendering logs inline (a realtime indexer asking for
 * mainnet blocks, ~350 µs each, on every connection), a lookup waits behind every scan queued ahead
 * of it. Past BUSY_SHARE of its time, queries estimated over BUSY_BUDGET_US go to the pool, whose
 * workers run on the other cores, and the thread is left the transport and the small calls. On a
 * machine of one core there is no other core to go to, and the budget stays whole.
 */
import { availableParallelism } from 'node:os';

/** Milliseconds over which the inline share is averaged (an exponential decay): a few dozen mainnet blocks. */
export const LOAD_WINDOW_MS = 20;

/**
 * The share of the thread's time in inline scans past which it is busy. Lower keeps lookups
 * quicker and sends more blocks to the niced workers, whose answers then wait longer: under 16
 * connections asking mainnet blocks by hash beside 16 asking point lookups (2 cores), 0.3 gave
 * lookups p99 5.3 ms at 13.3k/s and blocks p99 85 ms at 1.6k/s; 0.5, 6.9-7.6 ms at 6.8k/s and
 * 70-84 ms at 1.9k/s; 0.7, as if never busy, 16 ms at 2.4k/s and 23 ms at 2.1k/s.
 */
export const BUSY_SHARE = 0.3;

/**
 * The inline budget of a busy thread, µs: the small realtime queries (a few dozen logs) stay inline, mainnet blocks do
 * not.
 */
export const BUSY_BUDGET_US = 100;

/** A thread's recent inline scan time. */
export class InlineLoad {
  /** Decayed milliseconds of inline scans, as of `at`. */
  private busy = 0;
  private at = 0;

  /** `cores`: the cores the pool's workers may run on (by default the machine's). */
  constructor(private readonly cores = availableParallelism()) {}

  /**
   * The inline budget, µs, for a query now: `base`, or BUSY_BUDGET_US (when lower) while the thread
   * is busy. An unbounded base (every query inline, as configured) stays unbounded.
   */
  budget(base: number, now = performance.now()): number {
    if (this.cores < 2 || base <= BUSY_BUDGET_US || base === Number.POSITIVE_INFINITY) return base;
    return this.share(now) > BUSY_SHARE ? BUSY_BUDGET_US : base;
  }

  /** The share of the last LOAD_WINDOW_MS (decayed) spent in inline scans. */
  share(now = performance.now()): number {
    return (this.busy * Math.exp(-(now - this.at) / LOAD_WINDOW_MS)) / LOAD_WINDOW_MS;
  }

  /** Adds an inline scan (answered or abandoned for the pool) that ran from `started` to `now`, ms. */
  add(started: number, now = performance.now()): void {
    this.busy = this.busy * Math.exp(-(now - this.at) / LOAD_WINDOW_MS) + (now - started);
    this.at = now;
  }
}
