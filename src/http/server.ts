/**
 * The HTTP front (docs/architecture.md §1, docs/api.md §1): `POST /v3/<API_KEY>` with a JSON-RPC
 * body, answered by an RpcHandler, on uWebSockets.js.
 *
 * uWS answers keep-alive and pipelined requests on its own. Pipelining holds while each answer is
 * written before the next request is parsed (a handler that returns a string and a body that fits the
 * socket); uWS closes a connection whose client sends a request while an answer is still pending
 * (a promise, or a large answer still streaming), as it refuses to reorder answers.
 */
import { MAX_BODY_BYTES } from '../config.js';
import type { RateLimiter } from '../limits/rateLimiter.js';
import { createLogger, type Logger } from '../logger.js';
import type { RpcBody, RpcHandler } from '../rpc/handler.js';
import { RequestTrace } from '../rpc/observe.js';
import { keyId } from '../store/apiKeys.js';
import { DISCARD_MAX_BYTES, readBody } from './body.js';
import { answerPreflight } from './cors.js';
import { InFlight, SHUTTING_DOWN } from './drain.js';
import { registerOpsRoutes, type OpsEndpoints } from './health.js';
import { listenOn } from './listen.js';
import { callCount, tooManyRequests } from './rateLimit.js';
import {
  AUTH_FAILURE,
  INTERNAL_ERROR_BODY,
  INVALID_KEY,
  METHOD_NOT_ALLOWED,
  MISSING_KEY,
  NOT_FOUND,
  payloadTooLarge,
  REVOKED_KEY,
  UNSUPPORTED_MEDIA_TYPE,
  type Reply,
} from './replies.js';
import { sendJson, sendReply, type ReplyOptions } from './respond.js';
import { uWS, uwsImplementation, type HttpRequest, type HttpResponse } from './uws.js';
import { WsFront, type WsFrontOptions } from '../ws/wsFront.js';

/** The result of checking an API key (as src/store/apiKeys.ts's checkApiKey returns it). */
export type AuthStatus = 'valid' | 'unknown' | 'revoked';

/** Options of the HTTP front. */
export interface HttpServerOptions {
  /** Address to bind. */
  host: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Answers request bodies; it must read the body before returning (see BodySink.body). */
  handler: RpcHandler;
  /** Checks the API key of a request. */
  auth: (key: string) => AuthStatus;
  /** Largest request body in bytes (413 past it); MAX_BODY_BYTES by default. */
  maxBodyBytes?: number;
  /** Per-key rate limit, applied to valid keys (429 past it, see rateLimit.ts); none by default. */
  rateLimit?: RateLimiter;
  /** Where the front logs: failures, and one line per API request at debug level; JSON to stderr at info by default. */
  logger?: Logger;
  /** Hears the status of every response to an API request (not the operations endpoints): the metrics. */
  onResponse?: (status: number) => void;
  /** What /ready and /metrics report; without it /ready tells only whether the server is draining, and /metrics is not served. */
  ops?: OpsEndpoints;
  /**
   * Bind the port shared (SO_REUSEPORT) with the apps of other threads listening on it, instead of
   * exclusively; the caller checks first that no other process holds it (claimablePort in listen.ts).
   */
  sharePort?: boolean;
  /** Serve JSON-RPC over WebSocket on the same port (ws/wsFront.ts), with subscriptions fed by this store's head. */
  ws?: Pick<WsFrontOptions, 'reader' | 'maxParams' | 'pollMs' | 'connectionsPerKey' | 'sendBufferBytes'>;
}

/** A listening HTTP front. */
export interface HttpServer {
  /** The port actually bound. */
  port: number;
  /** The address bound. */
  host: string;
  /**
   * Begins a drain without waiting: stops listening (new connections are refused) and answers new
   * requests on open connections with 503; requests in flight go on until close().
   */
  refuse(): void;
  /**
   * Refuses as refuse() does and resolves once no request is in flight, or after `graceMs` with the
   * number still in flight then; connections stay open (answering 503) until close().
   */
  drain(graceMs: number): Promise<number>;
  /**
   * Drains within `graceMs` (0 by default; a drain already begun is awaited as it is), then closes
   * every connection; resolves with the number of requests cut off unanswered.
   */
  close(graceMs?: number): Promise<number>;
}

/** The prefix of every API path. */
const API_ROOT = '/v3';

/** What a path names: the API with a key ('' when missing), or nothing we serve. */
type Route = { key: string } | null;

/**
 * The fallback's listen socket wraps a node:http server; its own close leaves open connections
 * alive, so close() ends them through the server (the native app's close() does it in uWS).
 */
interface FallbackListenSocket {
  http?: { closeAllConnections(): void } | null;
}

/** `text` up to its `?`: the fallback's router leaves the query in URLs and the last parameter. */
function withoutQuery(text: string): string {
  const q = text.indexOf('?');
  return q === -1 ? text : text.slice(0, q);
}

/** Resolves `url` to the key of `/v3/<key>`, `''` for `/v3` and `/v3/`, or null. */
function route(url: string): Route {
  const path = withoutQuery(url);
  if (!path.startsWith(API_ROOT)) return null;
  if (path.length === API_ROOT.length) return { key: '' };
  if (path.charCodeAt(API_ROOT.length) !== 0x2f) return null;
  const key = path.slice(API_ROOT.length + 1);
  return key.includes('/') ? null : { key };
}

/** True when `contentType` is application/json, with or without parameters. */
function isJson(contentType: string): boolean {
  if (contentType === 'application/json') return true;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json';
}

/** The Content-Length value as a number, or -1 when absent or not a plain decimal. */
function contentLength(value: string): number {
  if (value === '') return -1;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

/** Status of a client that went away before its answer was sent (nginx's convention), for metrics and logs. */
const CLIENT_CLOSED = 499;

/** An API request being logged (at debug level only): when it started, its key and what its body held. */
interface RequestEntry {
  started: number;
  /** The presented key ('' when none); only its keyId is logged. */
  key: string;
  trace: RequestTrace;
}

/** A request whose body is being read or answered. */
interface Exchange {
  /** The client went away. */
  aborted: boolean;
  /** An answer was sent (so a later abort is not counted as the client leaving first). */
  answered: boolean;
  entry: RequestEntry | undefined;
  /** The API key the request came with. */
  key: string;
}

/** The numeric status of a fixed reply (its status line starts with it). */
function statusOf(reply: Reply): number {
  return Number.parseInt(reply.status, 10);
}

/** Starts the HTTP front and resolves once it listens. */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const { handler, auth } = opts;
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const logger = opts.logger ?? createLogger();
  const tooLarge = payloadTooLarge(limit);
  const inFlight = new InFlight();

  /** Starts the log entry of an API request presenting `key`, when debug lines are written (checked once per request). */
  function begin(key: string): RequestEntry | undefined {
    return logger.isLevelEnabled('debug') ? { started: performance.now(), key, trace: new RequestTrace() } : undefined;
  }

  /** Counts an answered API request by `status`, and writes its log line when it has an entry. */
  function answered(status: number, entry: RequestEntry | undefined): void {
    opts.onResponse?.(status);
    if (entry === undefined) return;
    const { trace } = entry;
    logger.debug('request', {
      status,
      ms: Math.round((performance.now() - entry.started) * 1000) / 1000,
      methods: trace.methods,
      calls: trace.calls,
      errors: trace.errors,
      batch: trace.batch,
      key: entry.key === '' ? null : keyId(entry.key),
    });
  }

  /** Sends a fixed reply to an API request, and counts and logs it. */
  function refuse(res: HttpResponse, reply: Reply, entry: RequestEntry | undefined, options?: ReplyOptions): void {
    sendReply(res, reply, options);
    answered(statusOf(reply), entry);
  }

  /** Sends the answer of `handler` to `body`, now or when its promise settles; calls `done` once it is written. */
  function dispatch(res: HttpResponse, exchange: Exchange, body: Uint8Array, done: () => void): void {
    const { entry } = exchange;
    const send = (text: RpcBody) => {
      exchange.answered = true;
      sendJson(res, text, { close: inFlight.closing, onSent: done });
      answered(200, entry);
    };
    let out: RpcBody | Promise<RpcBody>;
    try {
      out = handler.handle(body, entry?.trace, exchange.key);
    } catch (err) {
      logger.error('http: handler failed', err);
      send(INTERNAL_ERROR_BODY);
      return;
    }
    if (!(out instanceof Promise)) {
      send(out);
      return;
    }
    out
      .then(
        (text) => {
          if (!exchange.aborted) send(text);
        },
        (err: unknown) => {
          logger.error('http: handler failed', err);
          if (!exchange.aborted) send(INTERNAL_ERROR_BODY);
        },
      )
      .catch((err: unknown) => {
        logger.error('http: writing an answer failed', err);
        done();
      });
  }

  /**
   * Runs `handle` for one request. uWS terminates the process when a route handler returns without
   * answering or registering onAborted, so a failure here closes the connection instead.
   */
  function guarded(handle: (res: HttpResponse, req: HttpRequest) => void): (res: HttpResponse, req: HttpRequest) => void {
    return (res, req) => {
      try {
        handle(res, req);
      } catch (err) {
        logger.error('http: request failed', err);
        try {
          res.close();
        } catch {
          // The response was already answered or closed: nothing is left to release.
        }
      }
    };
  }

  /**
   * Answers a POST to `/v3/<key>`. Refusals are answered before the body is read (uWS skips a body
   * nobody reads and keeps the connection), except 413, answered once the body over the limit has
   * been read and dropped (body.ts), which closes the connection.
   */
  function onPost(res: HttpResponse, req: HttpRequest, key: string): void {
    const entry = begin(key);
    if (inFlight.closing) return refuse(res, SHUTTING_DOWN, entry, { close: true });
    if (key === '') return refuse(res, MISSING_KEY, entry);
    let denied: Reply | null;
    try {
      const status = auth(key);
      denied = status === 'valid' ? null : status === 'revoked' ? REVOKED_KEY : INVALID_KEY;
    } catch (err) {
      logger.error('http: API key check failed', err);
      denied = AUTH_FAILURE;
    }
    if (denied !== null) return refuse(res, denied, entry);
    if (!isJson(req.getHeader('content-type'))) return refuse(res, UNSUPPORTED_MEDIA_TYPE, entry);
    const announced = contentLength(req.getHeader('content-length'));
    if (announced > DISCARD_MAX_BYTES) return refuse(res, tooLarge, entry, { close: true });
    const budget = announced > limit ? undefined : opts.rateLimit?.budget(key);
    const limited = budget?.check(1);
    if (limited) return refuse(res, tooManyRequests(limited), entry);

    const exchange: Exchange = { aborted: false, answered: false, entry, key };
    const done = inFlight.enter();
    res.onAborted(() => {
      exchange.aborted = true;
      if (!exchange.answered) answered(CLIENT_CLOSED, entry);
      done();
    });
    readBody(res, announced, limit, {
      body: (bytes) => {
        const refused = budget?.take(callCount(bytes));
        if (!refused) return dispatch(res, exchange, bytes, done);
        exchange.answered = true;
        refuse(res, tooManyRequests(refused), entry, { close: inFlight.closing });
        done();
      },
      tooLarge: () => {
        exchange.answered = true;
        refuse(res, tooLarge, entry, { close: true });
        done();
      },
    });
  }

  /** Answers every request the `POST /v3/:key` route did not take. */
  function onOther(res: HttpResponse, req: HttpRequest): void {
    const method = req.getMethod().toLowerCase();
    const head = method === 'head';
    const target = route(req.getUrl());
    if (target === null) return refuse(res, NOT_FOUND, begin(''), { head });
    if (method === 'options') {
      const entry = begin('');
      answerPreflight(res, req.getHeader('access-control-request-headers'));
      return answered(204, entry);
    }
    if (method !== 'post') return refuse(res, METHOD_NOT_ALLOWED, begin(''), { head });
    onPost(res, req, target.key);
  }

  const app = uWS.App();
  app.post(`${API_ROOT}/:key`, guarded((res, req) => onPost(res, req, withoutQuery(req.getParameter(0)))));
  registerOpsRoutes(
    app,
    {
      ready: () => (inFlight.closing ? { ready: false, reason: 'shutting down' } : (opts.ops?.ready() ?? { ready: true })),
      metrics: opts.ops?.metrics,
    },
    guarded,
    (message, error) => logger.error(message, error),
  );
  const ws = opts.ws && new WsFront({ ...opts.ws, handler, auth, rateLimit: opts.rateLimit, logger, maxPayloadBytes: limit });
  ws?.register(app);
  app.any('/*', guarded(onOther));
  const { socket, port } = await listenOn(app, opts.host, opts.port, opts.sharePort === true);
  logger.debug(`http: listening on ${opts.host}:${port} (uWebSockets.js ${uwsImplementation})`);

  let listening = true;
  const refuseRequests = () => {
    inFlight.refuse();
    ws?.refuse();
    if (!listening) return;
    listening = false;
    uWS.us_listen_socket_close(socket);
  };
  let drained: Promise<number> | undefined;
  const drain = (graceMs: number): Promise<number> => {
    if (drained) return drained;
    refuseRequests();
    if (inFlight.size > 0) logger.info('http: draining requests in flight', { requests: inFlight.size, graceMs });
    drained = inFlight.drain(graceMs).then((cut) => {
      if (cut > 0) logger.warn('http: requests still unanswered after the grace period are cut off', { requests: cut, graceMs });
      return cut;
    });
    return drained;
  };
  let closed: Promise<number> | undefined;
  return {
    port,
    host: opts.host,
    refuse: refuseRequests,
    drain,
    close(graceMs = 0): Promise<number> {
      closed ??= drain(graceMs).then((cut) => {
        ws?.close();
        (app as { close?: () => void }).close?.();
        (socket as FallbackListenSocket).http?.closeAllConnections();
        return cut;
      });
      return closed;
    },
  };
}
