/**
 * The rate limit on the HTTP front: what a request body costs (its JSON-RPC calls, counted without
 * parsing), and the answer of a refused request (docs/api.md §6): each call's error with its own
 * id, an array of them for a batch (refused whole: no call runs), as clients match answers by id.
 */
import { MAX_BATCH_ITEMS } from '../config.js';
import type { RateRefusal } from '../limits/rateLimiter.js';
import { RateLimitedError, type TooManyConcurrentError } from '../rpc/errors.js';
import { errorBody, type Reply } from './replies.js';

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** True for JSON's insignificant whitespace. */
function isSpace(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

/** The index of the quote closing the string opened at `open`, or body.length when unterminated. */
function stringEnd(body: Uint8Array, open: number): number {
  let end = open;
  for (;;) {
    end = body.indexOf(QUOTE, end + 1);
    if (end === -1) return body.length;
    let slashes = 0;
    while (body[end - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

/**
 * The calls a request body costs: the items of a batch (a top-level JSON array), else 1. A batch
 * that runs no call (empty, or over MAX_BATCH_ITEMS, which the dispatcher refuses whole) costs 1,
 * like any request. One pass over the bytes, counting items at depth one and skipping strings by
 * native search; a malformed body costs what its top level looks like (it gets a parse error).
 */
export function callCount(body: Uint8Array): number {
  let i = 0;
  while (i < body.length && isSpace(body[i]!)) i++;
  if (body[i] !== OPEN_ARRAY) return 1;
  let depth = 1;
  let items = 0;
  let item = false;
  for (i++; i < body.length && depth > 0; i++) {
    const c = body[i]!;
    if (isSpace(c)) continue;
    if (depth === 1 && c === CLOSE_ARRAY) break;
    if (depth === 1 && c === COMMA) {
      item = false;
      continue;
    }
    if (depth === 1 && !item) {
      item = true;
      if (++items > MAX_BATCH_ITEMS) return 1;
    }
    if (c === QUOTE) i = stringEnd(body, i);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return Math.max(1, items);
}

/** A request's id as its answer echoes it: a string, a number or null (anything else is not an id). */
function idOf(item: unknown): unknown {
  const id = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The JSON-RPC body refusing `body` with `refusal`: the call's error with its id, or for a batch
 * an array of them, one per item with its id. A body that is not JSON, an empty batch and one
 * over MAX_BATCH_ITEMS get one error with id null (they would get one error anyway).
 */
export function refusedBody(refusal: RateRefusal, body: Uint8Array): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return errorBody(refusal);
  }
  const error = refusal.toJSON();
  if (!Array.isArray(parsed)) return JSON.stringify({ jsonrpc: '2.0', id: idOf(parsed), error });
  if (parsed.length === 0 || parsed.length > MAX_BATCH_ITEMS) return errorBody(refusal);
  return JSON.stringify(parsed.map((item) => ({ jsonrpc: '2.0', id: idOf(item), error })));
}

/**
 * The 429 reply refusing `body`: with `Retry-After` (whole seconds, rounded up) when waiting
 * helps, without it for a batch larger than the burst, which no wait admits.
 */
export function tooManyRequests(refusal: RateRefusal, body: Uint8Array): Reply {
  const headers: [string, string][] =
    refusal instanceof RateLimitedError
      ? [['Retry-After', String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)))]]
      : [];
  return { status: '429 Too Many Requests', body: refusedBody(refusal, body), headers };
}

/**
 * The 429 reply of a single call refused for concurrency (limits/admission.ts), as a rate-limited
 * call is answered: `answer`, the call's error with its id, and `Retry-After` in whole seconds.
 */
export function tooManyConcurrent(refusal: TooManyConcurrentError, answer: string): Reply {
  return {
    status: '429 Too Many Requests',
    body: answer,
    headers: [['Retry-After', String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)))]],
  };
}
