/**
 * `ethlogd serve`: serves a store over HTTP, and over gRPC when given a port, until SIGINT or SIGTERM.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_HOST, DEFAULT_HTTP_PORT, LOG_QUERY_TIMEOUT_MS, MAX_FILTER_PARAMS, MAX_LOG_RESULTS, STREAM_TIMEOUT_MS } from '../config.js';
import { createLogger } from '../log.js';
import { startService } from '../service.js';
import { integer, parse, required } from './args.js';

/** Usage text of `serve`. */
export const SERVE_USAGE = `Usage: ethlogd serve --data DIR [--host ${DEFAULT_HOST}] [--port ${DEFAULT_HTTP_PORT}] [--grpc-port N] [--threads N]

Serves the store in DIR: POST /v3/<API_KEY> with JSON-RPC 2.0 (single or batch), and with
--grpc-port the gRPC service ethlogd.v1.EthLogs (src/grpc/ethlogd.proto, key in x-api-key metadata).
Prints "listening on http://HOST:PORT" once it accepts requests, then "grpc listening on HOST:PORT"
when gRPC is on; stops cleanly on SIGINT/SIGTERM.

Options:
  --data DIR     store directory (made by generate or ingest)          required
  --host HOST    address to bind                                       default ${DEFAULT_HOST}
  --port PORT    port to bind, 0 for any free port                     default ${DEFAULT_HTTP_PORT}
  --grpc-port N  gRPC port, 0 for any free port                        default off
  --threads N    eth_getLogs worker threads                            default ${availableParallelism()} (the cores)
  --log-timeout-ms MS    eth_getLogs deadline                          default ${LOG_QUERY_TIMEOUT_MS}
  --max-log-results N    eth_getLogs result cap                        default ${MAX_LOG_RESULTS}
  --max-filter-params N  addresses + topics per filter                 default ${MAX_FILTER_PARAMS}
  --stream-timeout-ms MS gRPC StreamLogs deadline, 0 for none          default ${STREAM_TIMEOUT_MS}
  -h, --help     this text`;

/** Runs `serve`. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    data: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'grpc-port': { type: 'string' },
    'stream-timeout-ms': { type: 'string' },
    threads: { type: 'string' },
    'log-timeout-ms': { type: 'string' },
    'max-log-results': { type: 'string' },
    'max-filter-params': { type: 'string' },
  });
  if (values.help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  const logger = createLogger();
  const service = await startService({
    dataDir: required(values.data, 'data'),
    host: typeof values.host === 'string' ? values.host : DEFAULT_HOST,
    port: integer(values.port, 'port', DEFAULT_HTTP_PORT, 0, 65535),
    grpcPort: values['grpc-port'] === undefined ? undefined : integer(values['grpc-port'], 'grpc-port', 0, 0, 65535),
    grpcStream: { timeoutMs: integer(values['stream-timeout-ms'], 'stream-timeout-ms', STREAM_TIMEOUT_MS, 0) },
    threads: integer(values.threads, 'threads', availableParallelism(), 1, 256),
    limits: {
      timeoutMs: integer(values['log-timeout-ms'], 'log-timeout-ms', LOG_QUERY_TIMEOUT_MS, 1),
      maxResults: integer(values['max-log-results'], 'max-log-results', MAX_LOG_RESULTS, 1),
      maxParams: integer(values['max-filter-params'], 'max-filter-params', MAX_FILTER_PARAMS, 1),
    },
    logger,
  });
  console.log(`listening on ${service.url}`);
  if (service.grpcPort !== undefined) console.log(`grpc listening on ${service.host}:${service.grpcPort}`);
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      logger.info(`${signal}: shutting down`);
      service.close().then(
        () => resolve(0),
        (error) => {
          logger.error('shutdown failed', error);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
