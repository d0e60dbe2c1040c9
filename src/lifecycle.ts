/**
 * The service's graceful shutdown: both fronts stop accepting at once, requests in flight get a
 * bound to finish, then the worker pool and the store close.
 */
import type { GrpcServer } from './grpc/server.js';
import type { HttpServer } from './http/server.js';
import type { Logger } from './logger.js';
import type { LogEngine } from './logs/engine.js';
import { closeStore, type Store } from './store/schema.js';

/** How a shutdown went. */
export interface ShutdownOutcome {
  /** True when every request in flight finished within the bound. */
  clean: boolean;
  /** HTTP requests still unanswered at the bound, closed with their connections. */
  httpRequestsCut: number;
  /** True when gRPC calls were still running at the bound and were cancelled. */
  grpcCallsCut: boolean;
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
  /** The upstream node's client (serve --upstream), closed once no request needs it. */
  upstream?: { close(): void };
}

/**
 * Drains both fronts together within `graceMs` (each stops accepting at once), then closes the
 * worker pool (no query is left to need it) and the store.
 */
export async function shutdownService(parts: ShutdownParts): Promise<ShutdownOutcome> {
  const [httpRequestsCut, grpcCallsCut] = await Promise.all([
    parts.http.close(parts.graceMs),
    parts.grpc?.close(parts.graceMs) ?? false,
  ]);
  if (grpcCallsCut) parts.logger.warn(`grpc: calls still running after ${parts.graceMs} ms were cancelled`);
  parts.upstream?.close();
  await parts.engine.close();
  await closeStore(parts.store);
  return { clean: httpRequestsCut === 0 && !grpcCallsCut, httpRequestsCut, grpcCallsCut };
}
