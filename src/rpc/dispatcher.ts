/**
 * The JSON-RPC 2.0 envelope: parses a body (single request or batch), runs each request's method,
 * and writes responses in request order. Synchronous methods answer without a promise; a batch
 * runs its items concurrently and answers when all are done.
 */
import { isAscii } from 'node:buffer';
import { MAX_BATCH_CONCURRENCY, MAX_BATCH_ITEMS, MAX_BATCH_RESPONSE_BYTES, MAX_JSON_DEPTH } from '../config.js';
import { DEFAULT_UPSTREAM_METHODS, SEND_METHOD } from '../upstream/methods.js';
import type { AnswerCache } from './answerCache.js';
import { type CanonicalCall, isCanonical, splitCanonicalCall } from './canonicalCall.js';
import {
  CancelledError,
  FORWARD_HINT,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  NOT_FORWARDED_HINT,
  ParseError,
  ResponseTooLargeError,
  type RpcError,
  TooManyConcurrentError,
  toRpcError,
} from './errors.js';
import { type Forwarded, Forwarder, type ForwardOptions } from './forward.js';
import { type FlatBody, JsonParts, type RequestControl, type RpcBody, type RpcHandler } from './handler.js';
import { nestsDeeperThan } from './jsonDepth.js';
import { type MethodContext, RawJson, type RpcMethod } from './method.js';
import { METHODS } from './methods/index.js';
import { CALL_OK, type CallObserver, INVALID_REQUEST, type RequestTrace, UNKNOWN_METHOD } from './observe.js';

/** A single call's whole text and that text cut at its id (canonicalCall.ts). */
interface CanonicalText {
  text: string;
  split: CanonicalCall;
}

/** Where unexpected failures are reported (their details never reach the client). */
export type ErrorSink = (message: string, error: unknown) => void;

type Answer = RpcBody | Promise<RpcBody>;

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A body as text: an ASCII body (every JSON-RPC request a client library writes) as Latin-1, which
 * copies its bytes into a one-byte string, a third of the cost of validating UTF-8; any other body
 * through the strict UTF-8 decoder (invalid UTF-8 throws, a parse error).
 */
function bodyText(body: Uint8Array): string {
  if (!isAscii(body)) return decoder.decode(body);
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
}

function idJson(id: unknown): string {
  if (typeof id === 'number') return Number.isFinite(id) ? String(id) : 'null';
  return id === undefined ? 'null' : JSON.stringify(id);
}

function errorResponse(id: string, error: RpcError): string {
  return '{"jsonrpc":"2.0","id":' + id + ',"error":' + JSON.stringify(error) + '}';
}

/**
 * Answers of at least this many bytes made of rendered parts (log answers) stay in their parts
 * (JsonParts): the front writes them one after the other, where joining them would copy megabytes
 * into memory of their own first (and leave it to the garbage collector).
 */
export const PARTS_MIN_BYTES = 64 * 1024;

/**
 * Concatenates text, byte and JsonParts parts: text when every part is text, else UTF-8 bytes written into one buffer.
 */
function concat(parts: RpcBody[]): FlatBody {
  let length = 0;
  for (const p of parts) if (typeof p !== 'string') length += p.length;
  if (length === 0 && parts.every((p) => typeof p === 'string')) return parts.join('');
  for (const p of parts) if (typeof p === 'string') length += Buffer.byteLength(p, 'utf8');
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const p of parts) {
    if (typeof p === 'string') at += out.write(p, at, 'utf8');
    else if (p instanceof JsonParts) {
      for (const part of p.parts) {
        out.set(part, at);
        at += part.byteLength;
      }
      p.release();
    } else {
      out.set(p, at);
      at += p.byteLength;
    }
  }
  return out;
}

/** `parts` joined by concat, `release` called once they are copied. */
function joined(parts: (string | Uint8Array)[], release: (() => void) | undefined): FlatBody {
  const whole = concat(parts);
  release?.();
  return whole;
}

/** `parts` as JsonParts when their bytes reach PARTS_MIN_BYTES (text parts encoded; `release` theirs), else joined. */
function partsOrJoined(parts: (string | Uint8Array)[], release: (() => void) | undefined): RpcBody {
  let bytes = 0;
  for (const p of parts) if (typeof p !== 'string') bytes += p.byteLength;
  if (bytes < PARTS_MIN_BYTES) return joined(parts, release);
  const encoded = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  let length = 0;
  for (const p of encoded) length += p.byteLength;
  return new JsonParts(encoded, length, release);
}

/** The text a response to a call with id text `id` starts with, up to its result. */
function resultHead(id: string): string {
  return '{"jsonrpc":"2.0","id":' + id + ',"result":';
}

/**
 * The response of a call answered `result`; one rendered from large parts (RawJson) stays in its
 * parts unless `whole` (an answer the cache keeps is one piece).
 */
function resultResponse(id: string, result: unknown, whole = false): RpcBody {
  const head = resultHead(id);
  if (result instanceof RawJson) {
    const parts = [head, ...result.parts, '}'];
    return whole ? joined(parts, result.release) : partsOrJoined(parts, result.release);
  }
  return head + JSON.stringify(result === undefined ? null : result) + '}';
}

/** The response of a result already rendered as JSON (a kept answer). */
function jsonResponse(id: string, json: FlatBody): RpcBody {
  const head = resultHead(id);
  return typeof json === 'string' ? head + json + '}' : concat([head, json, '}']);
}

/**
 * The JSON result inside `response` (made by resultResponse for `id`), without copying it: what an
 * AnswerCache keeps of a call whose response is written once.
 */
function resultJson(id: string, response: FlatBody): FlatBody {
  const head = resultHead(id);
  if (typeof response === 'string') return response.slice(head.length, -1);
  return response.subarray(Buffer.byteLength(head, 'utf8'), response.length - 1);
}

/**
 * Whether an AnswerCache may keep a call's result: only results rendered from stored canonical
 * records (RawJson) and storage words (strings) are; null, and pending or orphaned objects rendered as
 * wire objects, are answered afresh each time.
 */
function keepable(result: unknown): boolean {
  return result instanceof RawJson || typeof result === 'string';
}

function batchResponse(answers: RpcBody[]): FlatBody {
  const parts: RpcBody[] = ['['];
  answers.forEach((a, i) => {
    if (i > 0) parts.push(',');
    parts.push(a);
  });
  parts.push(']');
  return concat(parts);
}

/** The id text of a batch item, for an error answered without running it. */
function requestId(request: unknown): string {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return 'null';
  const id = (request as Record<string, unknown>).id;
  return isValidId(id) ? idJson(id) : 'null';
}

function isValidId(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
}

/** The methods a node answers that a service without --upstream tells clients how to get. */
const FORWARDABLE: ReadonlySet<string> = new Set([...DEFAULT_UPSTREAM_METHODS, SEND_METHOD]);

/** A batch item that is forwarded: its position, id text, method and params. */
interface ForwardItem {
  index: number;
  idText: string;
  method: string;
  params: unknown[];
}

/**
 * What every call of one handler reads, made once when the handler is built: the envelope's
 * functions take it in place of closing over the builder's locals.
 */
interface Envelope {
  /** The methods' context, `rawJson` set. */
  ctx: MethodContext;
  onError: ErrorSink;
  methods: ReadonlyMap<string, RpcMethod>;
  observer: CallObserver | undefined;
  cache: AnswerCache | undefined;
  /** The upstream node's client, with --upstream. */
  forwarder: Forwarder | undefined;
}

/** What a client is told to do about a method neither served nor forwarded. */
function hintFor(env: Envelope, method: string): string | undefined {
  return env.forwarder !== undefined ? NOT_FORWARDED_HINT : FORWARDABLE.has(method) ? FORWARD_HINT : undefined;
}

/** When a call started, for the observer (no clock read without one). */
function clock(env: Envelope): number {
  return env.observer === undefined ? 0 : performance.now();
}

/**
 * Reports an answered call to the observer under its label and to the trace under its name (the
 * method as the call gave it, which for an unknown method is not its label), and passes its answer through.
 */
function answered<T extends RpcBody>(
  env: Envelope,
  answer: T,
  method: string,
  code: number,
  started: number,
  trace: RequestTrace | undefined,
  name = method,
): T {
  const { observer } = env;
  if (observer !== undefined) observer.onCall(method, code, (performance.now() - started) / 1000);
  if (trace !== undefined) trace.note(name, code);
  return answer;
}

/** The error response of a call refused with `error`, reported as answered. */
function refuse(
  env: Envelope,
  id: string,
  error: RpcError,
  method: string,
  started: number,
  trace: RequestTrace | undefined,
  name = method,
): string {
  return answered(env, errorResponse(id, error), method, error.code, started, trace, name);
}

/** The refusal of a request that is not a valid JSON-RPC request (`message` says why), reported as answered. */
function invalid(env: Envelope, id: string, message: string, trace: RequestTrace | undefined, started = clock(env)) {
  return refuse(env, id, new InvalidRequestError(message), INVALID_REQUEST, started, trace);
}

/**
 * The error response of a call whose method failed with `error`: its RpcError, else an internal
 * error (reported to onError); `control` hears a refusal for concurrency.
 */
function failure(
  env: Envelope,
  id: string,
  error: unknown,
  method: string,
  started: number,
  trace: RequestTrace | undefined,
  control?: RequestControl,
): string {
  const rpc = toRpcError(error);
  if (rpc instanceof TooManyConcurrentError && control !== undefined) control.busy = rpc;
  if (rpc !== undefined) return refuse(env, id, rpc, method, started, trace);
  env.onError('unexpected failure in a method', error);
  return refuse(env, id, new InternalError(), method, started, trace);
}

/** The method name of a request, or undefined when it has none. */
function nameOf(request: unknown): string | undefined {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return undefined;
  const { method } = request as Record<string, unknown>;
  return typeof method === 'string' ? method : undefined;
}

/** The label of a request answered without running: its method when known, else UNKNOWN_METHOD or INVALID_REQUEST. */
function labelOf(env: Envelope, name: string | undefined): string {
  return name === undefined ? INVALID_REQUEST : env.methods.has(name) ? name : UNKNOWN_METHOD;
}

/**
 * The answer to a single call from the cache alone, when its text is that of a canonical call
 * (canonicalCall.ts) already remembered and its answer is kept: no parsing, no params written.
 */
function keptAnswer(env: Envelope, split: CanonicalCall, trace: RequestTrace | undefined): RpcBody | undefined {
  const cache = env.cache!;
  const call = cache.callOf(split.rest);
  if (!call) return undefined;
  const started = clock(env);
  const kept = cache.get(call.key, false);
  return kept === undefined
    ? undefined
    : answered(env, jsonResponse(split.id, kept), call.method, CALL_OK, started, trace);
}

/** The answer to a forwarded call of `method` whose outcome is `outcome`, noted as forwarded. */
function forwardedAnswer(
  env: Envelope,
  idText: string,
  outcome: Forwarded,
  method: string,
  started: number,
  trace: RequestTrace | undefined,
): RpcBody {
  if (trace !== undefined) trace.forwarded++;
  if ('result' in outcome)
    return answered(env, resultResponse(idText, outcome.result), method, CALL_OK, started, trace);
  return failure(env, idText, outcome.error, method, started, trace);
}

/** Forwards `items` for `caller` together and resolves with their answers in their order. */
function forwardAll(
  env: Envelope,
  items: ForwardItem[],
  trace: RequestTrace | undefined,
  caller: string | undefined,
): Promise<RpcBody[]> {
  const started = clock(env);
  return env
    .forwarder!.forward(
      items.map(({ method, params }) => ({ method, params })),
      caller,
    )
    .then((outcomes) =>
      outcomes.map((outcome, k) => forwardedAnswer(env, items[k]!.idText, outcome, items[k]!.method, started, trace)),
    );
}

/**
 * The batch item `request` at `index` as a call to forward, or undefined when it is not one (handleOne answers it).
 */
function forwardItem(env: Envelope, request: unknown, index: number): ForwardItem | undefined {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return undefined;
  const { jsonrpc, method, params, id } = request as Record<string, unknown>;
  if (
    jsonrpc !== '2.0' ||
    !isValidId(id) ||
    typeof method !== 'string' ||
    env.methods.has(method) ||
    !env.forwarder!.allows(method)
  )
    return undefined;
  if (params !== undefined && params !== null && !Array.isArray(params)) return undefined;
  return { index, idText: idJson(id), method, params: (params as unknown[] | null | undefined) ?? [] };
}

/**
 * Remembers what the text of a single call (`whole`, cut at its id as `split`) names, the first time one whose answer
 * is kept comes (keptAnswer).
 */
function learnCall(env: Envelope, whole: CanonicalText, request: unknown, method: string, key: string): void {
  const cache = env.cache!;
  if (cache.callOf(whole.split.rest) !== undefined) return;
  cache.rememberCall(whole.split.rest, isCanonical(whole.text, request) ? { method, key } : null);
}

/**
 * The refusal of `request` when it is not a well-formed call (an object with a valid id, `jsonrpc`
 * "2.0" and a string method), or undefined.
 */
function malformed(
  env: Envelope,
  request: unknown,
  started: number,
  trace: RequestTrace | undefined,
): string | undefined {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return invalid(env, 'null', 'invalid request: a request is a JSON object', trace, started);
  }
  const { jsonrpc, method, id } = request as Record<string, unknown>;
  if (!isValidId(id))
    return invalid(env, 'null', 'invalid request: "id" must be a string, a number or null', trace, started);
  if (jsonrpc !== '2.0') return invalid(env, idJson(id), 'invalid request: "jsonrpc" must be "2.0"', trace, started);
  if (typeof method !== 'string') {
    return invalid(env, idJson(id), 'invalid request: "method" must be a string', trace, started);
  }
  return undefined;
}

/**
 * Answers one call; `whole` is the body's text, cut at its id, when the call is the whole body and
 * canonical in form (not a batch item); `control`'s signal stops its log query when the client goes away;
 * `control`, given for a call that is the whole body, hears a refusal for concurrency.
 */
function handleOne(
  env: Envelope,
  request: unknown,
  trace: RequestTrace | undefined,
  caller: string | undefined,
  control: RequestControl | undefined,
  whole?: CanonicalText,
  single = false,
): Answer {
  const busy = single ? control : undefined;
  const started = clock(env);
  const refused = malformed(env, request, started, trace);
  if (refused !== undefined) return refused;
  const { method, params, id } = request as { method: string; params: unknown; id: unknown };
  const idText = idJson(id);
  const { cache } = env;
  const fn = env.methods.get(method);
  const forwarded = fn === undefined && env.forwarder?.allows(method) === true;
  if (!fn && !forwarded) {
    const error = new MethodNotFoundError(method, hintFor(env, method));
    return refuse(env, idText, error, UNKNOWN_METHOD, started, trace, method);
  }
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    return refuse(env, idText, new InvalidParamsError('non-array args'), method, started, trace);
  }
  if (!fn)
    return forwardAll(
      env,
      [{ index: 0, idText, method, params: (params as unknown[] | null | undefined) ?? [] }],
      trace,
      caller,
    ).then(([answer]) => answer!);
  const key = params == null ? cache?.keyOf(method, undefined) : cache?.keyOf(method, params as unknown[]);
  if (key !== undefined) {
    const kept = cache!.get(key);
    if (kept !== undefined) {
      if (whole !== undefined) learnCall(env, whole, request, method, key);
      return answered(env, jsonResponse(idText, kept), method, CALL_OK, started, trace);
    }
  }
  try {
    const result = fn((params as unknown[] | undefined) ?? [], env.ctx, caller, control);
    if (key !== undefined && keepable(result)) {
      const response = resultResponse(idText, result, true) as FlatBody;
      if (cache!.put(key, resultJson(idText, response)) && whole !== undefined)
        learnCall(env, whole, request, method, key);
      return answered(env, response, method, CALL_OK, started, trace);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => answered(env, resultResponse(idText, value), method, CALL_OK, started, trace),
        (error) => failure(env, idText, error, method, started, trace, busy),
      );
    }
    return answered(env, resultResponse(idText, result), method, CALL_OK, started, trace);
  } catch (error) {
    return failure(env, idText, error, method, started, trace, busy);
  }
}

/** One batch being answered: its items' answers so far, and how far it has got. */
class BatchRun {
  readonly answers: RpcBody[];
  /** Bytes of the answers kept so far. */
  bytes = 0;
  /** The answers kept are past MAX_BATCH_RESPONSE_BYTES: the items not started yet are refused instead of run. */
  full = false;
  /** The next item to start. */
  next = 0;
  /** Items started and not answered yet. */
  active = 0;
  /** The forwarded items are on their way to the node. */
  forwarding = false;
  /** The positions of the forwarded items: not run here. */
  forwarded: ReadonlySet<number> = new Set();
  /** Resolves the batch's answer, once it waits for items. */
  settle: ((body: RpcBody) => void) | undefined = undefined;

  constructor(
    readonly env: Envelope,
    readonly requests: unknown[],
    readonly trace: RequestTrace | undefined,
    readonly caller: string | undefined,
    readonly control: RequestControl | undefined,
  ) {
    this.answers = new Array(requests.length);
  }
}

/**
 * Keeps item `i`'s answer; once the answers kept pass the cap, the items not started yet are refused instead of run.
 */
function keep(run: BatchRun, i: number, body: RpcBody): void {
  run.answers[i] = body;
  run.bytes += body.length;
  if (run.bytes > MAX_BATCH_RESPONSE_BYTES) run.full = true;
}

/** True once every item of `run` is answered. */
function finished(run: BatchRun): boolean {
  return run.active === 0 && run.next === run.requests.length && !run.forwarding;
}

/**
 * The batch's response, its answers cut at the cap in item order: the first answer that would
 * take the total past MAX_BATCH_RESPONSE_BYTES and every one after it become -32003 (already
 * reported as answered), whichever order they finished in.
 */
function respond(run: BatchRun): RpcBody {
  const { answers } = run;
  let total = 0;
  let over = false;
  for (let i = 0; i < answers.length; i++) {
    const body = answers[i]!;
    if (!over && total + body.length <= MAX_BATCH_RESPONSE_BYTES) {
      total += body.length;
      continue;
    }
    over = true;
    if (body instanceof JsonParts) body.release();
    answers[i] = errorResponse(requestId(run.requests[i]), new ResponseTooLargeError());
  }
  return batchResponse(answers);
}

/** Sends the batch's forwarded items to the node together, beside the store's calls. */
function forwardBatchItems(run: BatchRun): void {
  const { env } = run;
  const forwardItems: ForwardItem[] = [];
  if (env.forwarder !== undefined) {
    run.requests.forEach((request, i) => {
      const item = forwardItem(env, request, i);
      if (item !== undefined) forwardItems.push(item);
    });
  }
  run.forwarded = new Set(forwardItems.map((item) => item.index));
  run.forwarding = forwardItems.length > 0;
  if (run.forwarding) {
    void forwardAll(env, forwardItems, run.trace, run.caller).then((bodies) => {
      bodies.forEach((body, k) => keep(run, forwardItems[k]!.index, body));
      run.forwarding = false;
      if (finished(run)) run.settle?.(respond(run));
    });
  }
}

/** Starts the batch's next items, up to MAX_BATCH_CONCURRENCY at a time; settles the batch once all are answered. */
function launch(run: BatchRun): void {
  const { env, requests, trace, control } = run;
  while (run.active < MAX_BATCH_CONCURRENCY && run.next < requests.length) {
    const i = run.next++;
    if (run.forwarded.has(i)) continue;
    const gone = control?.gone === true;
    if (run.full || gone) {
      const name = nameOf(requests[i]);
      const error = gone ? new CancelledError() : new ResponseTooLargeError();
      const label = labelOf(env, name);
      run.answers[i] = refuse(env, requestId(requests[i]), error, label, clock(env), trace, name ?? INVALID_REQUEST);
      continue;
    }
    const answer = handleOne(env, requests[i], trace, run.caller, control);
    if (answer instanceof Promise) {
      run.active++;
      void answer.then((body) => {
        keep(run, i, body);
        run.active--;
        launch(run);
      });
    } else keep(run, i, answer);
  }
  if (finished(run)) run.settle?.(respond(run));
}

/**
 * Runs a batch: synchronous items at once, at most MAX_BATCH_CONCURRENCY asynchronous ones at a
 * time. An answer that would take the batch's answers past MAX_BATCH_RESPONSE_BYTES is dropped and
 * answers -32003 `response too large` (as geth), and so does every item not started by then, so a
 * batch's answer stays within the cap (plus the short error texts) and its memory bounded; once
 * the client is gone (`control.gone`) the items not yet started are not run either.
 */
function handleBatch(
  env: Envelope,
  requests: unknown[],
  trace: RequestTrace | undefined,
  caller: string | undefined,
  control: RequestControl | undefined,
): Answer {
  if (trace !== undefined) trace.batch = true;
  if (requests.length === 0) return invalid(env, 'null', 'empty batch', trace);
  if (requests.length > MAX_BATCH_ITEMS)
    return invalid(env, 'null', `batch too large: at most ${MAX_BATCH_ITEMS} requests per batch`, trace);
  const run = new BatchRun(env, requests, trace, caller, control);
  forwardBatchItems(run);
  launch(run);
  if (finished(run)) return respond(run);
  return new Promise<RpcBody>((resolve) => {
    run.settle = resolve;
  });
}

/** Answers a JSON-RPC body: a single call or a batch. */
function handle(
  env: Envelope,
  body: Uint8Array,
  trace: RequestTrace | undefined,
  caller: string | undefined,
  control: RequestControl | undefined,
): Answer {
  let text: string;
  try {
    text = bodyText(body);
  } catch {
    return refuse(env, 'null', new ParseError(), INVALID_REQUEST, clock(env), trace);
  }
  // Cut at its id once: looked up here, remembered by handleOne when it is not known yet.
  const split = env.cache && splitCanonicalCall(text);
  const kept = split && keptAnswer(env, split, trace);
  if (kept) return kept;
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    return invalid(env, 'null', `invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, trace);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse(env, 'null', new ParseError(), INVALID_REQUEST, clock(env), trace);
  }
  return Array.isArray(parsed)
    ? handleBatch(env, parsed, trace, caller, control)
    : handleOne(env, parsed, trace, caller, control, split ? { text, split } : undefined, true);
}

/**
 * Builds the handler that answers JSON-RPC bodies with the methods of METHODS over `ctx`; every
 * answered call is reported to `observer` (metrics) and to the trace a body is handled with (logs).
 * With `cache`, the synchronous answers it may keep are kept and answered from it while the store's
 * markers stay. With `forward`, calls of the methods it lists (and `methods` does not have) go to
 * the upstream node (forward.ts): a batch's together, answered in their places.
 */
export function createRpcHandler(
  context: MethodContext,
  onError: ErrorSink,
  methods: ReadonlyMap<string, RpcMethod> = METHODS,
  observer?: CallObserver,
  cache?: AnswerCache,
  forward?: ForwardOptions,
): RpcHandler {
  const ctx: MethodContext = { ...context, rawJson: true };
  const env: Envelope = {
    ctx,
    onError,
    methods,
    observer,
    cache,
    forwarder: forward && new Forwarder(forward, ctx.reader),
  };
  return {
    handle(body: Uint8Array, trace?: RequestTrace, caller?: string, control?: RequestControl): Answer {
      return handle(env, body, trace, caller, control);
    },
  };
}
