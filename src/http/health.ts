/**
 * The operations endpoints of the HTTP front, without an API key: `GET /health` (liveness: the
 * process serves), `GET /ready` (the store is open and has a head, and the server is not draining)
 * and `GET /metrics` (Prometheus text exposition, when metrics are on). HEAD answers the same
 * headers without a body; other methods get 405.
 */
import type { StoreReader } from '../store/reader.js';
import { OPS_METHOD_NOT_ALLOWED } from './replies.js';
import { sendReply, sendText, type ReplyOptions } from './respond.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

/** Whether the service can answer queries: ready (with its head block when it has a store), or why not. */
export type Readiness = { ready: true; head?: number } | { ready: false; reason: string };

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

/** Wraps `answer` with the method check: GET and HEAD reach it (told whether it is HEAD), others get 405. */
function getOnly(answer: (res: HttpResponse, options: ReplyOptions) => void): Route {
  return (res, req) => {
    const method = req.getMethod().toLowerCase();
    const head = method === 'head';
    if (method !== 'get' && !head) return sendReply(res, OPS_METHOD_NOT_ALLOWED, { head });
    answer(res, { head });
  };
}

/** The /ready answer for `readiness`: 200 with the head, or 503 with the reason. */
function readyAnswer(readiness: Readiness): { status: string; body: string } {
  if (readiness.ready) return { status: '200 OK', body: JSON.stringify({ status: 'ready', head: readiness.head }) };
  return { status: '503 Service Unavailable', body: JSON.stringify({ status: 'unavailable', reason: readiness.reason }) };
}

/**
 * Registers /health, /ready and (with `ops.metrics`) /metrics on `app`; `guard` wraps each handler
 * as the server wraps its own, and `onError` hears of a failed scrape (answered 500).
 */
export function registerOpsRoutes(app: TemplatedApp, ops: OpsEndpoints, guard: (route: Route) => Route, onError: (message: string, error: unknown) => void): void {
  app.any(
    '/health',
    guard(getOnly((res, options) => sendText(res, '200 OK', JSON_TYPE, HEALTHY, options))),
  );
  app.any(
    '/ready',
    guard(
      getOnly((res, options) => {
        const { status, body } = readyAnswer(ops.ready());
        sendText(res, status, JSON_TYPE, body, options);
      }),
    ),
  );
  const { metrics } = ops;
  if (metrics === undefined) return;
  app.any(
    '/metrics',
    guard(
      getOnly((res, options) => {
        let aborted = false;
        res.onAborted(() => {
          aborted = true;
        });
        metrics().then(
          ({ contentType, body }) => {
            if (!aborted) sendText(res, '200 OK', contentType, body, options);
          },
          (error: unknown) => {
            onError('metrics: rendering failed', error);
            if (!aborted) sendText(res, '500 Internal Server Error', JSON_TYPE, '{"error":"metrics unavailable"}', options);
          },
        );
      }),
    ),
  );
}

/** The readiness of a store: ready once it has a head block; not while it holds none, nor once it cannot be read (closed). */
export function storeReadiness(reader: StoreReader): Readiness {
  let head: number | undefined;
  try {
    head = reader.head();
  } catch {
    return { ready: false, reason: 'the store cannot be read' };
  }
  return head === undefined ? { ready: false, reason: 'the store holds no block yet' } : { ready: true, head };
}
