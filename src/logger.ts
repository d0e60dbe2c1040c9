/**
 * Structured logs: JSON lines (pino) to stderr, so stdout stays for command output. Every line has
 * `level` (a name), `time` (ISO 8601), `pid` and `msg`, plus the context fields of the call; an
 * error goes under `err` with its type, message and stack. Credentials that may ride in text
 * (API keys in `/v3/<key>` paths, upstream node URLs with keys or passwords) are masked in messages
 * and errors before they are written (redactSecrets).
 */
import { type DestinationStream, pino } from 'pino';

/** The levels a logger can be set to, from the most verbose; `silent` writes nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Whether `value` names a log level (for flags and environment variables). */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Fields added to a log line, e.g. `{ key: keyId(key), status: 401 }`; never a secret. */
export type LogContext = Record<string, unknown>;

/** Writes log lines. */
export interface Logger {
  debug(message: string, context?: LogContext): void;
  info(message: string, context?: LogContext): void;
  warn(message: string, context?: LogContext): void;
  /** Logs `message` with `error` (its stack when it is an Error) under `err`, and the context fields. */
  error(message: string, error?: unknown, context?: LogContext): void;
  /** Whether lines of `level` are written: check it once before building a costly context. */
  isLevelEnabled(level: LogLevel): boolean;
}

/** Options of createLogger. */
export interface LoggerOptions {
  /** Where the JSON lines go; stderr by default (tests pass a stream to read them). */
  destination?: DestinationStream;
}

/** Masked in place of a secret. */
const REDACTED = '<redacted>';

/** An http(s) or ws(s) URL, up to whitespace or a quote. */
const URL_PATTERN = /\b(?:https?|wss?):\/\/[^\s"'<>]+/gi;

/** The userinfo of a URL (`user:password@`). */
const USERINFO_PATTERN = /^([a-z]+:\/\/)[^/@]+@/i;

/** A URL path segment that looks like a token (node providers put API keys there): 16 or more key characters. */
const TOKEN_SEGMENT_PATTERN = /\/[A-Za-z0-9_-]{16,}(?=[/?#]|$)/g;

/** The path of this service's API, whose last segment is the API key, wherever it appears (URLs, bare paths). */
const API_PATH_PATTERN = /\/v3\/[^\s/?#"'<>]+/g;

/** `url` with its userinfo, token-like path segments and query masked. */
function redactUrl(url: string): string {
  const query = url.search(/[?#]/);
  const base = query === -1 ? url : url.slice(0, query) + (url[query] === '?' ? `?${REDACTED}` : '');
  return base.replace(USERINFO_PATTERN, `$1${REDACTED}@`).replace(TOKEN_SEGMENT_PATTERN, `/${REDACTED}`);
}

/**
 * `text` with the credentials it may carry masked: URL userinfo, queries and token-like path segments, and `/v3/<key>`.
 */
export function redactSecrets(text: string): string {
  if (!text.includes('/')) return text;
  return text.replace(URL_PATTERN, redactUrl).replace(API_PATH_PATTERN, `/v3/${REDACTED}`);
}

/** pino's error serializer, with the message and stack masked by redactSecrets. */
function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redactSecrets(error) : error;
  const out = pino.stdSerializers.err(error);
  out.message = redactSecrets(out.message);
  out.stack = redactSecrets(out.stack);
  return out;
}

/** A logger that writes JSON lines at or above `level` to stderr (or `options.destination`). */
export function createLogger(level: LogLevel = 'info', options: LoggerOptions = {}): Logger {
  const log = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      hooks: {
        logMethod(args, method) {
          const last = args.length - 1;
          if (typeof args[last] === 'string') args[last] = redactSecrets(args[last]);
          method.apply(this, args);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
  return {
    debug: (message, context) => (context === undefined ? log.debug(message) : log.debug(context, message)),
    info: (message, context) => (context === undefined ? log.info(message) : log.info(context, message)),
    warn: (message, context) => (context === undefined ? log.warn(message) : log.warn(context, message)),
    error: (message, error, context) => {
      if (error === undefined && context === undefined) log.error(message);
      else log.error(error === undefined ? context! : { ...context, err: error }, message);
    },
    isLevelEnabled: (lvl) => lvl !== 'silent' && log.isLevelEnabled(lvl),
  };
}
