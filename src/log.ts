/**
 * A minimal line logger to stderr (stdout stays for command output).
 */

/** Log levels in increasing severity. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Writes log lines. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logger that writes lines at or above `level` to stderr. */
export function createLogger(level: LogLevel = 'info'): Logger {
  const min = ORDER[level];
  const line = (lvl: LogLevel, message: string) => {
    if (ORDER[lvl] >= min) process.stderr.write(`${new Date().toISOString()} ${lvl} ${message}\n`);
  };
  return {
    debug: (m) => line('debug', m),
    info: (m) => line('info', m),
    warn: (m) => line('warn', m),
    error: (m, e) => line('error', e === undefined ? m : `${m}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
  };
}
