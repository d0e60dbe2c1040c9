/**
 * The service's per-key rate limiter (built from its options) and its graceful shutdown: both
 * fronts stop accepting at once, requests in flight get a bound to finish, then the worker pool and
 * the store close.
 */
import { DEFAULT_RATE_BURST_SECONDS, DEFAULT_RATE_LIMIT_PER_SECOND } from './config.js';
import type { GrpcServer } from './grpc/server.js';
import type { HttpServer } from './http/server.js';
import { RateLimiter } from './limits/rateLimiter.js';
import type { Logger } from './logger.js';
import type { LogEngine } from './logs/engine.js';
import { closeStore, type Store } from './store/schema.js';

/** A per-key rate limit as the service takes it. */
export interface RateLimitOptions {
  /** Calls per second each key may make, sustained; 0 for no limit. */
  perSecond: number;
  /** Calls a key may make at once; perSecond × DEFAULT_RATE_BURST_SECONDS (at least 1) by default. */
  burst?: number;
}

/** How a shutdown went. */
export interface ShutdownOutcome {
  /** True when every request in flight finished within the bound. */
  clean: boolean;
  /** HTTP requests still unanswered at the bound, closed with their connections. */
  httpRequestsCut: number;
  /** True when gRPC calls were still running at the bound and were cancelled. */
  grpcCallsCut: boolean;
}

/** The limiter for `options` (its buckets keyed by the API key's sha256), or undefined when there is no limit. */
export function rateLimiterFor(options: RateLimitOptions | undefined): RateLimiter | undefined {
  const perSecond = options?.perSecond ?? DEFAULT_RATE_LIMIT_PER_SECOND;
  if (perSecond <= 0) return undefined;
  const burst = options?.burst ?? Math.max(1, Math.ceil(perSecond * DEFAULT_RATE_BURST_SECONDS));
  return new RateLimiter({ perSecond, burst });
}

/** What shutdownService closes. */
export interface ShutdownParts {
  http: HttpServer;
  grpc?: GrpcServer;
  engine: LogEngine;
  store: Store;
  /** The drain bound in milliseconds. */
  graceMs: number;
  logger: Logger;
}

/**
 * Drains both fronts together within `graceMs` (each stops accepting at once), then closes the
 * worker pool (no query is left to need it) and the store.
 */
export async function shutdownService(parts: ShutdownParts): Promise<ShutdownOutcome> {
  const [httpRequestsCut, grpcCallsCut] = await Promise.all([parts.http.close(parts.graceMs), parts.grpc?.close(parts.graceMs) ?? false]);
  if (grpcCallsCut) parts.logger.warn(`grpc: calls still running after ${parts.graceMs} ms were cancelled`);
  await parts.engine.close();
  await closeStore(parts.store);
  return { clean: httpRequestsCut === 0 && !grpcCallsCut, httpRequestsCut, grpcCallsCut };
}
