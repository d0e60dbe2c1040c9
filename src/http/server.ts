/**
 * The HTTP front (DESIGN.md §1, §5): `POST /v3/<API_KEY>` with a JSON-RPC body, answered by an
 * RpcHandler, on uWebSockets.js.
 *
 * uWS answers keep-alive and pipelined requests on its own. Pipelining holds while each answer is
 * written before the next request is parsed (a handler that returns a string and a body that fits the
 * socket); uWS closes a connection whose client sends a request while an answer is still pending
 * (a promise, or a large answer still streaming), as it refuses to reorder answers.
 */
import { MAX_BODY_BYTES } from '../config.js';
import type { RpcBody, RpcHandler } from '../rpc/handler.js';
import { readBody } from './body.js';
import { answerPreflight } from './cors.js';
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
import { sendJson, sendReply } from './respond.js';
import { uWS, uwsImplementation, type HttpRequest, type HttpResponse, type us_listen_socket, type us_socket } from './uws.js';

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
  /** Receives log lines; stderr by default. */
  log?: (line: string) => void;
}

/** A listening HTTP front. */
export interface HttpServer {
  /** The port actually bound. */
  port: number;
  /** The address bound. */
  host: string;
  /** Stops listening and closes every open connection. */
  close(): void;
}

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: without it a busy port is shared (SO_REUSEPORT), not refused. */
const LISTEN_EXCLUSIVE_PORT = 1;

/** The prefix of every API path. */
const API_ROOT = '/v3';

/** What a path names: the API with a key ('' when missing), or nothing we serve. */
type Route = { key: string } | null;

/** The `listen(host, port, options, cb)` overload, which uWS has but its typings lack. */
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => void;

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

/** A message for `err`, with its stack when it has one. */
function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Starts the HTTP front and resolves once it listens. */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const { handler, auth } = opts;
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const tooLarge = payloadTooLarge(limit);

  /** Sends the answer of `handler` to `body`, now or when its promise settles. */
  function dispatch(res: HttpResponse, exchange: { aborted: boolean }, body: Uint8Array): void {
    let out: RpcBody | Promise<RpcBody>;
    try {
      out = handler.handle(body);
    } catch (err) {
      log(`http: handler failed: ${describe(err)}`);
      sendJson(res, INTERNAL_ERROR_BODY);
      return;
    }
    if (!(out instanceof Promise)) {
      sendJson(res, out);
      return;
    }
    out
      .then(
        (text) => {
          if (!exchange.aborted) sendJson(res, text);
        },
        (err: unknown) => {
          log(`http: handler failed: ${describe(err)}`);
          if (!exchange.aborted) sendJson(res, INTERNAL_ERROR_BODY);
        },
      )
      .catch((err: unknown) => log(`http: writing an answer failed: ${describe(err)}`));
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
        log(`http: request failed: ${describe(err)}`);
        try {
          res.close();
        } catch {
          // The response was already answered or closed: nothing is left to release.
        }
      }
    };
  }

  /**
   * Answers a POST to `/v3/<key>`. Refusals are answered before the body is read; uWS skips a body
   * nobody reads and keeps the connection, except after 413, which closes it.
   */
  function onPost(res: HttpResponse, req: HttpRequest, key: string): void {
    if (key === '') return sendReply(res, MISSING_KEY);
    let denied: Reply | null;
    try {
      const status = auth(key);
      denied = status === 'valid' ? null : status === 'revoked' ? REVOKED_KEY : INVALID_KEY;
    } catch (err) {
      log(`http: API key check failed: ${describe(err)}`);
      denied = AUTH_FAILURE;
    }
    if (denied !== null) return sendReply(res, denied);
    if (!isJson(req.getHeader('content-type'))) return sendReply(res, UNSUPPORTED_MEDIA_TYPE);
    const announced = contentLength(req.getHeader('content-length'));
    if (announced > limit) return sendReply(res, tooLarge, { close: true });

    const exchange = { aborted: false };
    res.onAborted(() => {
      exchange.aborted = true;
    });
    readBody(res, announced, limit, {
      body: (bytes) => dispatch(res, exchange, bytes),
      tooLarge: () => sendReply(res, tooLarge, { close: true }),
    });
  }

  /** Answers every request the `POST /v3/:key` route did not take. */
  function onOther(res: HttpResponse, req: HttpRequest): void {
    const method = req.getMethod().toLowerCase();
    const head = method === 'head';
    const target = route(req.getUrl());
    if (target === null) return sendReply(res, NOT_FOUND, { head });
    if (method === 'options') return answerPreflight(res, req.getHeader('access-control-request-headers'));
    if (method !== 'post') return sendReply(res, METHOD_NOT_ALLOWED, { head });
    onPost(res, req, target.key);
  }

  const app = uWS.App();
  app.post(`${API_ROOT}/:key`, guarded((res, req) => onPost(res, req, withoutQuery(req.getParameter(0)))));
  app.any('/*', guarded(onOther));
  const listen = app.listen.bind(app) as unknown as ListenWithOptions;
  const socket = await new Promise<us_listen_socket>((resolve, reject) => {
    listen(opts.host, opts.port, LISTEN_EXCLUSIVE_PORT, (ls) => {
      if (ls) resolve(ls);
      else reject(new Error(`http: cannot listen on ${opts.host}:${opts.port}`));
    });
  });
  const port = uWS.us_socket_local_port(socket as us_socket);
  log(`http: listening on ${opts.host}:${port} (uWebSockets.js ${uwsImplementation})`);

  let closed = false;
  return {
    port,
    host: opts.host,
    close(): void {
      if (closed) return;
      closed = true;
      uWS.us_listen_socket_close(socket);
      (app as { close?: () => void }).close?.();
      (socket as FallbackListenSocket).http?.closeAllConnections();
    },
  };
}
