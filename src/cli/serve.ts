/**
 * `ethlogd serve`: serves a store over HTTP until SIGINT or SIGTERM.
 */
import { DEFAULT_HOST, DEFAULT_HTTP_PORT } from '../config.js';
import { createLogger } from '../log.js';
import { startService } from '../service.js';
import { integer, parse, required } from './args.js';

/** Usage text of `serve`. */
export const SERVE_USAGE = `Usage: ethlogd serve --data DIR [--host ${DEFAULT_HOST}] [--port ${DEFAULT_HTTP_PORT}]

Serves the store in DIR: POST /v3/<API_KEY> with JSON-RPC 2.0 (single or batch).
Prints "listening on http://HOST:PORT" once it accepts requests; stops cleanly on SIGINT/SIGTERM.

Options:
  --data DIR     store directory (made by generate or ingest)          required
  --host HOST    address to bind                                       default ${DEFAULT_HOST}
  --port PORT    port to bind, 0 for any free port                     default ${DEFAULT_HTTP_PORT}
  -h, --help     this text`;

/** Runs `serve`. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } });
  if (values.help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  const logger = createLogger();
  const service = await startService({
    dataDir: required(values.data, 'data'),
    host: typeof values.host === 'string' ? values.host : DEFAULT_HOST,
    port: integer(values.port, 'port', DEFAULT_HTTP_PORT, 0, 65535),
    logger,
  });
  console.log(`listening on ${service.url}`);
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
