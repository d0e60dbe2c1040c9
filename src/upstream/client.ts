/**
 * The HTTP JSON-RPC client of the upstream node (serve --upstream): calls go out in chunks of at
 * most UPSTREAM_CHUNK_CALLS (a chunk of one as a single request object), the chunks in parallel
 * with at most `concurrency` requests in flight over kept-alive connections; every call gets its
 * answer or a failure within `timeoutMs` of being sent, its wait for a connection included. A
 * request that fails (no connection, dropped, an HTTP status other than 200, a body that is not
 * JSON-RPC or larger than `maxResponseBytes`, a timeout) fails its calls and counts against the
 * circuit breaker; the node's JSON-RPC errors are answers, passed through as they are.
 *
 * The URL may hold a provider key (in its path, query or user part): it is used to connect and
 * never written anywhere, not in an answer, an error or a log line. A user part goes as basic
 * authentication.
 */
import http from 'node:http';
import https from 'node:https';
import { type BreakerOptions, CircuitBreaker } from './breaker.js';
import type { UpstreamOutcome, UpstreamStats } from './stats.js';
import type { NodeErrorObject, Upstream, UpstreamAnswer, UpstreamCall, UpstreamFailure } from './types.js';

/**
 * Most calls in one request to the node: hosted providers refuse or slow down larger batches
 * (Alchemy, Infura and QuickNode advise 100 or fewer).
 */
export const UPSTREAM_CHUNK_CALLS = 100;

/**
 * How long a forwarded call may take by default, in milliseconds: under the 10 s that viem's and
 * ethers' HTTP transports wait, so a client gets -32015 from ethlogd rather than its own timeout;
 * heavy traces of large blocks may need more (serve --upstream-timeout-ms).
 */
export const UPSTREAM_TIMEOUT_MS = 8_000;

/**
 * Requests in flight to the node at once by default: enough to overlap round trips, few enough to
 * stay under hosted providers' concurrency limits.
 */
export const UPSTREAM_CONCURRENCY = 32;

/**
 * Requests waiting for one of the in-flight slots before more are refused at once: a node this far
 * behind is not keeping up, and the queue would only add latency.
 */
export const UPSTREAM_MAX_QUEUED = 4_096;

/**
 * Largest answer taken from the node, in bytes: geth's own cap on a batch's answer
 * (--rpc.batch-response-max-size), which fits the callTracer trace of a full mainnet block.
 */
export const UPSTREAM_MAX_RESPONSE_BYTES = 25_000_000;

/**
 * The breaker by default: five failed requests in a row open it for one second, doubling to thirty
 * while probes fail.
 */
export const UPSTREAM_BREAKER: BreakerOptions = { failures: 5, baseMs: 1_000, maxMs: 30_000 };

/** How the client behaves; every field has a default above. */
export interface UpstreamClientOptions {
  timeoutMs?: number;
  concurrency?: number;
  maxQueued?: number;
  maxResponseBytes?: number;
  chunkCalls?: number;
  breaker?: BreakerOptions;
  /** Where calls are counted (the metrics). */
  stats?: UpstreamStats;
  /** Told about each failed request, with a reason that never holds the URL (a log line). */
  onFailure?: (failure: UpstreamFailure, calls: number) => void;
}

/** A request's fate: the answers of its calls, or why it got none. */
type Exchange = { answers: UpstreamAnswer[] } | { failure: UpstreamFailure };

/** Whether `value` is a JSON-RPC error object. */
function isErrorObject(value: unknown): value is NodeErrorObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as NodeErrorObject).code === 'number' &&
    typeof (value as NodeErrorObject).message === 'string'
  );
}

/** The answer in a response object `item`: its error object, or its result. */
function answerOf(item: { result?: unknown; error?: unknown }): UpstreamAnswer {
  if (isErrorObject(item.error)) {
    const { code, message, data } = item.error;
    return data === undefined ? { error: { code, message } } : { error: { code, message, data } };
  }
  return { result: item.result === undefined ? null : item.result };
}

/** Sends JSON-RPC calls to one node over HTTP(S). */
export class UpstreamClient implements Upstream {
  private readonly target: URL;
  private readonly auth: string | undefined;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly maxQueued: number;
  private readonly maxResponseBytes: number;
  private readonly chunkCalls: number;
  private readonly breaker: CircuitBreaker;
  private active = 0;
  private readonly queue: { deadline: number; go: () => void }[] = [];
  private closed = false;

  /** A client of the node at `url` (http or https). */
  constructor(
    url: string,
    private readonly options: UpstreamClientOptions = {},
  ) {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new RangeError('the upstream URL must be http:// or https://');
    this.auth =
      target.username === '' && target.password === ''
        ? undefined
        : `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    target.username = '';
    target.password = '';
    this.target = target;
    this.timeoutMs = options.timeoutMs ?? UPSTREAM_TIMEOUT_MS;
    this.concurrency = Math.max(1, options.concurrency ?? UPSTREAM_CONCURRENCY);
    this.maxQueued = options.maxQueued ?? UPSTREAM_MAX_QUEUED;
    this.maxResponseBytes = options.maxResponseBytes ?? UPSTREAM_MAX_RESPONSE_BYTES;
    this.chunkCalls = Math.max(1, options.chunkCalls ?? UPSTREAM_CHUNK_CALLS);
    this.breaker = new CircuitBreaker(options.breaker ?? UPSTREAM_BREAKER);
    const secure = target.protocol === 'https:';
    this.request = secure ? https.request : http.request;
    this.agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: this.concurrency });
  }

  /**
   * Sends `calls` in chunks of at most chunkCalls, in parallel within the concurrency bound; the
   * answers come in call order.
   */
  async send(calls: UpstreamCall[]): Promise<UpstreamAnswer[]> {
    if (calls.length <= this.chunkCalls) return this.sendChunk(calls);
    const chunks: Promise<UpstreamAnswer[]>[] = [];
    for (let i = 0; i < calls.length; i += this.chunkCalls)
      chunks.push(this.sendChunk(calls.slice(i, i + this.chunkCalls)));
    return (await Promise.all(chunks)).flat();
  }

  /** Stops taking calls, fails those waiting for a slot, and closes the kept connections. */
  close(): void {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) waiting.go();
    this.agent.destroy();
  }

  /** One request of at most chunkCalls calls: its answers, or its failure given to each call. */
  private async sendChunk(calls: UpstreamCall[]): Promise<UpstreamAnswer[]> {
    if (calls.length === 0) return [];
    const started = performance.now();
    const deadline = started + this.timeoutMs;
    const exchange = await this.exchange(calls, deadline);
    const seconds = (performance.now() - started) / 1000;
    if ('failure' in exchange) {
      this.options.onFailure?.(exchange.failure, calls.length);
      for (const call of calls) this.options.stats?.record(call.method, exchange.failure.kind, seconds);
      return calls.map(() => ({ failure: exchange.failure }));
    }
    if (this.options.stats !== undefined) {
      exchange.answers.forEach((answer, i) => {
        const outcome: UpstreamOutcome = 'error' in answer ? 'node_error' : 'ok';
        this.options.stats!.record(calls[i]!.method, outcome, seconds);
      });
    }
    return exchange.answers;
  }

  /** Admits, queues, sends and reads one request, reporting its fate to the breaker. */
  private async exchange(calls: UpstreamCall[], deadline: number): Promise<Exchange> {
    if (this.closed)
      return { failure: { kind: 'unavailable', reason: 'is not used any more: the service is shutting down' } };
    const admission = this.breaker.admit();
    if (!admission.admitted) {
      return {
        failure: {
          kind: 'unavailable',
          reason: `is failing: its circuit breaker is open, next try in ${admission.retryInMs} ms`,
        },
      };
    }
    const slot = await this.acquire(deadline);
    if (slot !== 'ok') {
      if (admission.probe) this.breaker.failed(true);
      return {
        failure:
          slot === 'timeout'
            ? { kind: 'timeout', reason: `did not answer within ${this.timeoutMs} ms`, timeoutMs: this.timeoutMs }
            : {
                kind: 'unavailable',
                reason:
                  slot === 'closed'
                    ? 'is not used any more: the service is shutting down'
                    : `has ${this.maxQueued} requests waiting already`,
              },
      };
    }
    let exchange: Exchange;
    try {
      exchange = await this.post(calls, deadline);
    } finally {
      this.release();
    }
    if ('failure' in exchange) this.breaker.failed(admission.probe);
    else this.breaker.succeeded(admission.probe);
    return exchange;
  }

  /** Waits for an in-flight slot until `deadline`. */
  private acquire(deadline: number): Promise<'ok' | 'timeout' | 'full' | 'closed'> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve('ok');
    }
    if (this.queue.length >= this.maxQueued) return Promise.resolve('full');
    return new Promise((resolve) => {
      const entry = {
        deadline,
        go: () => {
          clearTimeout(timer);
          if (this.closed) return resolve('closed');
          this.active++;
          resolve('ok');
        },
      };
      const timer = setTimeout(
        () => {
          const at = this.queue.indexOf(entry);
          if (at !== -1) this.queue.splice(at, 1);
          resolve('timeout');
        },
        Math.max(0, deadline - performance.now()),
      );
      this.queue.push(entry);
    });
  }

  private release(): void {
    this.active--;
    const next = this.queue.shift();
    next?.go();
  }

  /**
   * POSTs `calls` (one as a single object) and reads the answer within `deadline`. A kept-alive
   * connection the node closed while idle fails as it is reused (ECONNRESET before any answer):
   * the request is sent once more on a fresh one (`retry`), as Node's documentation advises.
   */
  private post(calls: UpstreamCall[], deadline: number, retry = true): Promise<Exchange> {
    const single = calls.length === 1;
    const body = single
      ? JSON.stringify({ jsonrpc: '2.0', id: 0, method: calls[0]!.method, params: calls[0]!.params })
      : JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, method: call.method, params: call.params })));
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    return new Promise<Exchange>((resolve) => {
      let settled = false;
      const settle = (exchange: Exchange): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(exchange);
      };
      const fail = (reason: string): void => settle({ failure: { kind: 'unavailable', reason } });
      const req = this.request(this.target, { method: 'POST', agent: this.agent, headers, auth: this.auth }, (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          res.resume();
          req.destroy();
          return fail(`answered HTTP ${status}`);
        }
        const announced = Number(res.headers['content-length']);
        if (announced > this.maxResponseBytes) {
          req.destroy();
          return fail(`answered more than ${this.maxResponseBytes} bytes`);
        }
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > this.maxResponseBytes) {
            req.destroy();
            return fail(`answered more than ${this.maxResponseBytes} bytes`);
          }
          chunks.push(chunk);
        });
        res.on('end', () => settle(this.parse(calls, Buffer.concat(chunks, bytes).toString('utf8'), single)));
        res.on('error', () => fail('dropped the connection during its answer'));
        res.on('aborted', () => fail('dropped the connection during its answer'));
      });
      const timer = setTimeout(
        () => {
          req.destroy();
          settle({
            failure: {
              kind: 'timeout',
              reason: `did not answer within ${this.timeoutMs} ms`,
              timeoutMs: this.timeoutMs,
            },
          });
        },
        Math.max(0, deadline - performance.now()),
      );
      let answered = false;
      req.on('response', () => (answered = true));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (retry && !settled && !answered && req.reusedSocket && error.code === 'ECONNRESET') {
          settled = true;
          clearTimeout(timer);
          resolve(this.post(calls, deadline, false));
          return;
        }
        fail(
          error.code === 'ECONNREFUSED'
            ? 'refused the connection'
            : `closed the connection (${error.code ?? 'no answer'})`,
        );
      });
      req.end(body);
    });
  }

  /** The answers in response `text` to `calls` (sent as one object when `single`), matched by id. */
  private parse(calls: UpstreamCall[], text: string, single: boolean): Exchange {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { failure: { kind: 'unavailable', reason: 'answered with invalid JSON' } };
    }
    if (parsed === null || typeof parsed !== 'object')
      return { failure: { kind: 'unavailable', reason: 'answered with something that is not JSON-RPC' } };
    if (!Array.isArray(parsed)) {
      const item = parsed as { result?: unknown; error?: unknown };
      // A batch refused whole (too large, rate limited) is answered with one error: it is each call's.
      if (!single && !isErrorObject(item.error))
        return { failure: { kind: 'unavailable', reason: 'answered a batch with a single object' } };
      if (!('result' in item) && !isErrorObject(item.error))
        return { failure: { kind: 'unavailable', reason: 'answered with something that is not JSON-RPC' } };
      const answer = answerOf(item);
      return { answers: calls.map(() => answer) };
    }
    const answers = new Array<UpstreamAnswer | undefined>(calls.length);
    for (const item of parsed as { id?: unknown; result?: unknown; error?: unknown }[]) {
      if (
        item === null ||
        typeof item !== 'object' ||
        typeof item.id !== 'number' ||
        item.id < 0 ||
        item.id >= calls.length
      )
        continue;
      answers[item.id] = answerOf(item);
    }
    if (answers.some((answer) => answer === undefined))
      return { failure: { kind: 'unavailable', reason: 'left calls of a batch unanswered' } };
    return { answers: answers as UpstreamAnswer[] };
  }
}
