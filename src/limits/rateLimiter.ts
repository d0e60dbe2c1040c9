/**
 * Per-API-key request rate limits: one token bucket per key, refilled at `perSecond` tokens a second
 * up to `burst`. A request spends one token per JSON-RPC call (a batch of N calls costs N, as Infura
 * counts), all or nothing: a request the bucket cannot pay for whole is refused whole and spends
 * nothing. Buckets are keyed by the key's id (its digest, never the key), made only for keys the
 * store found valid, and capped in number, so a flood of distinct keys cannot grow memory.
 */
import { MAX_RATE_LIMIT_BUCKETS } from '../config.js';
import { BatchOverBurstError, RateLimitedError } from '../rpc/errors.js';

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
  /** The id a presented key is tracked by; the key itself by default (the service passes its digest). */
  idOf?: (key: string) => string;
  /** A monotonic clock in milliseconds; performance.now by default (tests inject one). */
  now?: () => number;
  /** Most buckets kept; MAX_RATE_LIMIT_BUCKETS by default. */
  maxBuckets?: number;
}

/** Tokens of one key as of `at` (ms on the limiter's clock). */
interface Bucket {
  tokens: number;
  at: number;
}

/** Share of the cap left after an eviction: the O(buckets) sweep then runs once per many new keys. */
const EVICT_TO = 0.9;

/** One key's budget for the request in hand: its id computed once, checked and spent by cost. */
export class KeyBudget {
  /** Binds `limiter` to the bucket id `id`. */
  constructor(
    private readonly limiter: RateLimiter,
    private readonly id: string,
  ) {}

  /** The refusal a request of `cost` calls would get now, or null when the bucket holds enough; spends nothing. */
  check(cost: number): RateRefusal | null {
    return this.limiter.check(this.id, cost);
  }

  /** Spends `cost` tokens and returns null, or returns the refusal and spends nothing. */
  take(cost: number): RateRefusal | null {
    return this.limiter.take(this.id, cost);
  }
}

/** Token buckets for many keys under one limit. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly idOf: (key: string) => string;
  private readonly now: () => number;
  private readonly maxBuckets: number;

  /** A limiter enforcing `limit` (perSecond > 0, burst ≥ 1). */
  constructor(
    readonly limit: RateLimit,
    options: RateLimiterOptions = {},
  ) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1)) throw new RangeError(`a rate limit needs perSecond > 0 and burst >= 1, got ${limit.perSecond} and ${limit.burst}`);
    this.idOf = options.idOf ?? ((key) => key);
    this.now = options.now ?? (() => performance.now());
    this.maxBuckets = options.maxBuckets ?? MAX_RATE_LIMIT_BUCKETS;
  }

  /** Buckets currently kept (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  /** The budget of the presented (already validated) `key`, for one request. */
  budget(key: string): KeyBudget {
    return new KeyBudget(this, this.idOf(key));
  }

  /** The refusal `cost` calls by `id` would get now, or null; spends nothing and creates no bucket. */
  check(id: string, cost: number): RateRefusal | null {
    if (cost > this.limit.burst) return new BatchOverBurstError(cost, this.limit.burst);
    const bucket = this.buckets.get(id);
    if (bucket === undefined) return null;
    return this.refusal(this.refill(bucket, this.now()), cost);
  }

  /** Spends `cost` tokens of `id` and returns null, or returns the refusal and spends nothing. */
  take(id: string, cost: number): RateRefusal | null {
    if (cost > this.limit.burst) return new BatchOverBurstError(cost, this.limit.burst);
    const now = this.now();
    let bucket = this.buckets.get(id);
    if (bucket === undefined) {
      this.makeRoom(now);
      bucket = { tokens: this.limit.burst, at: now };
      this.buckets.set(id, bucket);
    }
    const tokens = this.refill(bucket, now);
    const refused = this.refusal(tokens, cost);
    bucket.tokens = refused === null ? tokens - cost : tokens;
    bucket.at = now;
    return refused;
  }

  /** The tokens `bucket` holds at `now`. */
  private refill(bucket: Bucket, now: number): number {
    return Math.min(this.limit.burst, bucket.tokens + (Math.max(0, now - bucket.at) * this.limit.perSecond) / 1000);
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
    if (this.buckets.size < this.maxBuckets) return;
    for (const [id, bucket] of this.buckets) {
      if (this.refill(bucket, now) >= this.limit.burst) this.buckets.delete(id);
    }
    const keep = Math.floor(this.maxBuckets * EVICT_TO);
    for (const id of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(id);
    }
  }
}
