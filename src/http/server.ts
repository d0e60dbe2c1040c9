/**
 * The HTTP front (docs/architecture.md §1, docs/api.md §1): `POST /v3/<API_KEY>` with a JSON-RPC
 * body, answered by an RpcHandler, on uWebSockets.js. Each request's Accept-Encoding is read once,
 * in its route handler, and decides how its answer is coded (compress.ts, written by respond.ts);
 * each request gets its access log line once its response has ended (accessLog.ts).
 *
 * uWS answers keep-alive and pipelined requests on its own. Pipelining holds while each answer is
 * written before the next request is parsed (a handler that returns a string and a body that fits the
 * socket); uWS closes a connection whose client sends a request while an answer is still pending
 * (a promise, or a large answer still streaming), as it refuses to reorder answers.
 */
import { MAX_BODY_BYTES } from '../config.js';
import type { ByteBudget } from '../limits/byteBudget.js';
import type { RateLimiter } from '../limits/rateLimiter.js';
import type { LimitRefusals } from '../limits/refusals.js';
import { createLogger, type Logger } from '../logger.js';
import type { RefusalReason } from '../metrics/callStats.js';
import type { TooManyConcurrentError } from '../rpc/errors.js';
import type { RequestControl, RpcBody, RpcHandler } from '../rpc/handler.js';
import type { ApiKeyStatus } from '../store/apiKeys.js';
import { WsFront, type WsFrontOptions } from '../ws/wsFront.js';
import { type AccessEntry, AccessLog, type AccessLogMode, type PathKind } from './accessLog.js';
import { DISCARD_MAX_BYTES, readBody } from './body.js';
import { type AnswerCoding, AS_IS, Compression, type CompressionOptions } from './compress.js';
import { answerPreflight } from './cors.js';
import { InFlight, SHUTTING_DOWN } from './drain.js';
import { type OpsEndpoints, registerOpsRoutes } from './health.js';
import { type Listening, listenOn } from './listen.js';
import { HeadWaiters, MIN_HEAD_HEADER, parseMinHead } from './minHead.js';
import { callCount, tooManyConcurrent, tooManyRequests } from './rateLimit.js';
import {
  AUTH_FAILURE,
  behindHead,
  CONFLICTING_CONTENT_LENGTH,
  errorBody,
  INTERNAL_ERROR_BODY,
  INVALID_KEY,
  INVALID_MIN_HEAD,
  METHOD_NOT_ALLOWED,
  MISSING_KEY,
  NOT_FOUND,
  payloadTooLarge,
  REVOKED_KEY,
  type Reply,
  UNSUPPORTED_MEDIA_TYPE,
} from './replies.js';
import { CLIENT_CLOSED, type Delivery, type ReplyOptions, sendJson, sendReply } from './respond.js';
import { type HttpRequest, type HttpResponse, type TemplatedApp, uWS, uwsImplementation } from './uws.js';

/** The result of checking an API key: the store's own (src/store/apiKeys.ts, checkApiKey). */
export type AuthStatus = ApiKeyStatus;

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
  /** Where the front logs: failures, and the access log; JSON to stderr at info by default. */
  logger?: Logger;
  /** How answers are compressed (compress.ts); unset: never (the service sets it, on by default). */
  compression?: CompressionOptions;
  /** One info line per request (accessLog.ts); 'off' by default (the service sets it, 'on' by default). */
  accessLog?: AccessLogMode;
  /** Hears the status of every response to an API request (not the operations endpoints): the metrics. */
  onResponse?: (status: number) => void;
  /** Hears every request or message refused by a transport limit, by its reason (the metrics). */
  onRefusal?: (reason: RefusalReason) => void;
  /**
   * What /ready and /metrics report; without it /ready tells only whether the server is draining, and /metrics is not
   * served.
   */
  ops?: OpsEndpoints;
  /**
   * Bind the port shared (SO_REUSEPORT) with the apps of other threads listening on it, instead of
   * exclusively; the caller checks first that no other process holds it (claimablePort in listen.ts).
   */
  sharePort?: boolean;
  /** The X-Ethlogd-Head value of a request answered now (headHeader.ts); without it answers carry no head. */
  storeHead?: () => Buffer | undefined;
  /**
   * The store's head block now (undefined: no block); with it a request's X-Ethlogd-Min-Head is honoured (minHead.ts),
   * without it ignored.
   */
  readHead?: () => number | undefined;
  /** Longest a request waits for its X-Ethlogd-Min-Head (MIN_HEAD_WAIT_MS by default). */
  minHeadWaitMs?: number;
  /** Serve JSON-RPC over WebSocket on the same port (ws/wsFront.ts), with subscriptions fed by this store's head. */
  ws?: Pick<WsFrontOptions, 'reader' | 'maxParams' | 'pollMs' | 'connectionsPerKey' | 'sendBufferBytes'>;
  /**
   * What WebSocket `logs` subscriptions are charged to (bytes per key and in all, shared by the threads); none: only
   * their count is bounded.
   */
  subscriptionBudget?: ByteBudget;
  /** The refusal counters by reason (limits/refusals.ts), shared by the threads. */
  limitRefusals?: LimitRefusals;
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

/**
 * The request headers every API request reads, named as bytes: uWS takes bytes as they are, where a
 * string argument costs a UTF-8 conversion into a fresh allocation.
 */
const ACCEPT_ENCODING = Buffer.from('accept-encoding');
const CONTENT_TYPE = Buffer.from('content-type');
const CONTENT_LENGTH = Buffer.from('content-length');

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

/**
 * True when the request repeats Content-Length with another value. uWS frames the body by the first
 * one, so a proxy that framed it by another would have the rest of the body answered as a request
 * of its own (request smuggling; RFC 9112 §6.3 wants 400). Only forEach sees every header.
 */
function conflictingLength(req: HttpRequest, first: string): boolean {
  let conflict = false;
  req.forEach((name, value) => {
    if (name === 'content-length' && value !== first) conflict = true;
  });
  return conflict;
}

/** A request whose body is being read or answered. */
interface Exchange {
  /** The client went away. */
  aborted: boolean;
  /** An answer was sent (so a later abort is not counted as the client leaving first). */
  answered: boolean;
  entry: AccessEntry | undefined;
  /** The API key the request came with. */
  key: string;
  /** What the request accepts: its answer's coding. */
  coding: AnswerCoding;
  /** The answer on its way, once sent. */
  delivery: Delivery | undefined;
  /**
   * Aborted when the client goes away: its calls waiting or running stop (work follows its client); made when first
   * asked for.
   */
  abort: AbortController | undefined;
}

/**
 * What the front and the handler share about one exchange (RequestControl): a class, so every
 * request's control has one shape (an object literal with getters is slower to make and to read).
 */
class ExchangeControl implements RequestControl {
  busy: TooManyConcurrentError | undefined = undefined;

  constructor(private readonly exchange: Exchange) {}

  /** Made on first read: an AbortController costs about 2 µs, and only log queries ask for it. */
  get signal(): AbortSignal {
    const { exchange } = this;
    if (exchange.abort === undefined) {
      exchange.abort = new AbortController();
      if (exchange.aborted) exchange.abort.abort();
    }
    return exchange.abort.signal;
  }

  get gone(): boolean {
    return this.exchange.aborted;
  }
}

/** The numeric status of a fixed reply (its status line starts with it). */
function statusOf(reply: Reply): number {
  return Number.parseInt(reply.status, 10);
}

/**
 * What every request of one front reads, made once when the front starts: the request path's
 * functions take it in place of closing over the start's locals.
 */
interface Front {
  opts: HttpServerOptions;
  handler: RpcHandler;
  auth: (key: string) => AuthStatus;
  /** Largest request body in bytes. */
  limit: number;
  logger: Logger;
  /** The 413 reply to a body over `limit`. */
  tooLarge: Reply;
  inFlight: InFlight;
  compression: Compression | undefined;
  accessLog: AccessLog;
  /** The requests waiting for their X-Ethlogd-Min-Head; none without opts.readHead. */
  waiters: HeadWaiters | undefined;
}

/** The front of `opts`, its defaults applied. */
function createFront(opts: HttpServerOptions): Front {
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const logger = opts.logger ?? createLogger();
  return {
    opts,
    handler: opts.handler,
    auth: opts.auth,
    limit,
    logger,
    tooLarge: payloadTooLarge(limit),
    inFlight: new InFlight(),
    compression: opts.compression && new Compression(opts.compression),
    accessLog: new AccessLog(logger, opts.accessLog ?? 'off'),
    waiters: opts.readHead && new HeadWaiters(opts.readHead, opts.minHeadWaitMs),
  };
}

/** What the request accepts, from its Accept-Encoding (read while uWS's request is valid: in the route handler). */
function codingOf(front: Front, req: HttpRequest): AnswerCoding {
  return front.compression?.negotiate(req.getHeader(ACCEPT_ENCODING)) ?? AS_IS;
}

/** Counts a response to an API request by status, as it begins (the metrics). */
function count(front: Front, status: number): void {
  front.opts.onResponse?.(status);
}

/** Sends a fixed reply to an API request: counted, and logged once written. */
function refuse(
  front: Front,
  res: HttpResponse,
  reply: Reply,
  entry: AccessEntry | undefined,
  options: ReplyOptions,
): void {
  const { accessLog } = front;
  count(front, statusOf(reply));
  sendReply(res, reply, { ...options, storeHead: front.opts.storeHead?.(), onEnd: (end) => accessLog.end(entry, end) });
}

/**
 * Sends `text`, the handler's answer to `exchange` (or 429 when the handler found the key's calls
 * too many: `control.busy`), with `storeHead` as its X-Ethlogd-Head; calls `done` once it is written.
 */
function send(
  front: Front,
  res: HttpResponse,
  exchange: Exchange,
  control: ExchangeControl,
  text: RpcBody,
  storeHead: Buffer | undefined,
  done: () => void,
): void {
  const { accessLog, inFlight } = front;
  const { entry } = exchange;
  if (control.busy !== undefined) {
    exchange.answered = true;
    const answer = typeof text === 'string' ? text : errorBody(control.busy);
    refuse(front, res, tooManyConcurrent(control.busy, answer), entry, {
      close: inFlight.closing,
      coding: exchange.coding,
    });
    done();
    return;
  }
  exchange.answered = true;
  count(front, 200);
  exchange.delivery = sendJson(res, text, {
    close: inFlight.closing,
    coding: exchange.coding,
    storeHead,
    onEnd: (end) => {
      accessLog.end(entry, end);
      done();
    },
  });
}

/** Sends the answer of the handler to `body`, now or when its promise settles; calls `done` once it is written. */
function dispatch(front: Front, res: HttpResponse, exchange: Exchange, body: Uint8Array, done: () => void): void {
  const { logger } = front;
  // Read in the tick the handler starts in: the snapshot its calls read.
  const storeHead = front.opts.storeHead?.();
  const control = new ExchangeControl(exchange);
  let out: RpcBody | Promise<RpcBody>;
  try {
    out = front.handler.handle(body, exchange.entry?.trace, exchange.key, control);
  } catch (err) {
    logger.error('http: handler failed', err);
    send(front, res, exchange, control, INTERNAL_ERROR_BODY, storeHead, done);
    return;
  }
  if (!(out instanceof Promise)) {
    send(front, res, exchange, control, out, storeHead, done);
    return;
  }
  out
    .then(
      (text) => {
        if (!exchange.aborted) send(front, res, exchange, control, text, storeHead, done);
      },
      (err: unknown) => {
        logger.error('http: handler failed', err);
        if (!exchange.aborted) send(front, res, exchange, control, INTERNAL_ERROR_BODY, storeHead, done);
      },
    )
    .catch((err: unknown) => {
      logger.error('http: writing an answer failed', err);
      done();
    });
}

/**
 * Dispatches `body` once the store's head is at `floor`: now, or when the follow ingest gets there;
 * refuses with 503 (a balancer retries elsewhere) when the wait runs out. The body is copied first
 * when it has to wait: uWS reclaims a body handed over in place once its callback returns.
 */
function dispatchAtHead(
  front: Front,
  res: HttpResponse,
  exchange: Exchange,
  body: Uint8Array,
  floor: number,
  done: () => void,
): void {
  const { waiters } = front;
  if (waiters === undefined || waiters.reached(floor)) return dispatch(front, res, exchange, body, done);
  const kept = Buffer.from(body);
  waiters.wait(floor, (reached) => {
    if (exchange.aborted) return;
    if (reached) return dispatch(front, res, exchange, kept, done);
    exchange.answered = true;
    refuse(front, res, behindHead(floor, front.opts.readHead?.()), exchange.entry, {
      close: front.inFlight.closing,
      coding: exchange.coding,
    });
    done();
  });
}

/**
 * Answers 400 to a request whose Content-Length is repeated with another value, and closes the
 * connection: its framing is unknown. The answer waits for the next turn of the event loop: uWS
 * goes on parsing the bytes already received after a response ended in its handler (even one that
 * closes the connection), while with a response pending it closes the connection at the next
 * request instead, so bytes after the body are never served as a request of their own.
 */
function refuseConflict(front: Front, res: HttpResponse, req: HttpRequest): void {
  const { accessLog } = front;
  front.opts.onRefusal?.('content_length');
  const method = req.getMethod().toUpperCase();
  const target = route(req.getUrl());
  const entry = accessLog.begin(target === null ? 'not-found' : 'rpc', method, target?.key);
  const coding = codingOf(front, req);
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
    accessLog.end(entry, { status: CLIENT_CLOSED, bytes: 0, coding: null });
  });
  setImmediate(() => {
    if (!aborted) refuse(front, res, CONFLICTING_CONTENT_LENGTH, entry, { close: true, coding });
  });
}

/**
 * Runs `handle` for one request: a request whose Content-Length is repeated with another value
 * is refused first, whatever its route. uWS terminates the process when a route handler returns without
 * answering or registering onAborted, so a failure here closes the connection instead.
 */
function guarded(
  front: Front,
  handle: (res: HttpResponse, req: HttpRequest) => void,
): (res: HttpResponse, req: HttpRequest) => void {
  return (res, req) => {
    try {
      if (conflictingLength(req, req.getHeader(CONTENT_LENGTH))) return refuseConflict(front, res, req);
      handle(res, req);
    } catch (err) {
      front.logger.error('http: request failed', err);
      try {
        res.close();
      } catch {
        // The response was already answered or closed: nothing is left to release.
      }
    }
  };
}

/** The refusal of a request with API key `key` (not empty): null when the key is valid. */
function keyDenial(front: Front, key: string): Reply | null {
  try {
    const status = front.auth(key);
    return status === 'valid' ? null : status === 'revoked' ? REVOKED_KEY : INVALID_KEY;
  } catch (err) {
    front.logger.error('http: API key check failed', err);
    return AUTH_FAILURE;
  }
}

/** Ends `exchange` when its client goes away: its work stops, and it is counted and logged. */
function exchangeAborted(front: Front, exchange: Exchange, done: () => void): void {
  const { entry } = exchange;
  exchange.aborted = true;
  exchange.abort?.abort();
  const { delivery } = exchange;
  delivery?.stop();
  if (!exchange.answered) {
    count(front, CLIENT_CLOSED);
    front.accessLog.end(entry, { status: CLIENT_CLOSED, bytes: 0, coding: null });
  } else {
    const end = { status: 200, bytes: delivery?.bytes ?? 0, coding: delivery?.coding ?? null };
    front.accessLog.end(entry, end, true);
  }
  done();
}

/**
 * Answers a POST to `/v3/<key>`. Refusals are answered before the body is read (uWS skips a body
 * nobody reads and keeps the connection), 413 for an announced length over the limit included;
 * a chunked body that grows past the limit is read and dropped to its end (body.ts), then 413
 * closes the connection. A repeated Content-Length with another value is 400 and closes it.
 */
function onPost(front: Front, res: HttpResponse, req: HttpRequest, key: string): void {
  const { inFlight, limit, opts } = front;
  const entry = front.accessLog.begin('rpc', 'POST', key);
  const coding = codingOf(front, req);
  if (inFlight.closing) return refuse(front, res, SHUTTING_DOWN, entry, { close: true, coding });
  if (key === '') return refuse(front, res, MISSING_KEY, entry, { coding });
  const denied = keyDenial(front, key);
  if (denied !== null) return refuse(front, res, denied, entry, { coding });
  if (!isJson(req.getHeader(CONTENT_TYPE))) return refuse(front, res, UNSUPPORTED_MEDIA_TYPE, entry, { coding });
  const floor = front.waiters && parseMinHead(req.getHeader(MIN_HEAD_HEADER));
  if (floor === null) return refuse(front, res, INVALID_MIN_HEAD, entry, { coding });
  const announced = contentLength(req.getHeader(CONTENT_LENGTH));
  if (announced > limit) {
    // Answered at once: uWS skips the body nobody reads (the connection stays usable for a client
    // that sends it all), and one past DISCARD_MAX_BYTES closes the connection unread.
    opts.onRefusal?.('body_too_large');
    const close = announced > DISCARD_MAX_BYTES || inFlight.closing;
    return refuse(front, res, front.tooLarge, entry, { close, coding });
  }
  const budget = opts.rateLimit?.budget(key);
  // A key out of tokens is refused once its body is read: each call's error carries its id.
  const limited = budget?.check(1);

  const exchange: Exchange = {
    aborted: false,
    answered: false,
    entry,
    key,
    coding,
    delivery: undefined,
    abort: undefined,
  };
  const done = inFlight.enter();
  res.onAborted(() => exchangeAborted(front, exchange, done));
  readBody(res, announced, limit, {
    body: (bytes) => {
      if (entry) entry.bytesIn = bytes.byteLength;
      const refused = limited ?? budget?.take(callCount(bytes));
      if (!refused)
        return floor === undefined
          ? dispatch(front, res, exchange, bytes, done)
          : dispatchAtHead(front, res, exchange, bytes, floor, done);
      exchange.answered = true;
      refuse(front, res, tooManyRequests(refused, bytes), entry, { close: inFlight.closing, coding });
      done();
    },
    tooLarge: (received) => {
      opts.onRefusal?.('body_too_large');
      if (entry) entry.bytesIn = received;
      exchange.answered = true;
      refuse(front, res, front.tooLarge, entry, { close: true, coding });
      done();
    },
  });
}

/** Answers every request the `POST /v3/:key` route did not take. */
function onOther(front: Front, res: HttpResponse, req: HttpRequest): void {
  const { accessLog } = front;
  const method = req.getMethod().toLowerCase();
  const head = method === 'head';
  const target = route(req.getUrl());
  if (target === null)
    return refuse(front, res, NOT_FOUND, accessLog.begin('not-found', method.toUpperCase()), {
      head,
      coding: codingOf(front, req),
    });
  if (method === 'post') return onPost(front, res, req, target.key);
  const entry = accessLog.begin('rpc', method.toUpperCase(), target.key);
  if (method !== 'options')
    return refuse(front, res, METHOD_NOT_ALLOWED, entry, { head, coding: codingOf(front, req) });
  answerPreflight(res, req.getHeader('access-control-request-headers'));
  count(front, 204);
  accessLog.end(entry, { status: 204, bytes: 0, coding: null });
}

/** The reply options of a request to an operations path of `kind`: its coding, and its log line once answered. */
function opsRequest(front: Front, req: HttpRequest, kind: PathKind): ReplyOptions {
  const { accessLog } = front;
  const method = req.getMethod().toUpperCase();
  const entry = accessLog.begin(kind, method);
  return { head: method === 'HEAD', coding: codingOf(front, req), onEnd: (end) => accessLog.end(entry, end) };
}

/** Registers every route of `front` on `app`: the API, the operations paths, WebSocket when asked for, the rest. */
function registerRoutes(front: Front, app: TemplatedApp): WsFront | undefined {
  const { opts, inFlight, logger } = front;
  app.post(
    `${API_ROOT}/:key`,
    guarded(front, (res, req) => onPost(front, res, req, withoutQuery(req.getParameter(0)))),
  );
  registerOpsRoutes(
    app,
    {
      ready: () =>
        inFlight.closing ? { ready: false, reason: 'shutting down' } : (opts.ops?.ready() ?? { ready: true }),
      metrics: opts.ops?.metrics,
    },
    {
      guard: (handle) => guarded(front, handle),
      begin: (req, kind) => opsRequest(front, req, kind),
      onError: (message, error) => logger.error(message, error),
    },
  );
  const ws =
    opts.ws &&
    new WsFront({
      ...opts.ws,
      handler: front.handler,
      auth: front.auth,
      rateLimit: opts.rateLimit,
      logger,
      accessLog: front.accessLog,
      maxPayloadBytes: front.limit,
      inFlight,
      onRefusal: opts.onRefusal,
      subscriptionBudget: opts.subscriptionBudget,
      limitRefusals: opts.limitRefusals,
    });
  ws?.register(app);
  app.any(
    '/*',
    guarded(front, (res, req) => onOther(front, res, req)),
  );
  return ws;
}

/** The listening front `front`: `app` with its routes, `ws` on it when asked for, bound at `listening`. */
function listeningServer(
  front: Front,
  app: TemplatedApp,
  ws: WsFront | undefined,
  { socket, port }: Listening,
): HttpServer {
  const { inFlight, logger, opts } = front;
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
      if (cut > 0)
        logger.warn('http: requests still unanswered after the grace period are cut off', { requests: cut, graceMs });
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
        front.waiters?.close();
        ws?.close();
        (app as { close?: () => void }).close?.();
        (socket as FallbackListenSocket).http?.closeAllConnections();
        return cut;
      });
      return closed;
    },
  };
}

/** Starts the HTTP front and resolves once it listens. */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const front = createFront(opts);
  const app = uWS.App();
  const ws = registerRoutes(front, app);
  const listening = await listenOn(app, opts.host, opts.port, opts.sharePort === true);
  front.logger.debug(`http: listening on ${opts.host}:${listening.port} (uWebSockets.js ${uwsImplementation})`);
  return listeningServer(front, app, ws, listening);
}
