/**
 * Wires a running service: the store opened read-only, the method layer over it, the eth_getLogs
 * worker pool, the HTTP front (on `httpThreads` threads sharing its port, see http/threads.ts), and
 * the gRPC front (on the main thread) when asked for. The CLI's `serve` and the integration tests
 * start the service through here.
 */
import type { EventEmitter } from 'node:events';
import {
  DEFAULT_LOG_LIMITS,
  DEFAULT_RATE_COST_BLOCKS,
  DEFAULT_SUBSCRIPTION_BYTES,
  DEFAULT_SUBSCRIPTION_BYTES_PER_KEY,
  type LogLimits,
  METRICS_LATENCY_BUCKETS_S,
  SHUTDOWN_GRACE_MARGIN_MS,
} from './config.js';
import { FilterRegistry } from './filters/registry.js';
import { type GrpcServer, type GrpcServerOptions, startGrpcServer } from './grpc/server.js';
import type { StreamEvents } from './grpc/streamLogs.js';
import { type AccessLogMode, accessLogEvery } from './http/accessLog.js';
import { type CompressionOptions, resolveCompression } from './http/compress.js';
import { type HttpServerOptions, startHttpServer } from './http/server.js';
import { storeFront } from './http/storeFront.js';
import { HttpThreads, httpThreadCount } from './http/threads.js';
import { uwsImplementation } from './http/uws.js';
import { type ShutdownOutcome, shutdownService } from './lifecycle.js';
import { Admission, type AdmissionLimits, admitFor, type LogGate } from './limits/admission.js';
import { ByteBudget, type ByteLimits } from './limits/byteBudget.js';
import { type RateLimitOptions, rateLimiterFor } from './limits/options.js';
import type { RateLimiter } from './limits/rateLimiter.js';
import { LimitRefusals } from './limits/refusals.js';
import type { Logger } from './logger.js';
import { LogEngine } from './logs/engine.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/metrics.js';
import type { ReplicaSync } from './replica/lag.js';
import { AnswerCache, DEFAULT_ANSWER_CACHE_BYTES } from './rpc/answerCache.js';
import type { ForwardOptions } from './rpc/forward.js';
import type { MethodContext } from './rpc/method.js';
import { METHODS } from './rpc/methods/index.js';
import { checkApiKey } from './store/apiKeys.js';
import { StoreReader } from './store/reader.js';
import { openStore, type Store } from './store/schema.js';
import type { BreakerOptions } from './upstream/breaker.js';
import { UpstreamClient } from './upstream/client.js';
import { forwardedMethods } from './upstream/methods.js';
import { UpstreamStats } from './upstream/stats.js';

/** How to start the service. */
export interface ServiceOptions {
  dataDir: string;
  /**
   * Nothing in this process writes the store (the `serve` command: its ingest, if any, is a child
   * process): the main thread's reader then reads the head, earliest and rollback markers once per
   * tick (StoreReaderOptions.perTick), as the HTTP threads' readers always do.
   */
  readOnlyProcess?: boolean;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
  limits?: Partial<LogLimits>;
  /** eth_getLogs worker threads; default: the machine's cores. */
  threads?: number;
  /** HTTP front threads, each a uWS app on the port (1: the main thread's alone); default: the machine's cores. */
  httpThreads?: number;
  /**
   * Bytes of answers each HTTP front keeps (rpc/answerCache.ts), DEFAULT_ANSWER_CACHE_BYTES by default;
   * 0: none. Only with readOnlyProcess (the cache follows the markers its reader reads per tick).
   */
  answerCacheBytes?: number;
  /**
   * Estimated microseconds of work under which eth_getLogs runs inline on the receiving thread; defaultInlineBudgetUs
   * (planner.ts) by default, negative: never.
   */
  inlineBudgetUs?: number;
  /** Port of the gRPC front (0 picks a free one); no gRPC front when unset. */
  grpcPort?: number;
  /**
   * StreamLogs tuning: deadline (0: none), stall timeout (0: none), batch size in bytes, logs per scan task; config.ts
   * defaults.
   */
  grpcStream?: { timeoutMs?: number; stallMs?: number; batchBytes?: number; taskLogs?: number };
  /**
   * gRPC connections: the cap and the idle timeout; config.ts defaults (GRPC_MAX_CONNECTIONS, GRPC_IDLE_TIMEOUT_MS).
   */
  grpcConnections?: { max?: number; idleTimeoutMs?: number; prefaceTimeoutMs?: number };
  /** Per-API-key rate limit (calls per second and burst); none by default (DEFAULT_RATE_LIMIT_PER_SECOND). */
  rateLimit?: RateLimitOptions;
  /**
   * Blocks of a pooled log query's range that cost one more call of the rate limit; DEFAULT_RATE_COST_BLOCKS by
   * default, 0: calls only.
   */
  rateCostBlocks?: number;
  /**
   * Concurrent log queries and streams per key and per process, and the queue bounds (limits/admission.ts); config.ts
   * defaults.
   */
  admission?: Partial<AdmissionLimits>;
  /** Bytes polling filters may hold per key and in all (criteria and pending changes); config.ts defaults. */
  filterBudget?: Partial<ByteLimits>;
  /** Bytes WebSocket `logs` subscriptions may hold per key and in all, every thread's together; config.ts defaults. */
  subscriptionBudget?: Partial<ByteLimits>;
  /**
   * How long close() lets requests in flight finish; default: the eth_getLogs deadline plus SHUTDOWN_GRACE_MARGIN_MS.
   */
  shutdownGraceMs?: number;
  /** Prometheus metrics at GET /metrics; on by default. */
  metrics?: boolean;
  /** Compression of HTTP answers (gzip and brotli, from Accept-Encoding); on with config.ts's defaults unless false. */
  compression?: CompressionOptions | false;
  /**
   * One info line per HTTP request: 'on' (the default), 'off', or `{ sample: N }` (one in N, refusals and 5xx always).
   */
  accessLog?: AccessLogMode;
  /**
   * The node a replica follows (serve --follow-rpc) and the lag it tolerates: /ready and eth_syncing answer against it.
   */
  replica?: ReplicaSync;
  /** Forward the calls the store cannot answer to this node (serve --upstream); nothing is forwarded when unset. */
  upstream?: UpstreamOptions;
}

/** The upstream node calls are forwarded to, and how (src/upstream/; docs/api.md §8). */
export interface UpstreamOptions {
  /** The node's JSON-RPC URL (http or https; a user part goes as basic authentication); never logged. */
  url: string;
  /** The methods forwarded; DEFAULT_UPSTREAM_METHODS by default. */
  methods?: readonly string[];
  /** Forward eth_sendRawTransaction too. */
  send?: boolean;
  /** How long a forwarded call may take (UPSTREAM_TIMEOUT_MS by default). */
  timeoutMs?: number;
  /** Requests in flight to the node at once (UPSTREAM_CONCURRENCY by default). */
  concurrency?: number;
  /** Largest answer taken from the node (UPSTREAM_MAX_RESPONSE_BYTES by default). */
  maxResponseBytes?: number;
  /** The per-key limit on forwarded calls, on top of rateLimit; none by default. */
  rateLimit?: RateLimitOptions;
  /** How long a call above the store's head waits for it (MIN_HEAD_WAIT_MS by default). */
  headWaitMs?: number;
  /** The circuit breaker (UPSTREAM_BREAKER by default). */
  breaker?: BreakerOptions;
}

/** A running service. */
export interface RunningService {
  host: string;
  port: number;
  /** Base URL, without the /v3/<key> path. */
  url: string;
  /** The gRPC front's port, when it runs. */
  grpcPort?: number;
  /** StreamLogs progress events of the gRPC front, when it runs. */
  grpcEvents?: EventEmitter<StreamEvents>;
  /**
   * Stops accepting on both fronts at once, lets requests in flight finish for up to
   * shutdownGraceMs and cuts off the rest, then closes the worker pool and the store; calling it
   * again returns the same promise.
   */
  close(): Promise<ShutdownOutcome>;
}

/** What a service forwards to its upstream node (serve --upstream): none of it without one. */
interface Forwarding {
  /** The node's client. */
  upstream: UpstreamClient | undefined;
  /** The methods forwarded. */
  methods: ReadonlySet<string> | undefined;
  /** The forwarded calls' counts, for the metrics. */
  stats: UpstreamStats | undefined;
  /** What the method layer forwards with. */
  forward: ForwardOptions | undefined;
}

/** The forwarding of `options.upstream`, its client made (it opens no connection until a call). */
function forwardingOf(options: ServiceOptions): Forwarding {
  const methods =
    options.upstream &&
    forwardedMethods(options.upstream.methods, options.upstream.send === true, new Set(METHODS.keys()));
  const stats =
    options.upstream && options.metrics !== false ? new UpstreamStats(METRICS_LATENCY_BUCKETS_S) : undefined;
  const upstream =
    options.upstream &&
    new UpstreamClient(options.upstream.url, {
      timeoutMs: options.upstream.timeoutMs,
      concurrency: options.upstream.concurrency,
      maxResponseBytes: options.upstream.maxResponseBytes,
      breaker: options.upstream.breaker,
      stats,
      onFailure: (failure, calls) =>
        options.logger.warn('upstream: request failed', { calls, failure: failure.kind, reason: failure.reason }),
    });
  const budget = rateLimiterFor(options.upstream?.rateLimit);
  const forward = upstream &&
    methods && {
      upstream,
      methods,
      budget,
      headWaitMs: options.upstream?.headWaitMs,
    };
  return { upstream, methods, stats, forward };
}

/** The parts of a service over its store that both fronts share. */
interface ServiceCore {
  store: Store;
  reader: StoreReader;
  limits: LogLimits;
  onError: (message: string, error: unknown) => void;
  engine: LogEngine;
  refusals: LimitRefusals;
  filters: FilterRegistry;
  subscriptionBudget: ByteBudget;
  rateLimit: RateLimiter | undefined;
  gate: LogGate;
  /** The method layer's context. */
  ctx: MethodContext;
  /** Bytes of answers each HTTP front keeps (0: none), and the main thread's cache of them. */
  answerCacheBytes: number;
  answerCache: AnswerCache | undefined;
}

/** Opens the store and makes what both fronts share: the log engine, filters, limits and the method layer's context. */
function openCore(options: ServiceOptions): ServiceCore {
  const store = openStore(options.dataDir, { readOnly: true });
  const reader = new StoreReader(store, { perTick: options.readOnlyProcess === true });
  options.replica?.gauge.setStartingBlock(reader.head());
  const limits: LogLimits = { ...DEFAULT_LOG_LIMITS, ...options.limits };
  const onError = (message: string, error: unknown) => options.logger.error(message, error);
  const engine = new LogEngine({
    dataDir: options.dataDir,
    limits,
    threads: options.threads,
    inlineBudgetUs: options.inlineBudgetUs,
    onError,
  });
  const refusals = new LimitRefusals();
  const filters = new FilterRegistry(reader, {
    onError: (error) => options.logger.error('filters: following the head failed', error),
    budget: options.filterBudget,
    refusals,
  });
  const subscriptionBudget = new ByteBudget({
    perKey: DEFAULT_SUBSCRIPTION_BYTES_PER_KEY,
    total: DEFAULT_SUBSCRIPTION_BYTES,
    ...options.subscriptionBudget,
  });
  const rateLimit = rateLimiterFor(options.rateLimit);
  const gate: LogGate = {
    admission: new Admission(options.admission, refusals),
    rateLimit,
    rateCostBlocks: options.rateCostBlocks ?? DEFAULT_RATE_COST_BLOCKS,
  };
  const ctx: MethodContext = {
    reader,
    limits,
    queryLogs: (spec, call) =>
      engine.query(spec, reader, 'json', { signal: call?.signal, admit: admitFor(gate, call?.caller) }),
    filters,
  };
  const answerCacheBytes =
    options.readOnlyProcess === true ? (options.answerCacheBytes ?? DEFAULT_ANSWER_CACHE_BYTES) : 0;
  const answerCache = answerCacheBytes > 0 ? new AnswerCache(reader, answerCacheBytes) : undefined;
  const core = { store, reader, limits, onError, engine, refusals, filters, subscriptionBudget, rateLimit, gate, ctx };
  return { ...core, answerCacheBytes, answerCache };
}

/** The HTTP threads besides the main thread's, when there are to be more than one. */
function httpThreadsOf(
  options: ServiceOptions,
  core: ServiceCore,
  httpThreads: number,
  forward: ForwardOptions | undefined,
): HttpThreads | undefined {
  if (httpThreads <= 1) return undefined;
  const { engine, reader, gate } = core;
  return new HttpThreads({
    threads: httpThreads,
    dataDir: options.dataDir,
    limits: core.limits,
    inlineBudgetUs: engine.inlineBudgetUs,
    answerCacheBytes: core.answerCacheBytes,
    queryLogs: (spec, call) =>
      engine.queryOnPool(spec, reader, { signal: call?.signal, admit: admitFor(gate, call?.caller) }),
    filters: core.filters,
    limitRefusals: core.refusals,
    subscriptionBudget: core.subscriptionBudget,
    rateLimit: core.rateLimit,
    metrics: options.metrics !== false,
    sync: options.replica,
    forward,
    logger: options.logger,
  });
}

/** The service's metrics, unless turned off. */
function metricsOf(
  options: ServiceOptions,
  core: ServiceCore,
  threads: HttpThreads | undefined,
  upstreamStats: UpstreamStats | undefined,
): ServiceMetrics | undefined {
  if (options.metrics === false) return undefined;
  return createServiceMetrics({
    dataDir: options.dataDir,
    reader: core.reader,
    engine: core.engine,
    methods: METHODS.keys(),
    threads,
    filters: core.filters,
    answers: core.answerCache?.counts,
    upstream: upstreamStats,
    nodeHead: options.replica && (() => options.replica!.gauge.nodeHead()),
    limitRefusals: core.refusals,
    admission: core.gate.admission,
    subscriptions: core.subscriptionBudget,
  });
}

/** The options of the HTTP front: the store's answers, the limits, the metrics' hooks. */
function httpFrontOptions(
  options: ServiceOptions,
  core: ServiceCore,
  metrics: ServiceMetrics | undefined,
  forward: ForwardOptions | undefined,
  coding: Pick<HttpServerOptions, 'compression' | 'accessLog'>,
): HttpServerOptions {
  return {
    host: options.host,
    port: options.port,
    ...storeFront({
      store: core.store,
      ctx: core.ctx,
      onError: core.onError,
      observer: metrics?.calls,
      answerCache: core.answerCache,
      metrics: metrics?.render,
      sync: options.replica,
      forward,
    }),
    rateLimit: core.rateLimit,
    subscriptionBudget: core.subscriptionBudget,
    limitRefusals: core.refusals,
    logger: options.logger,
    onResponse: metrics?.onResponse,
    onRefusal: metrics?.onRefusal,
    compression: coding.compression,
    accessLog: coding.accessLog,
  };
}

/** The options of the gRPC front on `port`. */
function grpcOptions(
  options: ServiceOptions,
  core: ServiceCore,
  metrics: ServiceMetrics | undefined,
  port: number,
): GrpcServerOptions {
  const { store } = core;
  return {
    host: options.host,
    port,
    ctx: core.ctx,
    engine: core.engine,
    auth: (key) => checkApiKey(store, key),
    rateLimit: core.rateLimit,
    gate: core.gate,
    streamTimeoutMs: options.grpcStream?.timeoutMs,
    streamStallMs: options.grpcStream?.stallMs,
    maxConnections: options.grpcConnections?.max,
    idleTimeoutMs: options.grpcConnections?.idleTimeoutMs,
    prefaceTimeoutMs: options.grpcConnections?.prefaceTimeoutMs,
    onRefusal: metrics?.onRefusal,
    streamBatchBytes: options.grpcStream?.batchBytes,
    streamTaskLogs: options.grpcStream?.taskLogs,
    onError: core.onError,
    observer: metrics?.calls,
  };
}

/** Logs where the service listens, and what it forwards. */
function logListening(
  options: ServiceOptions,
  url: string,
  httpThreads: number,
  grpc: GrpcServer | undefined,
  forwarding: Forwarding,
): void {
  const threads = `${httpThreads} HTTP thread${httpThreads === 1 ? '' : 's'}`;
  const grpcText = grpc === undefined ? '' : `, gRPC on ${grpc.host}:${grpc.port}`;
  options.logger.info(`listening on ${url} (uWebSockets.js ${uwsImplementation}, ${threads})${grpcText}`);
  if (forwarding.upstream !== undefined)
    options.logger.info('forwarding the calls the store cannot answer to the upstream node', {
      methods: [...forwarding.methods!],
    });
}

/** Opens the store at `dataDir` and serves it over HTTP, and over gRPC when `grpcPort` is set. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  // Checked before anything opens: a bad value throws its RangeError with nothing to close.
  const compression = options.compression === false ? undefined : resolveCompression(options.compression ?? {});
  const accessLog = options.accessLog ?? 'on';
  accessLogEvery(accessLog);
  const forwarding = forwardingOf(options);
  const { upstream, forward } = forwarding;
  const core = openCore(options);
  const { filters, engine, store, limits } = core;
  const httpThreads = httpThreadCount(options.httpThreads, options.logger);
  const threads = httpThreadsOf(options, core, httpThreads, forward);
  const metrics = metricsOf(options, core, threads, forwarding.stats);
  const graceMs = options.shutdownGraceMs ?? limits.timeoutMs + SHUTDOWN_GRACE_MARGIN_MS;
  const front = httpFrontOptions(options, core, metrics, forward, { compression, accessLog });
  let server;
  try {
    server = threads ? await threads.listen(front) : await startHttpServer(front);
  } catch (error) {
    upstream?.close();
    throw error;
  }
  let closing: Promise<ShutdownOutcome> | undefined;
  // The filters stop following the head before the store closes under them.
  const shutdown = (grpc?: GrpcServer) =>
    (closing ??=
      (filters.close(),
      shutdownService({ http: server, grpc, engine, store, graceMs, logger: options.logger, upstream })));
  let grpc: GrpcServer | undefined;
  if (options.grpcPort !== undefined) {
    try {
      grpc = await startGrpcServer(grpcOptions(options, core, metrics, options.grpcPort));
    } catch (error) {
      await shutdown();
      throw error;
    }
  }
  const url = `http://${server.host}:${server.port}`;
  logListening(options, url, httpThreads, grpc, forwarding);
  return {
    host: server.host,
    port: server.port,
    url,
    grpcPort: grpc?.port,
    grpcEvents: grpc?.events,
    close: () => shutdown(grpc),
  };
}
