/**
 * A short-lived memo in front of the API-key check: checking costs a sha256 and a store read (a few
 * microseconds, a sizeable share of a point lookup), and the same few keys come back on every request.
 */
import type { AuthStatus } from './server.js';

/** Options of the memo. */
export interface CachedAuthOptions {
  /** How long an answer is reused, in milliseconds: a revocation takes effect within this time. */
  ttlMs?: number;
  /** Most keys remembered; the memo starts over when full. */
  maxEntries?: number;
  /** The clock, in milliseconds (tests pass their own). */
  now?: () => number;
}

/** Default reuse time: revocations from another process (the keys command) apply within a second. */
const DEFAULT_TTL_MS = 1000;

/** Default bound on remembered keys. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Wraps `check` so its 'valid' and 'revoked' answers are reused for `ttlMs` ('unknown' is never
 * remembered, so a new key works at once and random keys cannot fill the memo).
 */
export function cachedAuth(check: (key: string) => AuthStatus, options: CachedAuthOptions = {}): (key: string) => AuthStatus {
  const ttl = options.ttlMs ?? DEFAULT_TTL_MS;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  const memo = new Map<string, { status: AuthStatus; until: number }>();
  return (key: string): AuthStatus => {
    const t = now();
    const hit = memo.get(key);
    if (hit !== undefined && hit.until > t) return hit.status;
    const status = check(key);
    if (status === 'unknown') {
      memo.delete(key);
      return status;
    }
    if (memo.size >= maxEntries && hit === undefined) memo.clear();
    memo.set(key, { status, until: t + ttl });
    return status;
  };
}
