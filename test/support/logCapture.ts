/**
 * A logger for tests: the service's real (pino) logger, with its JSON lines kept in memory, and a
 * wait for lines still to come (an HTTP thread's lines reach the main thread's logger by message,
 * after its answer).
 */
import { createLogger, type Logger, type LogLevel } from '#src/logger.js';

/** A parsed log line. */
export type LogRecord = Record<string, unknown>;

/** A logger at `level` and the lines it wrote, raw and parsed. */
export interface CapturedLogger {
  logger: Logger;
  /** Every line as written (JSON text without the newline). */
  lines: string[];
  /** Every line parsed. */
  records(): LogRecord[];
  /** Resolves with the parsed lines from line `from` on that match `accept`, once there are `count` of them. */
  waitFor(accept: (record: LogRecord) => boolean, count?: number, from?: number): Promise<LogRecord[]>;
}

/** Creates a logger at `level` whose lines are captured instead of written to stderr. */
export function captureLogger(level: LogLevel = 'debug'): CapturedLogger {
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  const logger = createLogger(level, {
    destination: {
      write: (text: string) => {
        lines.push(text.replace(/\n$/, ''));
        for (const waiter of waiters.splice(0)) waiter();
      },
    },
  });
  const records = () => lines.map((line) => JSON.parse(line) as LogRecord);
  const waitFor = (accept: (record: LogRecord) => boolean, count = 1, from = 0) =>
    new Promise<LogRecord[]>((resolve) => {
      const check = () => {
        const found = records().slice(from).filter(accept);
        if (found.length >= count) resolve(found);
        else waiters.push(check);
      };
      check();
    });
  return { logger, lines, records, waitFor };
}
