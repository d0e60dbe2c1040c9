/**
 * Writes responses: fixed replies, and JSON answers that stream out with backpressure once they are
 * larger than what is worth copying into uWS's own buffer.
 */
import { writeCorsOrigin } from './cors.js';
import type { RpcBody } from '../rpc/handler.js';
import type { Reply } from './replies.js';
import type { HttpResponse } from './uws.js';
import { uwsNative } from './uws.js';

/**
 * Answers up to this many UTF-16 units are handed to `res.end`, which copies whatever the socket does
 * not take at once into uWS's buffer (at most ~3× this in bytes per connection). Larger answers are
 * encoded once and written with tryEnd/onWritable, so a slow reader holds only our one copy.
 */
const STREAM_THRESHOLD_CHARS = 64 * 1024;

/** Options of a fixed reply. */
export interface ReplyOptions {
  /** The request was HEAD: send the headers and Content-Length, no body. */
  head?: boolean;
  /** Close the connection after the reply (a body we refuse to read is still coming); not with head. */
  close?: boolean;
}

/** Writes the headers every JSON response carries. */
function writeJsonHeaders(res: HttpResponse): void {
  res.writeHeader('Content-Type', 'application/json');
  writeCorsOrigin(res);
}

/**
 * Ends a HEAD answer: uWS 20.30 would send a body after HEAD with `end`, and does not count
 * `endWithoutBody(length)` (or any call with arguments) as an answer, so the length goes out as a
 * plain header.
 */
function endHead(res: HttpResponse, length: number): void {
  res.writeHeader('Content-Length', String(length));
  res.endWithoutBody();
}

/** Sends `reply` (status, extra headers, JSON body) and ends the response. */
export function sendReply(res: HttpResponse, reply: Reply, options: ReplyOptions = {}): void {
  res.cork(() => {
    res.writeStatus(reply.status);
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
    writeJsonHeaders(res);
    if (!uwsNative) res.end(reply.body);
    else if (options.head) endHead(res, Buffer.byteLength(reply.body));
    else res.end(reply.body, options.close);
  });
}

/** Options of a JSON answer. */
export interface JsonOptions {
  /** Close the connection after the answer (the server is draining). */
  close?: boolean;
  /** Called once the whole answer is handed to the socket (not when the client goes away first). */
  onSent?: () => void;
}

/**
 * Sends a text `body` with `status`, `contentType` and extra `headers` (the operations endpoints:
 * health, readiness, metrics), without the JSON-RPC answers' CORS header; HEAD gets the headers alone.
 */
export function sendText(res: HttpResponse, status: string, contentType: string, body: string, options: ReplyOptions & { headers?: ReadonlyArray<readonly [string, string]> } = {}): void {
  res.cork(() => {
    res.writeStatus(status);
    res.writeHeader('Content-Type', contentType);
    for (const [name, value] of options.headers ?? []) res.writeHeader(name, value);
    if (!uwsNative) res.end(body);
    else if (options.head) endHead(res, Buffer.byteLength(body));
    else res.end(body);
  });
}

/** Sends `body` (text or UTF-8 bytes) as a 200 JSON answer; large bodies stream out as the client reads them. */
export function sendJson(res: HttpResponse, body: RpcBody, options: JsonOptions = {}): void {
  if (body.length <= STREAM_THRESHOLD_CHARS || !uwsNative) {
    res.cork(() => {
      writeJsonHeaders(res);
      if (uwsNative) res.end(body, options.close);
      else res.end(body);
    });
    options.onSent?.();
    return;
  }
  streamBytes(res, typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength), options);
}

/**
 * Writes `bytes` with tryEnd; what the socket does not take now is written from onWritable, from the
 * offset uWS reports (uWebSockets.js's VideoStreamer pattern). Once the response is aborted uWS calls
 * neither handler again, and the bytes are released with the closure. tryEnd cannot close the
 * connection, so a draining server says `Connection: close` in a header and the client closes it.
 */
function streamBytes(res: HttpResponse, bytes: Buffer, options: JsonOptions): void {
  const total = bytes.length;
  let base = 0;
  let done = false;
  res.cork(() => {
    writeJsonHeaders(res);
    if (options.close) res.writeHeader('Connection', 'close');
    base = res.getWriteOffset();
    done = res.tryEnd(bytes, total)[1];
  });
  if (done) {
    options.onSent?.();
    return;
  }
  res.onWritable((offset) => {
    const [ok, finished] = res.tryEnd(bytes.subarray(offset - base), total);
    if (finished) options.onSent?.();
    return ok;
  });
}
