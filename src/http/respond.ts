/**
 * Writes responses: fixed replies, operations text and JSON answers, each compressed when its
 * request's AnswerCoding says so (compress.ts). Answers larger than what is worth copying into uWS's
 * own buffer stream out with backpressure: as they are with tryEnd and a Content-Length, or
 * compressed on the way in chunked transfer encoding.
 */
import type { Transform } from 'node:stream';
import { type FlatBody, JsonParts, type RpcBody } from '../rpc/handler.js';
import type { AnswerCoding, ContentCoding } from './compress.js';
import { writeCorsOrigin } from './cors.js';
import { HEAD_HEADER_NAME } from './headHeader.js';
import type { Reply } from './replies.js';
import type { HttpResponse } from './uws.js';
import { uwsNative } from './uws.js';

/**
 * Answers up to this many UTF-16 units are handed to `res.end`, which copies whatever the socket does
 * not take at once into uWS's buffer (at most ~3× this in bytes per connection). Larger answers are
 * encoded once and written with tryEnd/onWritable, so a slow reader holds only our one copy; or,
 * compressed, streamed from the compressor, which waits while the client does not read.
 */
const STREAM_THRESHOLD_CHARS = 64 * 1024;

/** Status of a client that went away before its answer was sent (nginx's convention), for metrics and logs. */
export const CLIENT_CLOSED = 499;

/** How a response ended: its status, the body bytes handed to the socket (after compression) and the coding applied. */
export interface ResponseEnd {
  status: number;
  bytes: number;
  coding: ContentCoding | null;
}

/** Options of a fixed reply or an operations answer. */
export interface ReplyOptions {
  /** The request was HEAD: send the headers and Content-Length, no body. */
  head?: boolean;
  /** Close the connection after the reply (a body we refuse to read is still coming); not with head. */
  close?: boolean;
  /** What the request accepts (compress.ts); without it the body goes out as it is, without Vary. */
  coding?: AnswerCoding;
  /** The X-Ethlogd-Head value of a JSON-RPC reply (headHeader.ts); none on the operations answers. */
  storeHead?: Buffer;
  /** Hears how the response ended, once it is handed to the socket. */
  onEnd?: (end: ResponseEnd) => void;
}

/** Options of a JSON answer. */
export interface JsonOptions {
  /** Close the connection after the answer (the server is draining). */
  close?: boolean;
  /** What the request accepts (compress.ts); without it the answer goes out as it is, without Vary. */
  coding?: AnswerCoding;
  /** The X-Ethlogd-Head value: the head of the snapshot the calls were answered from (headHeader.ts). */
  storeHead?: Buffer;
  /** Called once the whole answer is handed to the socket (not when the client goes away first). */
  onEnd?: (end: ResponseEnd) => void;
}

/**
 * An answer on its way: the body bytes handed to the socket so far, its coding, and how to stop it when its client goes
 * away.
 */
export interface Delivery {
  readonly bytes: number;
  readonly coding: ContentCoding | null;
  /** Stops writing (the response was aborted: it must not be touched again) and releases what it holds. */
  stop(): void;
}

/** A body to write, as it is or compressed, with its byte length. */
interface Encoded {
  body: FlatBody;
  bytes: number;
  coding: ContentCoding | null;
}

/** The numeric status of a status line. */
function statusCode(status: string): number {
  return Number.parseInt(status, 10);
}

/** `body` as bytes (a view, not a copy, of bytes). */
function toBuffer(body: FlatBody): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The byte length of `body`. */
function byteLength(body: FlatBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

/** `body` compressed with `chosen` (one of `coding`'s choices), or as it is when null. */
function encodeWith(body: FlatBody, coding: AnswerCoding | undefined, chosen: ContentCoding | null): Encoded {
  if (chosen === null) return { body, bytes: byteLength(body), coding: null };
  const compressed = coding!.compress(chosen, toBuffer(body));
  return { body: compressed, bytes: compressed.length, coding: chosen };
}

/**
 * `body` compressed when `coding` chooses a coding for its size (its length: UTF-16 units of text, the bytes of these
 * ASCII answers), else as it is.
 */
function encode(body: FlatBody, coding: AnswerCoding | undefined): Encoded {
  return encodeWith(body, coding, coding?.choose(body.length) ?? null);
}

/**
 * Header names and values every JSON answer carries, as bytes: uWS takes bytes as they are, where
 * each string argument costs a UTF-8 conversion into a fresh allocation (4k instructions a request).
 */
const CONTENT_TYPE = Buffer.from('Content-Type');
const APPLICATION_JSON = Buffer.from('application/json');
const VARY = Buffer.from('Vary');
const ACCEPT_ENCODING = Buffer.from('Accept-Encoding');

/** Writes the headers every JSON response carries, X-Ethlogd-Head with them when the store has a head. */
function writeJsonHeaders(res: HttpResponse, storeHead: Buffer | undefined): void {
  res.writeHeader(CONTENT_TYPE, APPLICATION_JSON);
  if (storeHead !== undefined) res.writeHeader(HEAD_HEADER_NAME, storeHead);
  writeCorsOrigin(res);
}

/** Writes Content-Encoding when the body is coded, and Vary when it could have been coded otherwise. */
function writeCodingHeaders(res: HttpResponse, coding: AnswerCoding | undefined, applied: ContentCoding | null): void {
  if (applied !== null) res.writeHeader('Content-Encoding', applied);
  if (coding?.vary) res.writeHeader(VARY, ACCEPT_ENCODING);
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

/** Ends the response with `encoded` (headers written), or with its headers alone for HEAD. */
function endWith(res: HttpResponse, encoded: Encoded, options: ReplyOptions): void {
  if (!uwsNative) res.end(encoded.body);
  else if (options.head) endHead(res, encoded.bytes);
  else res.end(encoded.body, options.close);
}

/** Sends `reply` (status, extra headers, JSON body) and ends the response. */
export function sendReply(res: HttpResponse, reply: Reply, options: ReplyOptions = {}): void {
  const encoded = encode(reply.body, options.coding);
  res.cork(() => {
    res.writeStatus(reply.status);
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
    writeJsonHeaders(res, options.storeHead);
    writeCodingHeaders(res, options.coding, encoded.coding);
    endWith(res, encoded, options);
  });
  options.onEnd?.({
    status: statusCode(reply.status),
    bytes: options.head ? 0 : encoded.bytes,
    coding: encoded.coding,
  });
}

/**
 * Sends a text `body` with `status`, `contentType` and extra `headers` (the operations endpoints:
 * health, readiness, metrics), without the JSON-RPC answers' CORS header; HEAD gets the headers alone.
 */
export function sendText(
  res: HttpResponse,
  status: string,
  contentType: string,
  body: string,
  options: ReplyOptions & { headers?: ReadonlyArray<readonly [string, string]> } = {},
): void {
  const encoded = encode(body, options.coding);
  res.cork(() => {
    res.writeStatus(status);
    res.writeHeader('Content-Type', contentType);
    for (const [name, value] of options.headers ?? []) res.writeHeader(name, value);
    writeCodingHeaders(res, options.coding, encoded.coding);
    endWith(res, encoded, options);
  });
  options.onEnd?.({ status: statusCode(status), bytes: options.head ? 0 : encoded.bytes, coding: encoded.coding });
}

/** An answer written whole: nothing is left to stop. */
function delivered(bytes: number, coding: ContentCoding | null): Delivery {
  return { bytes, coding, stop: () => undefined };
}

/**
 * Sends `body` (text or UTF-8 bytes) as a 200 JSON answer, compressed when its request accepts that
 * at its size; large bodies stream out as the client reads them. Returns the delivery, which the
 * caller stops when the client goes away.
 */
export function sendJson(res: HttpResponse, body: RpcBody, options: JsonOptions = {}): Delivery {
  const { coding } = options;
  const chosen = coding?.choose(body.length) ?? null;
  if (body instanceof JsonParts) {
    // Parts go out one after the other, unless compressed (the compressor takes the body whole) or without uWS.
    if (chosen === null && uwsNative) return streamParts(res, body.parts, body.length, options, () => body.release());
    return sendJson(res, body.join(), options);
  }
  if (body.length <= STREAM_THRESHOLD_CHARS || !uwsNative) {
    const encoded = encodeWith(body, coding, chosen);
    res.cork(() => {
      writeJsonHeaders(res, options.storeHead);
      writeCodingHeaders(res, coding, encoded.coding);
      if (uwsNative) res.end(encoded.body, options.close);
      else res.end(encoded.body);
    });
    options.onEnd?.({ status: 200, bytes: encoded.bytes, coding: encoded.coding });
    return delivered(encoded.bytes, encoded.coding);
  }
  const bytes = toBuffer(body);
  if (chosen === null) return streamParts(res, [bytes], bytes.length, options);
  return streamCompressed(res, bytes, coding!.compressor(chosen, bytes.length), chosen, options);
}

/**
 * Writes the headers of a streamed answer: JSON, its coding, and `Connection: close` when draining (tryEnd and write
 * cannot close).
 */
function writeStreamHeaders(res: HttpResponse, options: JsonOptions, applied: ContentCoding | null): void {
  writeJsonHeaders(res, options.storeHead);
  writeCodingHeaders(res, options.coding, applied);
  if (options.close) res.writeHeader('Connection', 'close');
}

/**
 * Writes `parts` (`total` bytes) with tryEnd, one after the other under one Content-Length; what
 * the socket does not take now is written from onWritable, from the offset uWS reports
 * (uWebSockets.js's VideoStreamer pattern), so nothing is copied into memory of ours. `release`
 * is called once uWS holds them all, or the response was aborted (stop()): uWS calls neither
 * handler again.
 */
function streamParts(
  res: HttpResponse,
  parts: readonly Uint8Array[],
  total: number,
  options: JsonOptions,
  release?: () => void,
): Delivery {
  let base = 0;
  let written = 0;
  let done = false;
  const end = () => {
    release?.();
    options.onEnd?.({ status: 200, bytes: total, coding: null });
  };
  /**
   * Writes the parts from byte `from` of the body on, until the socket pushes back; whether it took all it was given.
   */
  const writeFrom = (from: number): boolean => {
    let ok = true;
    let start = 0;
    for (const part of parts) {
      const next = start + part.byteLength;
      if (next > from) {
        [ok, done] = res.tryEnd(from > start ? part.subarray(from - start) : part, total);
        if (!ok || done) break;
        from = next;
      }
      start = next;
    }
    written = done ? total : res.getWriteOffset() - base;
    return ok;
  };
  res.cork(() => {
    writeStreamHeaders(res, options, null);
    base = res.getWriteOffset();
    writeFrom(0);
  });
  if (done) {
    end();
    return delivered(total, null);
  }
  res.onWritable((offset) => {
    const ok = writeFrom(offset - base);
    if (done) end();
    return ok;
  });
  return {
    get bytes() {
      return written;
    },
    coding: null,
    // The client went away: uWS calls neither handler again, so nothing reads the parts.
    stop: () => release?.(),
  };
}

/**
 * Streams `input` through `compressor` in chunked transfer encoding: each compressed chunk is
 * written as it comes while the socket takes it; once uWS holds a chunk back (the client reads
 * slower) no more is read from the compressor, which then stops compressing once its own 64 KiB
 * buffer is full (zlib streams keep backpressure), until onWritable says the socket drained. So a
 * slow reader holds the answer and a chunk or two, and the compression runs on libuv's thread pool,
 * not on this thread. stop() (the client left) destroys the compressor; a compressor failure closes
 * the connection, which the client sees as a truncated answer.
 */
function streamCompressed(
  res: HttpResponse,
  input: Buffer,
  compressor: Transform,
  coding: ContentCoding,
  options: JsonOptions,
): Delivery {
  let stopped = false;
  let started = false;
  let waiting = false;
  let written = 0;
  /** Writes the headers before the first chunk. */
  const begin = () => {
    if (started) return;
    started = true;
    writeStreamHeaders(res, options, coding);
  };
  /** Writes the chunks the compressor holds until there are none or the socket pushes back. */
  const pump = () => {
    begin();
    for (let chunk = compressor.read() as Buffer | null; chunk !== null; chunk = compressor.read() as Buffer | null) {
      written += chunk.length;
      if (!res.write(chunk)) {
        waiting = true;
        return;
      }
    }
  };
  compressor.on('readable', () => {
    if (!stopped && !waiting) res.cork(pump);
  });
  compressor.once('end', () => {
    if (stopped) return;
    stopped = true;
    res.cork(() => {
      begin();
      res.end();
    });
    options.onEnd?.({ status: 200, bytes: written, coding });
  });
  compressor.once('error', () => {
    if (stopped) return;
    stopped = true;
    res.close();
  });
  res.onWritable(() => {
    if (stopped) return true;
    waiting = false;
    pump();
    return true;
  });
  compressor.end(input);
  return {
    get bytes() {
      return written;
    },
    coding,
    stop: () => {
      stopped = true;
      compressor.destroy();
    },
  };
}
