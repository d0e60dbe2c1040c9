/**
 * The access log: one JSON line per HTTP request (msg `request`, level info) with what the request
 * was for (the kind of path, never the path: `/v3/<key>` holds the key), its JSON-RPC methods and
 * error codes, how many of its calls went to the upstream node (`forwarded`, when any), its status, duration and body
 * bytes in and out (out after compression), and the
 * key's id (keyId: 8 hex digits of its sha256). `sample` writes one line in N, counted on each HTTP
 * thread, except refusals an operator must see (401, 413, 429) and server failures (5xx), always written.
 */
import type { Logger } from '../logger.js';
import { RequestTrace } from '../rpc/observe.js';
import { keyId } from '../store/apiKeys.js';
import type { ResponseEnd } from './respond.js';

/** Every line, one line in N (plain data, so HTTP threads get it in their start-up data), or none. */
export type AccessLogMode = 'on' | 'off' | { sample: number };

/**
 * What a request was for: the API (`/v3/...`), a WebSocket upgrade, an operations endpoint, or a path we do not serve.
 */
export type PathKind = 'rpc' | 'ws-upgrade' | 'health' | 'ready' | 'metrics' | 'not-found';

/** The request log of one request, from its start to its log line. */
export class AccessEntry {
  /** When the request arrived (performance.now()). */
  readonly started = performance.now();
  /** Request body bytes read. */
  bytesIn = 0;
  /**
   * Set once its line is decided: a request is counted and logged once, whichever of its answer's end and its client's
   * leaving reports first.
   */
  ended = false;

  /**
   * Starts the entry of a request to a `path` of that kind by HTTP `method`; `key` is the presented API key ('' when
   * none), `trace` the calls of its body.
   */
  constructor(
    readonly path: PathKind,
    readonly method: string,
    readonly key: string,
    readonly trace: RequestTrace | undefined,
  ) {}
}

/**
 * Requests per line of `mode` (1: every one, 0: none); throws a RangeError on a sample that is not a whole number from
 * 1.
 */
export function accessLogEvery(mode: AccessLogMode): number {
  if (mode === 'on') return 1;
  if (mode === 'off') return 0;
  if (!Number.isSafeInteger(mode.sample) || mode.sample < 1)
    throw new RangeError(`access log sample ${mode.sample} is not a whole number of requests from 1`);
  return mode.sample;
}

/** Whether a request ending with `status` is logged whatever the sampling. */
function alwaysLogged(status: number): boolean {
  return status === 401 || status === 413 || status === 429 || status >= 500;
}

/** The access log of one HTTP front (one thread). */
export class AccessLog {
  /** One line per this many requests (1: every one); 0: none. */
  private readonly every: number;
  /** Requests ended since the front started, for the sampling. */
  private seen = 0;

  /** Writes lines to `logger` as `mode` says, when `logger` writes info lines. */
  constructor(
    private readonly logger: Logger,
    mode: AccessLogMode,
  ) {
    this.every = logger.isLevelEnabled('info') ? accessLogEvery(mode) : 0;
  }

  /** Starts the entry of a request (`rpc` POSTs trace their calls), or undefined when no line is ever written. */
  begin(path: PathKind, method: string, key = ''): AccessEntry | undefined {
    if (this.every === 0) return undefined;
    return new AccessEntry(path, method, key, path === 'rpc' && method === 'POST' ? new RequestTrace() : undefined);
  }

  /**
   * Ends `entry` as `end` says, and writes its line when it is sampled or always logged; `aborted`: the client left
   * during the answer.
   */
  end(entry: AccessEntry | undefined, end: ResponseEnd, aborted = false): void {
    if (entry === undefined || entry.ended) return;
    entry.ended = true;
    this.seen++;
    if (!alwaysLogged(end.status) && this.seen % this.every !== 0) return;
    const { trace } = entry;
    this.logger.info('request', {
      path: entry.path,
      http: entry.method,
      status: end.status,
      ms: Math.round((performance.now() - entry.started) * 1000) / 1000,
      ...(trace && {
        methods: trace.methods,
        calls: trace.calls,
        errors: trace.errors,
        codes: trace.codes,
        batch: trace.batch,
      }),
      ...(trace !== undefined && trace.forwarded > 0 && { forwarded: trace.forwarded }),
      bytesIn: entry.bytesIn,
      bytesOut: end.bytes,
      ...(end.coding !== null && { encoding: end.coding }),
      ...(aborted && { aborted }),
      ...(entry.key !== '' && { key: keyId(entry.key) }),
    });
  }
}
