/**
 * What the main thread and an HTTP thread (httpThread.ts) say to each other over the worker's
 * MessagePort: the thread's start-up data, its eth_getLogs queries, polling-filter calls, forwarded
 * calls and /metrics scrapes (run on the main thread, which has the scan pool, the filters, the
 * upstream node's client and the metrics registry), its log lines, the main thread's requests
 * for its counts, and the shutdown steps. Errors cross as plain data and are rebuilt as the same
 * RpcError class with the same fields, so a thread answers byte for byte what the main thread would.
 */
import type { LogLimits } from '../config.js';
import type { FilterCall } from '../filters/remote.js';
import type { ByteBudgetBuffers, ByteLimits } from '../limits/byteBudget.js';
import type { RateLimit } from '../limits/rateLimiter.js';
import type { LogLevel } from '../logger.js';
import type { LogChunks } from '../logs/answer.js';
import type { FilterSpec } from '../logs/filter.js';
import type { ThreadCounts } from '../metrics/callStats.js';
import * as rpcErrors from '../rpc/errors.js';
import { RpcError } from '../rpc/errors.js';
import type { UpstreamAnswer, UpstreamCall } from '../upstream/types.js';
import type { AccessLogMode } from './accessLog.js';
import type { CompressionOptions } from './compress.js';
import type { MetricsText } from './health.js';

/** What an HTTP thread is started with (its workerData). */
export interface HttpThreadData {
  /** The thread's number (the main thread is 0). */
  thread: number;
  dataDir: string;
  host: string;
  /** The port the main thread's app bound, shared by every thread. */
  port: number;
  limits: LogLimits;
  /** The inline budget of eth_getLogs in estimated microseconds (planner.ts), as the main thread's engine has it. */
  inlineBudgetUs: number;
  /** Bytes of answers the thread's answer cache keeps (rpc/answerCache.ts); 0: no cache. */
  answerCacheBytes: number;
  /** The rate limit and the buffer of the main thread's RateLimiter, when there is a limit. */
  rateLimit?: { limit: RateLimit; buffer: SharedArrayBuffer };
  /** Whether calls and responses are counted and /metrics is served. */
  metrics: boolean;
  /** The log levels the main thread's logger writes. */
  logLevels: LogLevel[];
  /** How answers are compressed, as on the main thread's front; unset: never. */
  compression?: CompressionOptions;
  /** The access log, as on the main thread's front. */
  accessLog?: AccessLogMode;
  /** The buffer of the main thread's refusal counters (limits/refusals.ts), shared. */
  limitRefusals: SharedArrayBuffer;
  /** The subscriptions' byte budget: its limits and the main thread's buffers (limits/byteBudget.ts), shared. */
  subscriptionBudget: { limits: ByteLimits; buffers: ByteBudgetBuffers };
  /**
   * A replica's node gauge (its shared buffer, replica/nodeHead.ts) and tolerated lag; unset when it follows no node.
   */
  sync?: { buffer: SharedArrayBuffer; maxLagBlocks: number };
  /**
   * The methods forwarded to the upstream node (through the main thread's client), the per-key limit on them, and the
   * wait for the head; unset when nothing is.
   */
  forward?: { methods: string[]; rateLimit?: { limit: RateLimit; buffer: SharedArrayBuffer }; headWaitMs?: number };
}

/** An error as plain data: its class name, message and own fields (code, data, …). */
export interface WireError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
  stack?: string;
}

/** A log line of an HTTP thread, written by the main thread's logger. */
export interface LogLine {
  level: Exclude<LogLevel, 'silent'>;
  message: string;
  context?: Record<string, unknown>;
  error?: unknown;
}

/** Messages from an HTTP thread to the main thread. */
export type FromThread =
  | { type: 'listening' }
  | { type: 'failed'; error: WireError }
  | { type: 'logs'; id: number; spec: FilterSpec; caller?: string }
  | { type: 'cancel'; id: number }
  | { type: 'metrics'; id: number }
  | { type: 'filter'; id: number; call: FilterCall }
  | { type: 'upstream'; id: number; calls: UpstreamCall[] }
  | { type: 'log'; line: LogLine }
  | { type: 'counts'; id: number; counts: ThreadCounts }
  | { type: 'refused' }
  | { type: 'drained'; cut: number }
  | { type: 'closed' };

/** Messages from the main thread to an HTTP thread. */
export type ToThread =
  | { type: 'logs'; id: number; chunks: LogChunks }
  | { type: 'logs'; id: number; error: WireError }
  | { type: 'metrics'; id: number; text: MetricsText }
  | { type: 'metrics'; id: number; error: WireError }
  | { type: 'filter'; id: number; result: unknown }
  | { type: 'filter'; id: number; error: WireError }
  | { type: 'upstream'; id: number; answers: UpstreamAnswer[] }
  | { type: 'counts'; id: number }
  | { type: 'refuse' }
  | { type: 'drain'; graceMs: number }
  | { type: 'close' };

/** Every RpcError class a query can reject with, by name. */
const RPC_ERROR_CLASSES: ReadonlyMap<string, typeof RpcError> = new Map(
  Object.values(rpcErrors)
    .filter(
      (value): value is typeof RpcError =>
        value === RpcError || (typeof value === 'function' && value.prototype instanceof RpcError),
    )
    .map((cls) => [cls.name, cls]),
);

/** `error` as plain data (structured-clone safe). */
export function toWireError(error: unknown): WireError {
  if (error instanceof RpcError) return { name: error.constructor.name, message: error.message, fields: { ...error } };
  if (error instanceof Error) return { name: 'Error', message: error.message, fields: {}, stack: error.stack };
  return { name: 'Error', message: String(error), fields: {} };
}

/**
 * The error `wire` describes: an instance of the RpcError class it names, with the same code,
 * message, data and other fields (built through RpcError's constructor, as the subclasses'
 * constructors take different arguments); a plain Error for anything else.
 */
export function fromWireError(wire: WireError): Error {
  const cls = RPC_ERROR_CLASSES.get(wire.name);
  if (cls === undefined) {
    const error = new Error(wire.message);
    if (wire.stack !== undefined) error.stack = wire.stack;
    return error;
  }
  const error = Reflect.construct(RpcError, [wire.fields.code, wire.message, wire.fields.data], cls) as RpcError;
  return Object.assign(error, wire.fields);
}

/**
 * `chunks` ready to post, with the buffers to transfer rather than copy: a chunk that spans its
 * whole ArrayBuffer moves as it is, a view into a larger one is copied out first (a transfer would
 * move, and structured cloning copy, the whole buffer), and text is cloned.
 */
export function transferableChunks(chunks: LogChunks): { chunks: LogChunks; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const moved = chunks.map((chunk) => {
    if (typeof chunk === 'string') return chunk;
    const whole =
      chunk.buffer instanceof ArrayBuffer &&
      chunk.byteOffset === 0 &&
      chunk.byteLength === chunk.buffer.byteLength &&
      !transfer.includes(chunk.buffer);
    const own = whole ? chunk : new Uint8Array(chunk);
    transfer.push(own.buffer as ArrayBuffer);
    return own;
  });
  return { chunks: moved, transfer };
}

/** Requests sent over a port and awaiting their replies, matched by id. */
export class PendingReplies<T> {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: T) => void; reject: (error: Error) => void }>();

  /** Sends a request with `send(id)` and resolves with the value its reply settles it with. */
  ask(send: (id: number) => void): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      send(id);
    });
  }

  /** Settles request `id` with `value`, or rejects it with `error`; a reply to no pending request is ignored. */
  settle(id: number, value: T | undefined, error?: Error): void {
    const request = this.waiting.get(id);
    if (request === undefined) return;
    this.waiting.delete(id);
    if (error !== undefined) request.reject(error);
    else request.resolve(value as T);
  }

  /** Rejects every pending request with `error` (the other side is gone). */
  failAll(error: Error): void {
    for (const request of this.waiting.values()) request.reject(error);
    this.waiting.clear();
  }
}
