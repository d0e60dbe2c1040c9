/**
 * A JSON-RPC client for an upstream node over HTTP (fetch): batched calls (split at the node's batch
 * limit), a bound on requests in flight, a timeout per request, and retries with exponential backoff
 * and jitter on timeouts,
 * network errors, HTTP 429 and 5xx (honouring Retry-After). A JSON-RPC error inside an answer is
 * not retried: it is returned to the caller, who knows what it means.
 */
import {
  RPC_MAX_BATCH_CALLS,
  RPC_MAX_RETRIES,
  RPC_RETRY_BASE_MS,
  RPC_RETRY_MAX_MS,
  RPC_TIMEOUT_MS,
} from '../config.js';
import { NodeRequestError, NodeRpcError } from './errors.js';

/** One call of a batch. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** The JSON-RPC error object of a failed call. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to one call: its result, or the node's error object. */
export type RpcOutcome = { result: unknown } | { error: RpcErrorObject };

/** How the client behaves; every field has a default from src/config.ts. */
export interface RpcClientOptions {
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Requests in flight at once (further requests wait for a slot). */
  maxInFlight?: number;
  /** Most calls per request; a longer batch is sent as several requests. */
  maxBatchCalls?: number;
  /** Aborts every request and retry wait (a stop). */
  signal?: AbortSignal;
  /** Told about each retry (for a log line). */
  onRetry?: (attempt: number, error: NodeRequestError) => void;
}

/** Counters of the client's traffic. */
export interface RpcClientStats {
  requests: number;
  calls: number;
  retries: number;
}

const NO_SIGNAL = new AbortController().signal;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function isErrorObject(value: unknown): value is RpcErrorObject {
  return typeof value === 'object' && value !== null && typeof (value as RpcErrorObject).code === 'number';
}

/** Batched JSON-RPC over HTTP to one node. */
export class RpcClient {
  /** Traffic so far. */
  readonly stats: RpcClientStats = { requests: 0, calls: 0, retries: 0 };
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxInFlight: number;
  private readonly maxBatchCalls: number;
  private readonly signal: AbortSignal;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private nextId = 1;

  /** A client for the node at `url`. */
  constructor(
    readonly url: string,
    private readonly options: RpcClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? RPC_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? RPC_MAX_RETRIES;
    this.retryBaseMs = options.retryBaseMs ?? RPC_RETRY_BASE_MS;
    this.retryMaxMs = options.retryMaxMs ?? RPC_RETRY_MAX_MS;
    this.maxInFlight = Math.max(1, options.maxInFlight ?? Infinity);
    this.maxBatchCalls = Math.max(1, options.maxBatchCalls ?? RPC_MAX_BATCH_CALLS);
    this.signal = options.signal ?? NO_SIGNAL;
  }

  /** Calls one method; a JSON-RPC error becomes a NodeRpcError. */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const [outcome] = await this.batch([{ method, params }]);
    if ('error' in outcome!) throw new NodeRpcError(outcome.error.code, outcome.error.message, method);
    return outcome!.result as T;
  }

  /** Sends `calls` as one batch request (several past maxBatchCalls); the outcomes come in the order of the calls. */
  async batch(calls: RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length <= this.maxBatchCalls) return this.request(calls);
    const parts: Promise<RpcOutcome[]>[] = [];
    for (let i = 0; i < calls.length; i += this.maxBatchCalls)
      parts.push(this.request(calls.slice(i, i + this.maxBatchCalls)));
    return (await Promise.all(parts)).flat();
  }

  /** One batch request, retried per the policy. */
  private async request(calls: RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })),
    );
    for (let attempt = 0; ; attempt++) {
      try {
        const { status, text, retryAfterMs } = await this.post(body);
        if (status === 429 || status >= 500) {
          throw new NodeRequestError('http', `HTTP ${status} from ${this.url}`, status, retryAfterMs);
        }
        if (status !== 200)
          throw new NodeRequestError('http', `HTTP ${status} from ${this.url}: ${text.slice(0, 200)}`, status);
        this.stats.calls += calls.length;
        return this.match(calls, first, text);
      } catch (error) {
        if (!(error instanceof NodeRequestError) || !this.retryable(error) || attempt >= this.maxRetries) throw error;
        this.stats.retries++;
        this.options.onRetry?.(attempt + 1, error);
        const backoff = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
        await sleep(Math.min(this.retryMaxMs, Math.max(backoff, error.retryAfterMs ?? 0)), this.signal);
      }
    }
  }

  private retryable(error: NodeRequestError): boolean {
    return error.code !== 'http' || error.status === 429 || (error.status ?? 0) >= 500;
  }

  /** Pairs the answers of a batch with its calls by id. */
  private match(calls: RpcCall[], first: number, text: string): RpcOutcome[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new NodeRequestError('malformed', `${this.url} answered with invalid JSON`);
    }
    if (!Array.isArray(parsed)) {
      const error = (parsed as { error?: unknown } | null)?.error;
      if (isErrorObject(error))
        throw new NodeRpcError(error.code, error.message, calls.length === 1 ? calls[0]!.method : 'batch');
      throw new NodeRequestError('malformed', `${this.url} answered a batch with a non-array`);
    }
    const out = new Array<RpcOutcome | undefined>(calls.length);
    for (const item of parsed as { id?: unknown; result?: unknown; error?: unknown }[]) {
      const index = typeof item?.id === 'number' ? item.id - first : -1;
      if (index < 0 || index >= calls.length) continue;
      out[index] = isErrorObject(item.error) ? { error: item.error } : { result: item.result ?? null };
    }
    if (out.some((o) => o === undefined))
      throw new NodeRequestError('malformed', `${this.url} left calls of a batch unanswered`);
    return out as RpcOutcome[];
  }

  /** One HTTP POST within an in-flight slot, under the timeout and the stop signal. */
  private async post(body: string): Promise<{ status: number; text: string; retryAfterMs?: number }> {
    await this.acquire();
    try {
      this.signal.throwIfAborted();
      this.stats.requests++;
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = AbortSignal.any([this.signal, timeout]);
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
          signal,
        });
        const text = await res.text();
        const retryAfter = Number(res.headers.get('retry-after'));
        return {
          status: res.status,
          text,
          retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
        };
      } catch (error) {
        if (this.signal.aborted) throw this.signal.reason;
        if (timeout.aborted)
          throw new NodeRequestError('timeout', `${this.url} did not answer within ${this.timeoutMs} ms`);
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new NodeRequestError(
          'network',
          `${this.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
        );
      }
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.maxInFlight) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
