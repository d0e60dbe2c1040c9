/**
 * Per-API-key request rate limits: one token bucket per key, refilled at `perSecond` tokens a second
 * up to `burst`. A request spends one token per JSON-RPC call (a batch of N calls costs N, as Infura
 * counts), all or nothing: a request the bucket cannot pay for whole is refused whole and spends
 * nothing. Buckets are keyed by 128 bits of the sha256 of the key's id (never the key), made only for
 * keys the store found valid, and capped in number, so a flood of distinct keys cannot grow memory.
 *
 * The buckets live in a SharedArrayBuffer (bucketTable.ts) that RateLimiters on other threads
 * attach to (`buffer`), so every HTTP thread and the gRPC front spend from one bucket per key: the
 * limit holds across threads exactly as on one, with no message on a request's path. (Handing
 * each thread a share of the tokens instead would refuse a key whose tokens sit in another
 * thread's share, and refilling the shares by messages would lag behind.) The clock is the
 * process-wide monotonic clock, the same on every thread.
 */
import { MAX_RATE_LIMIT_BUCKETS } from '../config.js';
import { BatchOverBurstError, RateLimitedError } from '../rpc/errors.js';
import { type BucketKey, BucketTable, bucketKey } from './bucketTable.js';

/** A rate limit: sustained calls per second and how many calls a full bucket allows at once. */
export interface RateLimit {
  /** Tokens added per second. */
  perSecond: number;
  /** Capacity of a bucket (a key idle long enough may make this many calls at once). */
  burst: number;
}

/** Why a request is refused: no tokens now (retry later), or more calls than the burst (never). */
export type RateRefusal = RateLimitedError | BatchOverBurstError;

/** Options of a RateLimiter beyond the limit itself. */
export interface RateLimiterOptions {
  /** The id a presented key is tracked by (its sha256 keys the bucket); the key itself by default. */
  idOf?: (key: string) => string;
  /**
   * A monotonic clock in milliseconds, the same on every thread sharing the buckets; monotonicMs by default (tests
   * inject one).
   */
  now?: () => number;
  /** Most buckets kept; MAX_RATE_LIMIT_BUCKETS by default (ignored with `buffer`, whose creator set it). */
  maxBuckets?: number;
  /** The `buffer` of the RateLimiter (on any thread) whose buckets this one shares; new buckets by default. */
  buffer?: SharedArrayBuffer;
}

/**
 * The process-wide monotonic clock (CLOCK_MONOTONIC) in milliseconds: every thread reads the same time, unlike
 * performance.now.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Share of the cap left after an eviction: the O(buckets) sweep then runs once per many new keys. */
const EVICT_TO = 0.9;

/** One key's budget for the request in hand: its bucket key computed once, checked and spent by cost. */
export class KeyBudget {
  /** Binds `limiter` to the bucket key `key`. */
  constructor(
    private readonly limiter: RateLimiter,
    private readonly key: BucketKey,
  ) {}

  /** The refusal a request of `cost` calls would get now, or null when the bucket holds enough; spends nothing. */
  check(cost: number): RateRefusal | null {
    return this.limiter.checkKey(this.key, cost);
  }

  /** Spends `cost` tokens and returns null, or returns the refusal and spends nothing. */
  take(cost: number): RateRefusal | null {
    return this.limiter.takeKey(this.key, cost);
  }
}

/** Token buckets for many keys under one limit, shared with the RateLimiters other threads attach to `buffer`. */
export class RateLimiter {
  private readonly table: BucketTable;
  private readonly idOf: (key: string) => string;
  private readonly now: () => number;

  /**
   * A limiter enforcing `limit` (perSecond > 0, burst ≥ 1); every limiter sharing a buffer must be given the same
   * limit.
   */
  constructor(
    readonly limit: RateLimit,
    options: RateLimiterOptions = {},
  ) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1))
      throw new RangeError(
        `a rate limit needs perSecond > 0 and burst >= 1, got ${limit.perSecond} and ${limit.burst}`,
      );
    this.idOf = options.idOf ?? ((key) => key);
    this.now = options.now ?? monotonicMs;
    this.table = new BucketTable(options.maxBuckets ?? MAX_RATE_LIMIT_BUCKETS, options.buffer);
  }

  /**
   * The shared buffer holding the buckets: give it (with the same limit) to a RateLimiter on another thread to share
   * them.
   */
  get buffer(): SharedArrayBuffer {
    return this.table.buffer;
  }

  /** Buckets currently kept, by every thread sharing them (for tests and metrics). */
  get size(): number {
    return this.table.size;
  }

  /** The budget of the presented (already validated) `key`, for one request. */
  budget(key: string): KeyBudget {
    return new KeyBudget(this, bucketKey(this.idOf(key)));
  }

  /** The refusal `cost` calls by `id` would get now, or null; spends nothing and creates no bucket. */
  check(id: string, cost: number): RateRefusal | null {
    return this.checkKey(bucketKey(id), cost);
  }

  /** Spends `cost` tokens of `id` and returns null, or returns the refusal and spends nothing. */
  take(id: string, cost: number): RateRefusal | null {
    return this.takeKey(bucketKey(id), cost);
  }

  /** check() by bucket key. */
  checkKey(key: BucketKey, cost: number): RateRefusal | null {
    if (cost > this.limit.burst) return new BatchOverBurstError(cost, this.limit.burst);
    const { table } = this;
    return table.locked(() => {
      const slot = table.find(key);
      return slot === -1 ? null : this.refusal(this.refill(slot, this.now()), cost);
    });
  }

  /** take() by bucket key. */
  takeKey(key: BucketKey, cost: number): RateRefusal | null {
    if (cost > this.limit.burst) return new BatchOverBurstError(cost, this.limit.burst);
    const { table } = this;
    return table.locked(() => {
      // Read under the lock: the threads' successive times never go back.
      const now = this.now();
      let slot = table.find(key);
      if (slot === -1) {
        this.makeRoom(now);
        slot = table.insert(key, this.limit.burst, now);
      }
      const tokens = this.refill(slot, now);
      const refused = this.refusal(tokens, cost);
      table.tokens[slot] = refused === null ? tokens - cost : tokens;
      table.at[slot] = now;
      return refused;
    });
  }

  /** The tokens the bucket in `slot` holds at `now`. */
  private refill(slot: number, now: number): number {
    const { tokens, at } = this.table;
    return Math.min(this.limit.burst, tokens[slot]! + (Math.max(0, now - at[slot]!) * this.limit.perSecond) / 1000);
  }

  /** Null when `tokens` pay for `cost`, else the refusal with the wait until they would. */
  private refusal(tokens: number, cost: number): RateLimitedError | null {
    if (tokens >= cost) return null;
    return new RateLimitedError(((cost - tokens) * 1000) / this.limit.perSecond, this.limit.perSecond);
  }

  /**
   * Makes room for one more bucket at `now`, once the cap is reached: full buckets go first (a new
   * one would say the same), then the oldest until EVICT_TO of the cap is left (those keys get a
   * fresh burst), so the sweep runs once per many new keys, not on each.
   */
  private makeRoom(now: number): void {
    const { table } = this;
    if (table.size < table.maxBuckets) return;
    table.evict((slot) => this.refill(slot, now) >= this.limit.burst, Math.floor(table.maxBuckets * EVICT_TO));
  }
}
