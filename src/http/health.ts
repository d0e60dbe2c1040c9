/**
 * The operations endpoints of the HTTP front, without an API key: `GET /health` (liveness: the
 * process serves), `GET /ready` (the store is open and has a head, the server is not draining, and a
 * replica is within --max-lag-blocks of its node; the body says head, hash and lag either way)
 * and `GET /metrics` (Prometheus text exposition, when metrics are on). HEAD answers the same
 * headers without a body (compressed or not as GET would be, so Content-Length and Content-Encoding
 * agree); other methods get 405.
 */
import { bytesToHex } from '../chain/hex.js';
import { lagStatus, type ReplicaSync } from '../replica/lag.js';
import type { StoreReader } from '../store/reader.js';
import type { PathKind } from './accessLog.js';
import { OPS_METHOD_NOT_ALLOWED } from './replies.js';
import { CLIENT_CLOSED, type ReplyOptions, sendReply, sendText } from './respond.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

/**
 * Where the store stands when readiness is checked: its head block and hash, and its lag behind its node (null when it
 * follows none, or either head is unknown).
 */
export interface ReadyPosition {
  head?: number;
  hash?: string;
  lag?: number | null;
}

/** Whether the service can answer queries (with where its store stands), or why not. */
export type Readiness = ({ ready: true } | { ready: false; reason: string }) & ReadyPosition;

/** The metrics exposition and its Content-Type. */
export interface MetricsText {
  contentType: string;
  body: string;
}

/** What the operations endpoints report. */
export interface OpsEndpoints {
  /** Readiness, checked on every request to /ready. */
  ready(): Readiness;
  /** Renders the metrics; without it /metrics is not served (404 like any unknown path). */
  metrics?: () => Promise<MetricsText>;
}

/** Content-Type of the JSON bodies of /health and /ready. */
const JSON_TYPE = 'application/json';

/** The answer of /health: the process is up and its event loop answers. */
const HEALTHY = '{"status":"ok"}';

/** A route handler for an operations path. */
type Route = (res: HttpResponse, req: HttpRequest) => void;

/** What the server lends the operations routes. */
export interface OpsHooks {
  /** Wraps each route handler, as the server wraps its own. */
  guard(route: Route): Route;
  /**
   * The reply options of one request to a path of `kind` (whether it is HEAD, its coding, where its end is reported),
   * read from `req` in the handler.
   */
  begin(req: HttpRequest, kind: PathKind): ReplyOptions;
  /** Hears of a failed scrape (answered 500). */
  onError(message: string, error: unknown): void;
}

/**
 * A route for the operations path of `kind`: GET and HEAD reach `answer` (with the request's reply options), others get
 * 405.
 */
function getOnly(hooks: OpsHooks, kind: PathKind, answer: (res: HttpResponse, options: ReplyOptions) => void): Route {
  return hooks.guard((res, req) => {
    const method = req.getMethod().toLowerCase();
    const options = hooks.begin(req, kind);
    if (method !== 'get' && method !== 'head') return sendReply(res, OPS_METHOD_NOT_ALLOWED, options);
    answer(res, options);
  });
}

/** The /ready answer for `readiness`: 200, or 503 with the reason; both with `ready`, head, hash and lag. */
function readyAnswer(readiness: Readiness): { status: string; body: string } {
  const position = { head: readiness.head, hash: readiness.hash, lag: readiness.lag ?? null };
  if (readiness.ready) return { status: '200 OK', body: JSON.stringify({ ready: true, status: 'ready', ...position }) };
  return {
    status: '503 Service Unavailable',
    body: JSON.stringify({ ready: false, status: 'unavailable', reason: readiness.reason, ...position }),
  };
}

/** Registers /health, /ready and (with `ops.metrics`) /metrics on `app`, with the server's `hooks`. */
export function registerOpsRoutes(app: TemplatedApp, ops: OpsEndpoints, hooks: OpsHooks): void {
  app.any(
    '/health',
    getOnly(hooks, 'health', (res, options) => sendText(res, '200 OK', JSON_TYPE, HEALTHY, options)),
  );
  app.any(
    '/ready',
    getOnly(hooks, 'ready', (res, options) => {
      const { status, body } = readyAnswer(ops.ready());
      sendText(res, status, JSON_TYPE, body, options);
    }),
  );
  const { metrics } = ops;
  if (metrics === undefined) return;
  app.any(
    '/metrics',
    getOnly(hooks, 'metrics', (res, options) => {
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
        options.onEnd?.({ status: CLIENT_CLOSED, bytes: 0, coding: null });
      });
      metrics().then(
        ({ contentType, body }) => {
          if (!aborted) sendText(res, '200 OK', contentType, body, options);
        },
        (error: unknown) => {
          hooks.onError('metrics: rendering failed', error);
          if (!aborted)
            sendText(res, '500 Internal Server Error', JSON_TYPE, '{"error":"metrics unavailable"}', options);
        },
      );
    }),
  );
}

/**
 * The readiness of a store: ready once it has a head block, and for a replica (`sync`) while it is
 * within its lag of the node (replica/lag.ts); not while it holds none, nor once it cannot be read (closed).
 */
export function storeReadiness(reader: StoreReader, sync?: ReplicaSync): Readiness {
  let head: number | undefined;
  let hash: string | undefined;
  try {
    head = reader.head();
    if (head !== undefined) hash = bytesToHex(reader.header(head)!.hash);
  } catch {
    return { ready: false, reason: 'the store cannot be read' };
  }
  if (sync === undefined)
    return head === undefined
      ? { ready: false, reason: 'the store holds no block yet' }
      : { ready: true, head, hash, lag: null };
  const { lag, behind } = lagStatus(head, sync);
  return behind === undefined ? { ready: true, head, hash, lag } : { ready: false, reason: behind, head, hash, lag };
}
