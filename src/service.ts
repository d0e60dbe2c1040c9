/**
 * Wires a running service: the store opened read-only, the method layer over it, the eth_getLogs
 * worker pool, and the HTTP front. The CLI's `serve` and the integration tests start the service through here.
 */
import { DEFAULT_LOG_LIMITS, type LogLimits } from './config.js';
import { startHttpServer } from './http/server.js';
import type { Logger } from './log.js';
import { LogEngine } from './logs/engine.js';
import { createRpcHandler } from './rpc/dispatcher.js';
import type { MethodContext } from './rpc/method.js';
import { checkApiKey } from './store/apiKeys.js';
import { StoreReader } from './store/reader.js';
import { closeStore, openStore } from './store/schema.js';

/** How to start the service. */
export interface ServiceOptions {
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
  limits?: Partial<LogLimits>;
  /** eth_getLogs worker threads; default: the machine's cores. */
  threads?: number;
}

/** A running service. */
export interface RunningService {
  host: string;
  port: number;
  /** Base URL, without the /v3/<key> path. */
  url: string;
  /** Stops accepting, then closes the worker pool and the store. */
  close(): Promise<void>;
}

/** Opens the store at `dataDir` and serves it over HTTP. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const store = openStore(options.dataDir, { readOnly: true });
  const reader = new StoreReader(store);
  const limits: LogLimits = { ...DEFAULT_LOG_LIMITS, ...options.limits };
  const onError = (message: string, error: unknown) => options.logger.error(message, error);
  const engine = new LogEngine({ dataDir: options.dataDir, limits, threads: options.threads, onError });
  const ctx: MethodContext = { reader, limits, queryLogs: (spec) => engine.query(spec, reader) };
  const handler = createRpcHandler(ctx, onError);
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    handler,
    auth: (key) => checkApiKey(store, key),
    log: (line) => options.logger.info(line),
  });
  return {
    host: server.host,
    port: server.port,
    url: `http://${server.host}:${server.port}`,
    async close() {
      server.close();
      await engine.close();
      await closeStore(store);
    },
  };
}
