/**
 * An HTTP thread of `serve --http-threads N` (the entry of a worker_threads Worker that threads.ts
 * starts): its own read-only store handle, JSON-RPC handler and uWS app, built as the main thread
 * builds its own (storeFront.ts, startHttpServer), listening on the main thread's port, shared.
 * Point lookups, key checks and the eth_getLogs queries the planner finds cheap run here on its own
 * handle (inline.ts, as on the main thread); the others go to the main thread, which owns the scan
 * pool, and come back as the same chunks or the same error. Calls, responses and inline queries are
 * counted here and handed over when the main thread scrapes; /metrics is rendered by
 * the main thread; log lines are written by the main thread's logger.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { METRICS_LATENCY_BUCKETS_S } from '../config.js';
import { RemoteFilters } from '../filters/remote.js';
import { ByteBudget } from '../limits/byteBudget.js';
import { RateLimiter } from '../limits/rateLimiter.js';
import { LimitRefusals } from '../limits/refusals.js';
import type { Logger, LogLevel } from '../logger.js';
import { type LogChunks, zeroScanCounts } from '../logs/answer.js';
import { answerInline } from '../logs/inline.js';
import { InlineLoad } from '../logs/inlineLoad.js';
import { resolveRange } from '../logs/range.js';
import { CallStatsTable, RefusalCounts, StatusCounts } from '../metrics/callStats.js';
import { NodeHeadGauge } from '../replica/nodeHead.js';
import { AnswerCache } from '../rpc/answerCache.js';
import type { MethodContext } from '../rpc/method.js';
import { StoreReader } from '../store/reader.js';
import { closeStore, openStore } from '../store/schema.js';
import type { UpstreamAnswer } from '../upstream/types.js';
import type { MetricsText } from './health.js';
import { type HttpServer, startHttpServer } from './server.js';
import { storeFront } from './storeFront.js';
import {
  type FromThread,
  fromWireError,
  type HttpThreadData,
  type LogLine,
  PendingReplies,
  type ToThread,
  toWireError,
} from './threadProtocol.js';

const data = workerData as HttpThreadData;
const port = parentPort!;

/** Posts `message` to the main thread. */
function post(message: FromThread): void {
  port.postMessage(message);
}

/**
 * Hands a log line to the main thread; when its context or error cannot be cloned, the line goes with the error as text
 * and without the context.
 */
function writeLine(line: LogLine): void {
  try {
    post({ type: 'log', line });
  } catch {
    post({
      type: 'log',
      line: {
        level: line.level,
        message: line.message,
        error: line.error === undefined ? undefined : String(line.error),
      },
    });
  }
}

/** A Logger whose lines the main thread's logger writes, at the levels it writes, each with this thread's number. */
function forwardingLogger(levels: readonly LogLevel[]): Logger {
  const enabled = new Set(levels);
  const at = (level: LogLine['level']) => (message: string, context?: Record<string, unknown>) => {
    if (enabled.has(level)) writeLine({ level, message, context: { ...context, thread: data.thread } });
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: (message, error, context) => {
      if (enabled.has('error'))
        writeLine({ level: 'error', message, error, context: { ...context, thread: data.thread } });
    },
    isLevelEnabled: (level) => enabled.has(level),
  };
}

const logger = forwardingLogger(data.logLevels);
const store = openStore(data.dataDir, { readOnly: true });
// A thread's reader sees the store's writes a tick late whatever it does (its read snapshot is its
// own): its markers are read once per tick.
const reader = new StoreReader(store, { perTick: true });
const answerCache = data.answerCacheBytes > 0 ? new AnswerCache(reader, data.answerCacheBytes) : undefined;
const queries = new PendingReplies<LogChunks>();
const scrapes = new PendingReplies<MetricsText>();
const filterCalls = new PendingReplies<unknown>();
const forwardCalls = new PendingReplies<UpstreamAnswer[]>();
const calls = data.metrics ? new CallStatsTable(METRICS_LATENCY_BUCKETS_S) : undefined;
const statuses = data.metrics ? new StatusCounts() : undefined;
const refusals = data.metrics ? new RefusalCounts() : undefined;
const logCounts = zeroScanCounts();
/** This thread's recent inline scans: while they keep it busy, more goes to the main thread's pool (inlineLoad.ts). */
const inlineLoad = new InlineLoad();
const ctx: MethodContext = {
  reader,
  limits: data.limits,
  queryLogs: (spec, call) => {
    const range = resolveRange(spec, reader);
    const started = performance.now();
    const inline = answerInline(
      range,
      spec,
      reader,
      'json',
      data.limits.maxResults,
      inlineLoad.budget(data.inlineBudgetUs, started),
      logCounts,
    );
    inlineLoad.add(started);
    if (inline !== undefined) return inline;
    // The main thread reads its own snapshot: the range goes there as this snapshot resolved it,
    // so one batch's calls agree on the head (its numbers are stored there too: appends only add).
    const pinned =
      spec.blockHash === undefined && range.pending === undefined && range.from <= range.to
        ? { ...spec, fromBlock: { number: range.from }, toBlock: { number: range.to } }
        : spec;
    const signal = call?.signal;
    let onAbort: (() => void) | undefined;
    const answer = queries.ask((id) => {
      post({ type: 'logs', id, spec: pinned, caller: call?.caller });
      onAbort = () => post({ type: 'cancel', id });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // A WebSocket's signal lives as long as its socket: its listener goes once the query is answered.
    return signal === undefined ? answer : answer.finally(() => signal.removeEventListener('abort', onAbort!));
  },
  filters: new RemoteFilters((call) => filterCalls.ask((id) => post({ type: 'filter', id, call }))),
};

/** Closes this thread's front (its drain, if begun, first) and its store, then reports it. */
async function close(server: HttpServer): Promise<void> {
  await server.close();
  await closeStore(store);
  post({ type: 'closed' });
}

/** Answers the main thread's messages to a thread whose front listens. */
function serve(server: HttpServer): void {
  port.on('message', (message: ToThread) => {
    switch (message.type) {
      case 'logs':
        if ('error' in message) queries.settle(message.id, undefined, fromWireError(message.error));
        else queries.settle(message.id, message.chunks);
        return;
      case 'metrics':
        if ('error' in message) scrapes.settle(message.id, undefined, fromWireError(message.error));
        else scrapes.settle(message.id, message.text);
        return;
      case 'filter':
        if ('error' in message) filterCalls.settle(message.id, undefined, fromWireError(message.error));
        else filterCalls.settle(message.id, message.result);
        return;
      case 'upstream':
        forwardCalls.settle(message.id, message.answers);
        return;
      case 'counts':
        post({
          type: 'counts',
          id: message.id,
          counts: {
            calls: calls?.snapshot() ?? [],
            statuses: statuses?.snapshot() ?? [],
            logs: logCounts,
            answers: answerCache?.counts ?? { hits: 0, misses: 0 },
            refusals: refusals?.snapshot() ?? [],
          },
        });
        return;
      case 'refuse':
        server.refuse();
        post({ type: 'refused' });
        return;
      case 'drain':
        void server.drain(message.graceMs).then((cut) => post({ type: 'drained', cut }));
        return;
      case 'close':
        void close(server);
    }
  });
  post({ type: 'listening' });
}

try {
  serve(
    await startHttpServer({
      host: data.host,
      port: data.port,
      sharePort: true,
      ...storeFront({
        store,
        ctx,
        onError: (message, error) => logger.error(message, error),
        observer: calls,
        answerCache,
        metrics: data.metrics ? () => scrapes.ask((id) => post({ type: 'metrics', id })) : undefined,
        sync: data.sync && { gauge: new NodeHeadGauge(data.sync.buffer), maxLagBlocks: data.sync.maxLagBlocks },
        forward: data.forward && {
          // Sent by the main thread's client: one connection pool, breaker and count for the whole service.
          upstream: { send: (calls) => forwardCalls.ask((id) => post({ type: 'upstream', id, calls })) },
          methods: new Set(data.forward.methods),
          budget:
            data.forward.rateLimit &&
            new RateLimiter(data.forward.rateLimit.limit, { buffer: data.forward.rateLimit.buffer }),
          headWaitMs: data.forward.headWaitMs,
        },
      }),
      rateLimit: data.rateLimit && new RateLimiter(data.rateLimit.limit, { buffer: data.rateLimit.buffer }),
      subscriptionBudget: new ByteBudget(data.subscriptionBudget.limits, data.subscriptionBudget.buffers),
      limitRefusals: new LimitRefusals(data.limitRefusals),
      logger,
      onResponse: statuses && ((status) => statuses.add(status)),
      onRefusal: refusals && ((reason) => refusals.add(reason)),
      compression: data.compression,
      accessLog: data.accessLog,
    }),
  );
} catch (error) {
  await closeStore(store);
  post({ type: 'failed', error: toWireError(error) });
}
