/**
 * `serve --http-threads N`: the HTTP front on N threads, one uWS app each, all on one port. The main
 * thread's app is thread 0; threads 1 … N-1 are worker_threads Workers (httpThread.ts) with their own
 * store handle and handler. Every app binds the port shared (SO_REUSEPORT), and the kernel spreads
 * new connections over them; the main thread first checks that no other socket holds the port
 * (claimablePort), so a busy port is still refused, and the threads bind the port it got (the free
 * one picked for port 0).
 *
 * The main thread serves the threads what only it has: eth_getLogs queries over their inline budget, on its scan pool
 * (the
 * chunks' buffers transferred back, errors rebuilt as their classes), /metrics rendered with every
 * thread's counts, and its logger for their lines. The rate limiter's buckets are shared memory
 * (rateLimiter.ts), so a key has one limit whichever thread answers it.
 *
 * Shutdown: every thread first stops listening and refuses new requests with 503 (each confirms),
 * so once any thread reports its drain no thread accepts a connection or a new request; then every
 * thread drains within the same grace, keeping its connections open (answering 503) until all
 * have drained, so a client sees the same drain whichever thread holds its connection; the
 * requests cut off are summed, and each worker closes its store before it is terminated.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LogLimits } from '../config.js';
import type { FilterService } from '../filters/registry.js';
import { type FilterCall, runFilterCall } from '../filters/remote.js';
import type { ByteBudget } from '../limits/byteBudget.js';
import type { RateLimiter } from '../limits/rateLimiter.js';
import type { LimitRefusals } from '../limits/refusals.js';
import { LOG_LEVELS, type Logger, type LogLevel } from '../logger.js';
import type { LogChunks } from '../logs/answer.js';
import type { ThreadCounts } from '../metrics/callStats.js';
import type { ThreadCountsSource } from '../metrics/metrics.js';
import type { ReplicaSync } from '../replica/lag.js';
import { toRpcError } from '../rpc/errors.js';
import type { ForwardOptions } from '../rpc/forward.js';
import type { LogQuery } from '../rpc/method.js';
import type { Upstream, UpstreamAnswer } from '../upstream/types.js';
import type { MetricsText } from './health.js';
import { claimablePort } from './listen.js';
import { type HttpServer, type HttpServerOptions, startHttpServer } from './server.js';
import {
  type FromThread,
  fromWireError,
  type HttpThreadData,
  type LogLine,
  PendingReplies,
  type ToThread,
  toWireError,
  transferableChunks,
} from './threadProtocol.js';
import { uwsNative } from './uws.js';

/** How to run the HTTP threads besides the main thread's app. */
export interface HttpThreadsOptions {
  /** HTTP threads in all, the main thread's included (at least 2). */
  threads: number;
  /** The store every thread opens read-only. */
  dataDir: string;
  limits: LogLimits;
  /** The eth_getLogs inline budget in estimated microseconds (the engine's). */
  inlineBudgetUs: number;
  /** Bytes of answers each thread's answer cache keeps (rpc/answerCache.ts); 0: no cache. */
  answerCacheBytes: number;
  /** Runs on the pool the eth_getLogs queries the threads found over their inline budget (the main thread's engine). */
  queryLogs: LogQuery;
  /** The main thread's polling filters, which every thread's filter methods reach. */
  filters?: FilterService;
  /** The refusal counters (limits/refusals.ts) every thread adds to. */
  limitRefusals: LimitRefusals;
  /** The WebSocket subscriptions' byte budget every thread charges. */
  subscriptionBudget: ByteBudget;
  /** The service's rate limiter, whose buckets the threads share. */
  rateLimit?: RateLimiter;
  /** Whether the threads count calls and responses and serve /metrics. */
  metrics: boolean;
  /** The node a replica follows, whose gauge the threads share (/ready, eth_syncing); unset when it follows none. */
  sync?: ReplicaSync;
  /**
   * What the threads forward: their calls go to the main thread's upstream client, their budget is the shared one;
   * unset when nothing is.
   */
  forward?: Omit<ForwardOptions, 'waitForHead'> & { headWaitMs?: number };
  /** Writes the main thread's lines and the threads'. */
  logger: Logger;
}

/**
 * Cores the default leaves to what is not HTTP: the scan pool's long eth_getLogs, and on a load-test
 * machine the load generator. A uWS thread owns its connections, so when busy HTTP threads and a busy
 * client outnumber the cores, the scheduler sets an HTTP thread aside for a kernel tick (4 ms at
 * HZ=250) with its connections' answers waiting, which doubles the p99 of cheap calls for a quarter
 * more throughput (docs/benchmarks.md, "Why the defaults"). With clients on other machines
 * `--http-threads` set to the cores answers more.
 */
const HTTP_SPARE_CORES = 1;

/** The HTTP threads `serve` runs when none are asked for: one per core but HTTP_SPARE_CORES, at least one. */
export function defaultHttpThreads(cores: number = availableParallelism()): number {
  return Math.max(1, cores - HTTP_SPARE_CORES);
}

/**
 * The HTTP threads to run when `requested` are asked for (default: defaultHttpThreads); one when uWS runs its
 * JavaScript fallback, which cannot share a port between threads.
 */
export function httpThreadCount(requested: number | undefined, logger: Logger): number {
  const threads = requested ?? defaultHttpThreads();
  if (threads <= 1 || uwsNative) return Math.max(1, threads);
  logger.warn(
    'http: uWebSockets.js runs its JavaScript fallback, which cannot share a port between threads: ' +
      'serving on one HTTP thread',
    { requested: threads },
  );
  return 1;
}

/** Writes an HTTP thread's log line with the main thread's logger. */
function writeLine(logger: Logger, line: LogLine): void {
  if (line.level === 'error') logger.error(line.message, line.error, line.context);
  else logger[line.level](line.message, line.context);
}

/** What the main thread does for an HTTP thread. */
interface ThreadServices {
  queryLogs: LogQuery;
  filters?: FilterService;
  upstream?: Upstream;
  metrics?: () => Promise<MetricsText>;
  logger: Logger;
}

/** One worker HTTP thread, from the main thread's side. */
class HttpThread {
  /** Resolves once the thread's app listens; rejects with why it could not start. */
  readonly started: Promise<void>;
  /** Resolves once the worker has exited. */
  readonly exited: Promise<void>;
  private readonly worker: Worker;
  private readonly countRequests = new PendingReplies<ThreadCounts>();
  /** The thread's queries running here, by id: a `cancel` from the thread aborts one. */
  private readonly queries = new Map<number, AbortController>();
  private running = true;
  private onStarted: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private onRefused: (() => void) | undefined;
  private onDrained: ((cut: number) => void) | undefined;
  private onClosed: (() => void) | undefined;

  /** Starts thread `data.thread`. */
  constructor(
    data: HttpThreadData,
    private readonly services: ThreadServices,
  ) {
    this.started = new Promise((resolve, reject) => (this.onStarted = { resolve, reject }));
    this.worker = new Worker(new URL('./httpThread.js', import.meta.url), { workerData: data });
    this.worker.on('message', (message: FromThread) => this.receive(message));
    this.worker.on('error', (error) => services.logger.error(`http: thread ${data.thread} failed`, error));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    void this.exited.then(() => {
      this.running = false;
      this.onStarted?.reject(new Error(`http: thread ${data.thread} exited before it listened`));
      this.countRequests.failAll(new Error(`http: thread ${data.thread} exited`));
      this.onRefused?.();
      this.onDrained?.(0);
      this.onClosed?.();
    });
  }

  /** The thread's counts now; undefined once it no longer runs. */
  counts(): Promise<ThreadCounts | undefined> {
    if (!this.running) return Promise.resolve(undefined);
    return this.countRequests.ask((id) => this.send({ type: 'counts', id })).catch(() => undefined);
  }

  /** Makes the thread stop listening and refuse new requests; resolves once it has. */
  refuse(): Promise<void> {
    if (!this.running) return Promise.resolve();
    const refused = new Promise<void>((resolve) => (this.onRefused = resolve));
    this.send({ type: 'refuse' });
    return refused;
  }

  /** Drains the thread's front within `graceMs`; resolves with the requests still in flight then. */
  drain(graceMs: number): Promise<number> {
    if (!this.running) return Promise.resolve(0);
    const drained = new Promise<number>((resolve) => (this.onDrained = resolve));
    this.send({ type: 'drain', graceMs });
    return drained;
  }

  /** Closes the thread's connections and store, then ends the thread. */
  async close(): Promise<void> {
    if (!this.running) return;
    const closed = new Promise<void>((resolve) => (this.onClosed = resolve));
    this.send({ type: 'close' });
    await closed;
    await this.terminate();
  }

  /** Ends the worker (used once its store is closed, or it failed to start) and resolves once it has exited. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
    await this.exited;
  }

  /** Posts `message` to the thread, moving the buffers in `transfer`. */
  private send(message: ToThread, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  /** Handles a message of the thread. */
  private receive(message: FromThread): void {
    switch (message.type) {
      case 'listening':
        return this.onStarted?.resolve();
      case 'failed':
        return this.onStarted?.reject(fromWireError(message.error));
      case 'logs':
        return this.runQuery(message.id, message);
      case 'cancel':
        return this.queries.get(message.id)?.abort();
      case 'metrics':
        return this.renderMetrics(message.id);
      case 'filter':
        return this.runFilterCall(message.id, message.call);
      case 'upstream':
        return this.forward(message.id, message.calls);
      case 'log':
        return writeLine(this.services.logger, message.line);
      case 'counts':
        return this.countRequests.settle(message.id, message.counts);
      case 'refused':
        return this.onRefused?.();
      case 'drained':
        return this.onDrained?.(message.cut);
      case 'closed':
        return this.onClosed?.();
    }
  }

  /**
   * Runs a query the thread handed over and posts its chunks (their buffers moved) or its error; a `cancel` of its id
   * stops it.
   */
  private runQuery(id: number, { spec, caller }: Extract<FromThread, { type: 'logs' }>): void {
    const abort = new AbortController();
    this.queries.set(id, abort);
    new Promise<LogChunks>((resolve) => resolve(this.services.queryLogs(spec, { caller, signal: abort.signal }))).then(
      (answer) => {
        this.queries.delete(id);
        const { chunks, transfer } = transferableChunks(answer);
        this.send({ type: 'logs', id, chunks }, transfer);
      },
      (error: unknown) => {
        this.queries.delete(id);
        this.send({ type: 'logs', id, error: toWireError(toRpcError(error) ?? error) });
      },
    );
  }

  /** Runs a polling-filter call of the thread on the main thread's filters and posts the result or the error. */
  private runFilterCall(id: number, call: FilterCall): void {
    new Promise<unknown>((resolve) => {
      if (this.services.filters === undefined) throw new Error('polling filters are not kept');
      resolve(runFilterCall(this.services.filters, call));
    }).then(
      (result) => this.send({ type: 'filter', id, result }),
      (error: unknown) => this.send({ type: 'filter', id, error: toWireError(toRpcError(error) ?? error) }),
    );
  }

  /**
   * Sends the thread's forwarded calls with the main thread's client and posts their answers (the client never
   * rejects).
   */
  private forward(id: number, calls: Extract<FromThread, { type: 'upstream' }>['calls']): void {
    const upstream = this.services.upstream;
    const answers: Promise<UpstreamAnswer[]> =
      upstream === undefined
        ? Promise.resolve(calls.map(() => ({ failure: { kind: 'unavailable', reason: 'is not configured' } })))
        : upstream.send(calls);
    void answers.then((list) => this.send({ type: 'upstream', id, answers: list }));
  }

  /** Renders /metrics for the thread and posts the text or the failure. */
  private renderMetrics(id: number): void {
    const render = this.services.metrics ?? (() => Promise.reject(new Error('metrics are off')));
    render().then(
      (text) => this.send({ type: 'metrics', id, text }),
      (error: unknown) => this.send({ type: 'metrics', id, error: toWireError(error) }),
    );
  }
}

/** The HTTP threads of a service besides the main thread's app: started by listen(), counted by the metrics. */
export class HttpThreads implements ThreadCountsSource {
  private threads: HttpThread[] = [];

  /** Prepares `options.threads - 1` threads; nothing starts before listen(). */
  constructor(private readonly options: HttpThreadsOptions) {}

  /** The counts of threads 1 … N-1 (ThreadCountsSource); undefined for a thread that no longer runs. */
  counts(): Promise<(ThreadCounts | undefined)[]> {
    return Promise.all(this.threads.map((thread) => thread.counts()));
  }

  /**
   * Starts the front on every thread: checks that `front.port` is free, listens on it shared with
   * `front` on this thread, then starts the other threads on the port bound; resolves once all
   * listen, with them as one HttpServer (its port, and a close() over every thread).
   */
  async listen(front: HttpServerOptions): Promise<HttpServer> {
    const { options } = this;
    const port = await claimablePort(front.host, front.port);
    const main = await startHttpServer({ ...front, port, sharePort: true });
    const logLevels = LOG_LEVELS.filter(
      (level): level is LogLevel => level !== 'silent' && options.logger.isLevelEnabled(level),
    );
    const rateLimit = options.rateLimit && { limit: options.rateLimit.limit, buffer: options.rateLimit.buffer };
    const services: ThreadServices = {
      queryLogs: options.queryLogs,
      filters: options.filters,
      upstream: options.forward?.upstream,
      metrics: front.ops?.metrics,
      logger: options.logger,
    };
    const { forward } = options;
    const forwardData = forward && {
      methods: [...forward.methods],
      rateLimit: forward.budget && { limit: forward.budget.limit, buffer: forward.budget.buffer },
      headWaitMs: forward.headWaitMs,
    };
    this.threads = Array.from(
      { length: options.threads - 1 },
      (_, i) =>
        new HttpThread(
          {
            thread: i + 1,
            dataDir: options.dataDir,
            host: front.host,
            port,
            limits: options.limits,
            inlineBudgetUs: options.inlineBudgetUs,
            answerCacheBytes: options.answerCacheBytes,
            limitRefusals: options.limitRefusals.buffer,
            subscriptionBudget: {
              limits: options.subscriptionBudget.limits,
              buffers: options.subscriptionBudget.buffers,
            },
            rateLimit,
            metrics: options.metrics,
            logLevels,
            compression: front.compression,
            accessLog: front.accessLog,
            sync: options.sync && { buffer: options.sync.gauge.buffer, maxLagBlocks: options.sync.maxLagBlocks },
            forward: forwardData,
          },
          services,
        ),
    );
    const starts = await Promise.allSettled(this.threads.map((thread) => thread.started));
    const failure = starts.find((start): start is PromiseRejectedResult => start.status === 'rejected');
    if (failure !== undefined) {
      await Promise.all(
        this.threads.map((thread, i) => (starts[i]!.status === 'fulfilled' ? thread.close() : thread.terminate())),
      );
      await main.close();
      throw failure.reason;
    }
    return this.front(main);
  }

  /** `main` and the other threads as one HttpServer. */
  private front(main: HttpServer): HttpServer {
    const { threads } = this;
    let drained: Promise<number> | undefined;
    const drain = (graceMs: number): Promise<number> =>
      (drained ??= (async () => {
        main.refuse();
        await Promise.all(threads.map((thread) => thread.refuse()));
        const cuts = await Promise.all([main.drain(graceMs), ...threads.map((thread) => thread.drain(graceMs))]);
        return cuts.reduce((sum, cut) => sum + cut, 0);
      })());
    let closed: Promise<number> | undefined;
    return {
      port: main.port,
      host: main.host,
      refuse: () => {
        main.refuse();
        for (const thread of threads) void thread.refuse();
      },
      drain,
      close(graceMs = 0): Promise<number> {
        closed ??= drain(graceMs).then(async (cut) => {
          await Promise.all([main.close(), ...threads.map((thread) => thread.close())]);
          return cut;
        });
        return closed;
      },
    };
  }
}
