/**
 * A logger for tests: the service's real (pino) logger, with its JSON lines kept in memory.
 */
import { createLogger, type Logger, type LogLevel } from '../../src/logger.js';

/** A logger at `level` and the lines it wrote, raw and parsed. */
export interface CapturedLogger {
  logger: Logger;
  /** Every line as written (JSON text without the newline). */
  lines: string[];
  /** Every line parsed. */
  records(): Record<string, unknown>[];
}

/** Creates a logger at `level` whose lines are captured instead of written to stderr. */
export function captureLogger(level: LogLevel = 'debug'): CapturedLogger {
  const lines: string[] = [];
  const logger = createLogger(level, { destination: { write: (text: string) => void lines.push(text.replace(/\n$/, '')) } });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
