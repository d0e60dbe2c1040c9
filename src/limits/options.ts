/**
 * The service's per-key rate limiter, built from its options (serve's --rate-limit and
 * --rate-burst, startService's rateLimit).
 */
import { DEFAULT_RATE_BURST_SECONDS, DEFAULT_RATE_LIMIT_PER_SECOND } from '../config.js';
import { RateLimiter } from './rateLimiter.js';

/** A per-key rate limit as the service takes it. */
export interface RateLimitOptions {
  /** Calls per second each key may make, sustained; 0 for no limit. */
  perSecond: number;
  /** Calls a key may make at once; perSecond × DEFAULT_RATE_BURST_SECONDS (at least 1) by default. */
  burst?: number;
}

/** The limiter for `options` (its buckets keyed by the API key's sha256), or undefined when there is no limit. */
export function rateLimiterFor(options: RateLimitOptions | undefined): RateLimiter | undefined {
  const perSecond = options?.perSecond ?? DEFAULT_RATE_LIMIT_PER_SECOND;
  if (perSecond <= 0) return undefined;
  const burst = options?.burst ?? Math.max(1, Math.ceil(perSecond * DEFAULT_RATE_BURST_SECONDS));
  return new RateLimiter({ perSecond, burst });
}
