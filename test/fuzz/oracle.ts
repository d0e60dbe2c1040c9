/**
 * What the service must answer to a fuzzed exchange (docs/api.md §7 and its decisions, §8): the
 * HTTP status the path, method, key, Content-Type and size call for; for a refusal a JSON-RPC error
 * body with id null; for 200 a well-formed JSON-RPC response, or a batch array with one response per
 * item in order — each with jsonrpc "2.0", the request's id, and exactly one of result or error (an
 * integer code and a string message) — and never -32603, which bad input must not cause.
 */
import { MAX_BATCH_ITEMS, MAX_BODY_BYTES, MAX_JSON_DEPTH } from '#src/config.js';
import type { FuzzExchange, FuzzKeys } from './exchanges.js';
import { SERVED_METHODS } from './requests.js';

/** An answer as received. */
export interface HttpAnswer {
  status: number;
  body: Buffer;
}

/** The API's path prefix (src/http/server.ts). */
const API_ROOT = '/v3';

/**
 * Codes a JSON-RPC error may carry for bad input (docs/api.md §7), 4100 for a refused key; -32603 is an unexpected
 * failure, a bug.
 */
const INPUT_ERROR_CODES = new Set([-32700, -32600, -32601, -32602, -32005, -32000, 4100]);

/** The key a path names ('' for /v3 and /v3/), or null for a path outside the API. */
function routeKey(path: string): string | null {
  const q = path.indexOf('?');
  const p = q === -1 ? path : path.slice(0, q);
  if (p === API_ROOT || p === API_ROOT + '/') return '';
  if (!p.startsWith(API_ROOT + '/')) return null;
  const key = p.slice(API_ROOT.length + 1);
  return key.includes('/') ? null : key;
}

/** Whether a Content-Type names application/json (parameters allowed, case and spaces ignored). */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/**
 * The operations paths (src/http/health.ts), served without a key to GET and HEAD; the store under test has a head, so
 * /ready is 200.
 */
const OPS_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/**
 * The status docs/api.md §7 gives the exchange, and the error code of its body (undefined for 200 and 204); `ops` for
 * an operations answer (not JSON-RPC).
 */
export function expectedStatus(ex: FuzzExchange, keys: FuzzKeys): { status: number; code?: number; ops?: true } {
  const q = ex.path.indexOf('?');
  if (OPS_PATHS.has(q === -1 ? ex.path : ex.path.slice(0, q))) {
    return ex.method === 'GET' || ex.method === 'HEAD' ? { status: 200, ops: true } : { status: 405, code: -32600 };
  }
  const key = routeKey(ex.path);
  if (key === null) return { status: 404, code: -32600 };
  if (ex.method === 'OPTIONS') return { status: 204 };
  if (ex.method !== 'POST') return { status: 405, code: -32600 };
  if (key !== keys.key) return { status: 401, code: 4100 };
  if (!isJson(ex.contentType)) return { status: 415, code: -32600 };
  if (ex.body.length > MAX_BODY_BYTES) return { status: 413, code: -32600 };
  return { status: 200 };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The body parsed as the server parses it (strict UTF-8, then JSON), or undefined when it is not JSON. */
function parseBody(body: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(decoder.decode(body)) as unknown };
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The id the response to `request` must carry: the request's own when valid (as JSON writes it back), else null. */
function expectedId(request: unknown): unknown {
  if (!isObject(request)) return null;
  const id = request.id;
  if (id === undefined || id === null || typeof id === 'string' || typeof id === 'number')
    return JSON.parse(JSON.stringify(id ?? null)) as unknown;
  return null;
}

/**
 * The error code the envelope of `request` calls for (docs/api.md §8, geth's order), or undefined when its method runs.
 */
function envelopeCode(request: unknown): number | undefined {
  if (!isObject(request)) return -32600;
  const { id, jsonrpc, method, params } = request;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') return -32600;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return -32600;
  if (!(SERVED_METHODS as readonly string[]).includes(method)) return -32601;
  if (params !== undefined && params !== null && !Array.isArray(params)) return -32602;
  return undefined;
}

/** Problems of one JSON-RPC response object (to `request`, or to an unparsable body when undefined). */
function responseProblems(response: unknown, request: unknown, where: string): string[] {
  if (!isObject(response)) return [`${where}: not a response object`];
  const out: string[] = [];
  const keys = Object.keys(response).sort().join(',');
  if (keys !== 'error,id,jsonrpc' && keys !== 'id,jsonrpc,result')
    out.push(`${where}: keys ${keys}, want jsonrpc, id and one of result/error`);
  if (response.jsonrpc !== '2.0') out.push(`${where}: jsonrpc ${JSON.stringify(response.jsonrpc)}`);
  const id = expectedId(request);
  if (JSON.stringify(response.id) !== JSON.stringify(id))
    out.push(`${where}: id ${JSON.stringify(response.id)}, want ${JSON.stringify(id)}`);
  if ('error' in response) {
    const error = response.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      out.push(`${where}: malformed error ${JSON.stringify(error)}`);
    else if (!INPUT_ERROR_CODES.has(error.code as number)) out.push(`${where}: error ${error.code} ${error.message}`);
  }
  const code = request === undefined ? undefined : envelopeCode(request);
  if (code !== undefined && (!isObject(response.error) || response.error.code !== code))
    out.push(`${where}: ${JSON.stringify(response).slice(0, 200)}, want error ${code}`);
  return out;
}

/**
 * The deepest nesting of arrays and objects in a JSON text, strings (closed ones) left out: docs/api.md §6's rule,
 * written apart from the server's scan.
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const c of text.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

/** Problems of a 200 body against the request body. */
function rpcProblems(requestBody: Uint8Array, answer: unknown): string[] {
  const parsed = parseBody(requestBody);
  const single = (code: number, message?: string) => {
    const out = responseProblems(answer, undefined, 'answer');
    const error = isObject(answer) && isObject(answer.error) ? answer.error : undefined;
    if (error?.code !== code || (message !== undefined && error.message !== message))
      out.push(`answer: ${JSON.stringify(answer).slice(0, 200)}, want error ${code}${message ? ` ${message}` : ''}`);
    return out;
  };
  // Refused before it is parsed, whether it would parse or not.
  if (nestingDepth(Buffer.from(requestBody).toString('latin1')) > MAX_JSON_DEPTH)
    return single(-32600, `invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (parsed === undefined) return single(-32700, 'parse error');
  const request = parsed.value;
  if (!Array.isArray(request)) return responseProblems(answer, request, 'answer');
  if (request.length === 0) return single(-32600, 'empty batch');
  if (request.length > MAX_BATCH_ITEMS)
    return single(-32600, `batch too large: at most ${MAX_BATCH_ITEMS} requests per batch`);
  if (!Array.isArray(answer)) return [`answer to a batch of ${request.length} is not an array`];
  if (answer.length !== request.length) return [`${answer.length} answers to a batch of ${request.length}`];
  return answer.flatMap((item, i) => responseProblems(item, request[i], `batch item ${i}`));
}

/** Every way `answer` breaks the rules for `ex` (empty when it is right). */
export function answerProblems(ex: FuzzExchange, keys: FuzzKeys, answer: HttpAnswer): string[] {
  const want = expectedStatus(ex, keys);
  if (answer.status !== want.status)
    return [`status ${answer.status}, want ${want.status}: ${answer.body.toString('utf8').slice(0, 200)}`];
  if (ex.method === 'HEAD' || want.status === 204)
    return answer.body.length === 0 ? [] : [`a ${ex.method} answer with a ${answer.body.length}-byte body`];
  if (want.ops) return answer.body.length > 0 ? [] : ['an empty operations answer'];
  const parsed = parseBody(answer.body);
  if (parsed === undefined) return [`the answer is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`];
  if (want.status === 200) return rpcProblems(ex.body, parsed.value);
  const out = responseProblems(parsed.value, undefined, `${want.status} body`);
  const code = isObject(parsed.value) && isObject(parsed.value.error) ? parsed.value.error.code : undefined;
  if (code !== want.code) out.push(`${want.status} body has code ${String(code)}, want ${want.code}`);
  return out;
}

/**
 * Statuses a raw socket may see: 100 Continue (an interim answer to `Expect: 100-continue`), 200, and those of
 * docs/api.md §7.
 */
const RAW_STATUSES = new Set([100, 200, 204, 401, 404, 405, 413, 415]);

/**
 * Problems of the HTTP responses in a raw socket's received bytes: each a status of RAW_STATUSES, with a JSON body when
 * it has one.
 */
export function rawAnswerProblems(received: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < received.length) {
    const end = received.indexOf('\r\n\r\n', at);
    if (end === -1)
      return [...out, `an incomplete response head: ${received.subarray(at, at + 200).toString('latin1')}`];
    const head = received.subarray(at, end).toString('latin1');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
    if (!status) return [...out, `not a status line: ${head.slice(0, 100)}`];
    if (!RAW_STATUSES.has(Number(status[1]))) out.push(`status ${status[1]}`);
    const length = Number(/\r\nContent-Length: (\d+)/i.exec(head)?.[1] ?? 0);
    const body = received.subarray(end + 4, end + 4 + length);
    if (length > 0 && parseBody(body) === undefined)
      out.push(`a body that is not JSON: ${body.toString('latin1').slice(0, 100)}`);
    at = end + 4 + length;
  }
  return out;
}
