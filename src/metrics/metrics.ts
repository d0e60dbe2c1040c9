/**
 * The service's Prometheus metrics, in a registry of its own (several services can run in one
 * process): JSON-RPC calls by method and outcome with their latency, HTTP responses by status,
 * the eth_getLogs engine's scan work, its worker pool, the store, and Node's process metrics.
 *
 * Nothing on a request's path touches prom-client: calls and responses go to plain accumulators
 * (callStats.ts), the engine sums its tasks' counts, and every series is read from those, the pool
 * and the store when /metrics is scraped. With several HTTP threads each counts its own calls and
 * responses; a scrape asks the other threads for theirs and shows the sums, and the responses of
 * each thread apart.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { METRICS_LATENCY_BUCKETS_S } from '../config.js';
import type { Admission } from '../limits/admission.js';
import { LIMIT_REFUSAL_REASONS, type LimitRefusals } from '../limits/refusals.js';
import { addScanCounts, type ScanCounts, zeroScanCounts } from '../logs/answer.js';
import type { LogEngine } from '../logs/engine.js';
import type { AnswerCacheCounts } from '../rpc/answerCache.js';
import { INVALID_REQUEST, UNKNOWN_METHOD } from '../rpc/observe.js';
import type { StoreReader } from '../store/reader.js';
import { storeDiskBytes } from '../store/schema.js';
import type { UpstreamStats } from '../upstream/stats.js';
import { CallHistogram } from './callHistogram.js';
import {
  CallStatsTable,
  REFUSAL_REASONS,
  RefusalCounts,
  type RefusalReason,
  StatusCounts,
  type ThreadCounts,
} from './callStats.js';

/** The prefix of this service's own metric names. */
const PREFIX = 'ethlogd_';

/** What the metrics read when scraped. */
export interface MetricSources {
  /** The store directory (its data file's size). */
  dataDir: string;
  /** The store's reader (its head). */
  reader: StoreReader;
  /** The log engine (its scan totals and worker pool). */
  engine: LogEngine;
  /** The JSON-RPC methods served: their series exist from the start, at zero. */
  methods: Iterable<string>;
  /** The service's other HTTP threads, whose counts each scrape adds; none by default. */
  threads?: ThreadCountsSource;
  /** This thread's answer cache's hits and misses (rpc/answerCache.ts); the series is left out without it. */
  answers?: AnswerCacheCounts;
  /** The refusals of the admission limits by reason (limits/refusals.ts); the series is left out without them. */
  limitRefusals?: LimitRefusals;
  /** The admission of log queries and streams (its running, waiting and open counts); left out without it. */
  admission?: Admission;
  /** The polling filters installed (eth_newFilter, eth_newBlockFilter); the series is left out without it. */
  filters?: { readonly size: number; readonly bytes: number };
  /** The WebSocket subscriptions' byte budget (what every thread's `logs` subscriptions hold); left out without it. */
  subscriptions?: { readonly total: number };
  /** The calls forwarded to the upstream node (serve --upstream); the series are left out without it. */
  upstream?: UpstreamStats;
  /**
   * A replica's node head as last polled (serve --follow-rpc); the series is left out without it or before the node
   * answered.
   */
  nodeHead?: () => number | undefined;
}

/** The other HTTP threads of a service (threads 1, 2, …; this one is thread 0). */
export interface ThreadCountsSource {
  /** The counts of each other thread, in thread order; undefined for a thread that no longer runs. */
  counts(): Promise<(ThreadCounts | undefined)[]>;
}

/** A service's metrics: the accumulators its fronts feed, and the registry /metrics renders. */
export interface ServiceMetrics {
  /** The registry holding every metric of the service. */
  registry: Registry;
  /** Receives every JSON-RPC call (the dispatcher's CallObserver). */
  calls: CallStatsTable;
  /** Counts an HTTP response to an API request by status. */
  onResponse(status: number): void;
  /** Counts a request, message or connection a transport refused, by reason. */
  onRefusal(reason: RefusalReason): void;
  /** The text exposition, with its Content-Type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * A service's metrics as the scrape reads them, made once: the accumulators this thread feeds, what
 * a scrape shows, and the registry the series are registered in.
 */
interface MetricsState {
  sources: MetricSources;
  registry: Registry;
  /** Where every series is registered: the registry. */
  registers: Registry[];
  /** This thread's accumulators. */
  own: ShownCounts;
  /** What a scrape shows: this thread's accumulators, or with other threads the sums gathered for the scrape. */
  shown: ShownCounts;
  /** Responses per HTTP thread (index: thread number) as of the scrape; absent for a thread that no longer runs. */
  threadResponses: (number | undefined)[];
  /**
   * The eth_getLogs queries and scans a scrape shows: the engine's, plus the other threads' inline ones as of the
   * scrape.
   */
  scans: ScanCounts;
  /** The answer caches' hits and misses a scrape shows: this thread's, plus the other threads' as of the scrape. */
  answers: AnswerCacheCounts | undefined;
}

/** Calls, responses by status and refusals by reason: one thread's, or every thread's summed. */
interface ShownCounts {
  calls: CallStatsTable;
  statuses: StatusCounts;
  refusals: RefusalCounts;
}

/** The state of the metrics over `sources`, nothing counted yet. */
function metricsState(sources: MetricSources): MetricsState {
  const registry = new Registry();
  const calls = new CallStatsTable(METRICS_LATENCY_BUCKETS_S, [...sources.methods, UNKNOWN_METHOD, INVALID_REQUEST]);
  const own = { calls, statuses: new StatusCounts(), refusals: new RefusalCounts() };
  return {
    sources,
    registry,
    registers: [registry],
    own,
    shown:
      sources.threads === undefined
        ? own
        : {
            calls: new CallStatsTable(METRICS_LATENCY_BUCKETS_S, calls.byMethod.keys()),
            statuses: new StatusCounts(),
            refusals: new RefusalCounts(),
          },
    threadResponses: [],
    scans: sources.engine,
    answers: sources.answers,
  };
}

/** Sets what the scrape shows: this thread's counts, plus the other threads' when there are some. */
async function gather(state: MetricsState): Promise<void> {
  const { sources, own, shown } = state;
  const { threads } = sources;
  if (threads === undefined) {
    state.threadResponses = [own.statuses.total];
    return;
  }
  const others = await threads.counts();
  shown.calls.clear();
  shown.statuses.clear();
  shown.refusals.clear();
  const scans = zeroScanCounts();
  const answers = sources.answers && { hits: 0, misses: 0 };
  state.scans = scans;
  state.answers = answers;
  const all = [
    {
      calls: own.calls.snapshot(),
      statuses: own.statuses.snapshot(),
      logs: sources.engine,
      answers: sources.answers ?? { hits: 0, misses: 0 },
      refusals: own.refusals.snapshot(),
    },
    ...others,
  ];
  state.threadResponses = all.map((counts) => {
    if (counts === undefined) return undefined;
    shown.calls.add(counts.calls);
    addScanCounts(scans, counts.logs);
    for (const [reason, refused] of counts.refusals) shown.refusals.add(reason, refused);
    if (answers !== undefined) {
      answers.hits += counts.answers.hits;
      answers.misses += counts.answers.misses;
    }
    let total = 0;
    for (const [status, responses] of counts.statuses) {
      shown.statuses.add(status, responses);
      total += responses;
    }
    return total;
  });
}

/** The series of JSON-RPC calls and their latency, and of HTTP responses by status. */
function registerCallMetrics(state: MetricsState): void {
  const { registers, shown } = state;
  new Counter({
    name: `${PREFIX}rpc_requests_total`,
    help:
      'JSON-RPC calls (each item of a batch) by method and outcome ("ok" or the JSON-RPC error code); ' +
      'method "unknown" for methods not served, "invalid" for bodies that are not valid requests',
    labelNames: ['method', 'outcome'],
    registers,
    collect() {
      this.reset();
      for (const [method, stats] of shown.calls.byMethod) {
        // A served method's "ok" series exists from the start (rates need it); the labels of
        // unserved methods and invalid bodies never succeed, so they have none.
        if (method !== UNKNOWN_METHOD && method !== INVALID_REQUEST) this.inc({ method, outcome: 'ok' }, stats.ok);
        for (const [code, count] of stats.errors) this.inc({ method, outcome: String(code) }, count);
      }
    },
  });
  new CallHistogram(
    `${PREFIX}rpc_request_duration_seconds`,
    'Time to answer a JSON-RPC call, by method, in seconds (a batch item from its start to its answer)',
    shown.calls,
    state.registry,
  );
  new Counter({
    name: `${PREFIX}http_responses_total`,
    help:
      'HTTP responses to API requests by status: 200 for answered JSON-RPC bodies, 401/404/405/413/415 refusals, ' +
      '499 when the client left before the answer',
    labelNames: ['status'],
    registers,
    collect() {
      this.reset();
      for (const [status, count] of shown.statuses.byStatus) this.inc({ status: String(status) }, count);
    },
  });
}

/** The series of refusals by reason, and of HTTP responses by thread. */
function registerRefusalMetrics(state: MetricsState): void {
  const { registers, shown, sources } = state;
  new Counter({
    name: `${PREFIX}refusals_total`,
    help:
      'Requests, messages and connections a transport refused before the JSON-RPC layer, by reason: ' +
      'body_too_large (HTTP 413), ' +
      'content_length (HTTP 400, conflicting Content-Length), ws_message_too_large (WebSocket close 1009), ' +
      'grpc_connections (over --grpc-max-connections), ' +
      'grpc_preface_timeout (a gRPC connection silent past its preface timeout); ' +
      'and calls, filters, subscriptions and streams refused or ended by a limit of docs/api.md §6: ' +
      'log_queries, streams, ' +
      'filter_bytes, subscription_bytes, slow_subscriber',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      for (const reason of REFUSAL_REASONS) this.inc({ reason }, shown.refusals.byReason.get(reason) ?? 0);
      // Counted in shared memory by every thread: read as they are.
      const { limitRefusals } = sources;
      if (limitRefusals !== undefined)
        for (const reason of LIMIT_REFUSAL_REASONS) this.inc({ reason }, limitRefusals.get(reason));
    },
  });
  new Counter({
    name: `${PREFIX}http_thread_responses_total`,
    help:
      'HTTP responses to API requests by the HTTP thread that answered them ' +
      '(0 is the main thread; serve --http-threads)',
    labelNames: ['thread'],
    registers,
    collect() {
      this.reset();
      state.threadResponses.forEach((responses, thread) => {
        if (responses !== undefined) this.inc({ thread: String(thread) }, responses);
      });
    },
  });
}

/** A counter mirroring one of the engine's scan totals. */
function scanCounter(state: MetricsState, name: string, help: string, read: () => number): void {
  new Counter({
    name: `${PREFIX}${name}`,
    help,
    registers: state.registers,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** The series of eth_getLogs's scan work: blocks, candidates, false positives, queries by path, cancellations. */
function registerScanMetrics(state: MetricsState): void {
  const { registers, sources } = state;
  scanCounter(
    state,
    'getlogs_blocks_scanned_total',
    'Blocks covered by eth_getLogs (and gRPC log) scans, inline and on the pool',
    () => state.scans.totals.blocks,
  );
  scanCounter(
    state,
    'getlogs_candidate_blocks_total',
    'Candidate blocks (bloom or address index) whose log records were read',
    () => state.scans.totals.candidates,
  );
  scanCounter(
    state,
    'getlogs_false_positive_blocks_total',
    'Candidate blocks that held no matching log (bloom false positives)',
    () => state.scans.totals.candidates - state.scans.totals.matchedBlocks,
  );
  new Counter({
    name: `${PREFIX}getlogs_queries_total`,
    help:
      'eth_getLogs queries (HTTP and gRPC unary) by where they ran: ' +
      '"inline" on the thread that received them (planned cheap), "pool" on the worker threads',
    labelNames: ['path'],
    registers,
    collect() {
      this.reset();
      this.inc({ path: 'inline' }, state.scans.paths.inline);
      this.inc({ path: 'pool' }, state.scans.paths.pool);
    },
  });
  new Counter({
    name: `${PREFIX}getlogs_cancelled_total`,
    help:
      'Log queries on the pool stopped because their client went away ' +
      '(HTTP connection or WebSocket closed), while running',
    registers,
    collect() {
      this.reset();
      this.inc(sources.engine.cancelled);
    },
  });
}

/** The series of the answer cache's lookups, and of the calls forwarded upstream, when the service has them. */
function registerAnswerAndUpstreamMetrics(state: MetricsState): void {
  const { registers, sources } = state;
  if (sources.answers !== undefined) {
    new Counter({
      name: `${PREFIX}answer_cache_lookups_total`,
      help:
        'Calls of the methods whose answers are kept (rpc/answerCache.ts) by whether their answer was kept ("hit") ' +
        'or found afresh ("miss"); --answer-cache-mb',
      labelNames: ['result'],
      registers,
      collect() {
        this.reset();
        this.inc({ result: 'hit' }, state.answers?.hits ?? 0);
        this.inc({ result: 'miss' }, state.answers?.misses ?? 0);
      },
    });
  }
  const { upstream } = sources;
  if (upstream === undefined) return;
  new Counter({
    name: `${PREFIX}upstream_requests_total`,
    help:
      'Calls forwarded to the upstream node (serve --upstream) by method and outcome: "ok", ' +
      '"node_error" (the node answered an error, passed on), "timeout" (-32015), "unavailable" (-32011)',
    labelNames: ['method', 'outcome'],
    registers,
    collect() {
      this.reset();
      for (const [method, outcomes] of upstream.outcomes)
        for (const [outcome, count] of outcomes) this.inc({ method, outcome }, count);
    },
  });
  new CallHistogram(
    `${PREFIX}upstream_request_duration_seconds`,
    'Time the upstream node took to answer a forwarded call, by method, in seconds ' +
      '(its request from its send to its answer or failure)',
    upstream.latency,
    state.registry,
  );
}

/** A gauge read when scraped; `read` returns undefined when there is no value (the series is left out). */
function gauge(state: MetricsState, name: string, help: string, read: () => number | undefined): void {
  new Gauge({
    name: `${PREFIX}${name}`,
    help,
    registers: state.registers,
    collect() {
      this.reset();
      const value = read();
      if (value !== undefined) this.set(value);
    },
  });
}

/** The gauges: the worker pool, the store, filters, admission, subscriptions, the heads. */
function registerGauges(state: MetricsState): void {
  const { sources } = state;
  const { engine, admission, reader } = sources;
  gauge(
    state,
    'log_pool_queue_size',
    'eth_getLogs scan tasks waiting for a worker thread',
    () => engine.pool.queueSize,
  );
  gauge(
    state,
    'log_pool_utilization',
    'Busy share of the worker pool since it started (0 to 1, Piscina utilization)',
    () => engine.pool.utilization,
  );
  gauge(state, 'log_pool_threads', 'Worker threads of the eth_getLogs pool', () => engine.pool.threads.length);
  gauge(state, 'store_size_bytes', 'Disk space the LMDB store (its data file) takes, in bytes', () =>
    storeDiskBytes(sources.dataDir),
  );
  gauge(
    state,
    'filters_installed',
    'Polling filters installed (eth_newFilter, eth_newBlockFilter) and not yet uninstalled or expired',
    () => sources.filters?.size,
  );
  gauge(
    state,
    'log_queries_running',
    'Log queries on the scan pool now, all keys (--max-log-queries)',
    () => admission?.queries,
  );
  gauge(
    state,
    'log_queries_waiting',
    'Log queries waiting for their turn on the scan pool, all keys (--log-queue)',
    () => admission?.queued,
  );
  gauge(state, 'log_streams_open', 'StreamLogs calls open now, all keys (--max-streams)', () => admission?.openStreams);
  gauge(
    state,
    'filters_bytes',
    'Bytes the polling filters hold, criteria and pending changes (--filter-mb)',
    () => sources.filters?.bytes,
  );
  gauge(
    state,
    'subscriptions_bytes',
    'Bytes the WebSocket subscriptions of every HTTP thread hold (--subscription-mb)',
    () => sources.subscriptions?.total,
  );
  gauge(state, 'head_block', 'Number of the latest block in the store (absent while it holds none)', () =>
    reader.head(),
  );
  gauge(
    state,
    'node_head_block',
    "A replica's node's latest block as last polled (serve --follow-rpc; absent otherwise): " +
      'the lag is this minus head_block',
    () => sources.nodeHead?.(),
  );
}

/** Creates the metrics of a service over `sources`. */
export function createServiceMetrics(sources: MetricSources): ServiceMetrics {
  const state = metricsState(sources);
  registerCallMetrics(state);
  registerRefusalMetrics(state);
  registerScanMetrics(state);
  registerAnswerAndUpstreamMetrics(state);
  registerGauges(state);
  const { registry, own } = state;
  collectDefaultMetrics({ register: registry });

  return {
    registry,
    calls: own.calls,
    onResponse: (status) => own.statuses.add(status),
    onRefusal: (reason) => own.refusals.add(reason),
    render: async () => {
      await gather(state);
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
