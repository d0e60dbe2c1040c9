/**
 * `ethlogd serve`: serves a store over HTTP, and over gRPC when given a port, until SIGINT or SIGTERM.
 * Every option comes from a flag, an ETHLOGD_* environment variable or a JSON config file, in that
 * order of precedence (src/cli/options.ts).
 */
import { availableParallelism } from 'node:os';
import {
  DEFAULT_BROTLI_QUALITY,
  DEFAULT_COMPRESSION_MIN_BYTES,
  DEFAULT_FILTER_BYTES,
  DEFAULT_FILTER_BYTES_PER_KEY,
  DEFAULT_GZIP_LEVEL,
  DEFAULT_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_LOG_QUERIES,
  DEFAULT_LOG_QUERIES_PER_KEY,
  DEFAULT_LOG_QUEUE,
  DEFAULT_LOG_QUEUE_PER_KEY,
  DEFAULT_MAX_LAG_BLOCKS,
  DEFAULT_RATE_BURST_SECONDS,
  DEFAULT_RATE_COST_BLOCKS,
  DEFAULT_RATE_LIMIT_PER_SECOND,
  DEFAULT_STREAMS,
  DEFAULT_STREAMS_PER_KEY,
  DEFAULT_SUBSCRIPTION_BYTES,
  DEFAULT_SUBSCRIPTION_BYTES_PER_KEY,
  FOLLOW_POLL_MS,
  GRPC_IDLE_TIMEOUT_MS,
  GRPC_MAX_CONNECTIONS,
  LOG_QUERY_TIMEOUT_MS,
  MAX_FILTER_PARAMS,
  MAX_LOG_RESULTS,
  SHUTDOWN_GRACE_MARGIN_MS,
  STREAM_STALL_MS,
  STREAM_TIMEOUT_MS,
} from '../config.js';
import type { AccessLogMode } from '../http/accessLog.js';
import type { CompressionOptions } from '../http/compress.js';
import { defaultHttpThreads } from '../http/threads.js';
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from '../logger.js';
import type { ReplicaSync } from '../replica/lag.js';
import type { Replica } from '../replica/replica.js';
import { DEFAULT_ANSWER_CACHE_BYTES } from '../rpc/answerCache.js';
import { METHODS } from '../rpc/methods/index.js';
import type { RunningService, ServiceOptions } from '../service.js';
import { UPSTREAM_CONCURRENCY, UPSTREAM_TIMEOUT_MS } from '../upstream/client.js';
import { DEFAULT_UPSTREAM_METHODS, ForwardListError, forwardedMethods, SEND_METHOD } from '../upstream/methods.js';
import { existingStore, UsageError } from './args.js';
import { type OptionSpec, optionsHelp, type ResolvedOptions, resolveOptions } from './options.js';

/** Largest value a millisecond or count option takes (about 24 days: setTimeout's limit). */
const MAX_OPTION_INT = 2 ** 31 - 1;

/** Bytes in a MiB (--answer-cache-mb). */
const MIB = 1024 * 1024;

/** Largest byte budget in MiB (--filter-mb, --subscription-mb): 64 GiB, past what any machine this runs on holds. */
const MAX_BUDGET_MB = 64 * 1024;

/** Largest --answer-cache-mb: 64 GiB per thread, past what any machine this runs on holds. */
const MAX_ANSWER_CACHE_MB = 64 * 1024;

/** The values of --compression: the codings offered, as the client's Accept-Encoding picks among them. */
const COMPRESSION_CHOICES: Readonly<Record<string, CompressionOptions['codings']>> = {
  'br,gzip': ['br', 'gzip'],
  gzip: ['gzip'],
  off: [],
};

/** The --access-log value that samples: one request in N. */
const ACCESS_LOG_SAMPLE = /^sample:([1-9]\d{0,8})$/;

/** The access log mode an --access-log value names (checked against its pattern first). */
export function accessLogMode(value: string): AccessLogMode {
  const sample = ACCESS_LOG_SAMPLE.exec(value);
  return sample ? { sample: Number(sample[1]) } : value === 'off' ? 'off' : 'on';
}

/** Every option of `serve`, with its default. */
export const SERVE_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'data',
    type: { kind: 'string' },
    required: true,
    placeholder: 'DIR',
    description: 'store directory (made by generate or ingest)',
  },
  {
    name: 'host',
    type: { kind: 'string' },
    default: DEFAULT_HOST,
    placeholder: 'HOST',
    description: 'address to bind',
  },
  {
    name: 'port',
    type: { kind: 'integer', min: 0, max: 65535 },
    default: DEFAULT_HTTP_PORT,
    placeholder: 'PORT',
    description: 'HTTP port, 0 for any free port',
  },
  {
    name: 'grpc-port',
    type: { kind: 'integer', min: 0, max: 65535, off: true },
    defaultText: 'off',
    placeholder: 'PORT|off',
    description: 'gRPC port, 0 for any free port, off for no gRPC front (overrides the config file)',
  },
  {
    name: 'threads',
    type: { kind: 'integer', min: 1, max: 256 },
    default: availableParallelism(),
    defaultText: `${availableParallelism()} (the cores)`,
    description: 'eth_getLogs worker threads',
  },
  {
    name: 'http-threads',
    type: { kind: 'integer', min: 1, max: 256 },
    default: defaultHttpThreads(),
    defaultText: `${defaultHttpThreads()} (the cores but one, at least one)`,
    description: 'HTTP threads, each a uWebSockets.js app on the same port (1: the main thread alone)',
  },
  {
    name: 'log-timeout-ms',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: LOG_QUERY_TIMEOUT_MS,
    placeholder: 'MS',
    description: 'eth_getLogs deadline',
  },
  {
    name: 'max-log-results',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: MAX_LOG_RESULTS,
    description: 'eth_getLogs result cap',
  },
  {
    name: 'max-filter-params',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: MAX_FILTER_PARAMS,
    description: 'addresses + topics per filter',
  },
  {
    name: 'answer-cache-mb',
    type: { kind: 'integer', min: 0, max: MAX_ANSWER_CACHE_MB },
    default: DEFAULT_ANSWER_CACHE_BYTES / MIB,
    placeholder: 'MB',
    description:
      'answers of block, transaction, storage and log calls kept per HTTP thread until the head moves, in MiB; ' +
      '0 for none',
  },
  {
    name: 'stream-timeout-ms',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: STREAM_TIMEOUT_MS,
    placeholder: 'MS',
    description: 'gRPC StreamLogs deadline, 0 for none (a stream resumes from its cursor)',
  },
  {
    name: 'stream-stall-ms',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: STREAM_STALL_MS,
    placeholder: 'MS',
    description: 'gRPC StreamLogs whose client reads nothing this long are ended, 0 for never',
  },
  {
    name: 'grpc-max-connections',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: GRPC_MAX_CONNECTIONS,
    description: 'open gRPC connections at once; more are closed as they connect',
  },
  {
    name: 'grpc-idle-timeout-ms',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: GRPC_IDLE_TIMEOUT_MS,
    placeholder: 'MS',
    description: 'a gRPC connection without a call this long (from its start) is closed',
  },
  {
    name: 'rate-limit',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: DEFAULT_RATE_LIMIT_PER_SECOND,
    defaultText: `${DEFAULT_RATE_LIMIT_PER_SECOND} (no limit)`,
    description: 'calls per second per API key (HTTP 429 / -32005 past it)',
  },
  {
    name: 'rate-burst',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    defaultText: `${DEFAULT_RATE_BURST_SECONDS} s of --rate-limit`,
    description: 'calls a key may make at once',
  },
  {
    name: 'rate-cost-blocks',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: DEFAULT_RATE_COST_BLOCKS,
    placeholder: 'BLOCKS',
    description:
      'with --rate-limit, a pooled log query costs one more call per this many blocks of its range; 0: calls only',
  },
  {
    name: 'max-log-queries-per-key',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: DEFAULT_LOG_QUERIES_PER_KEY,
    description: 'log queries on the scan pool one API key runs at once (more wait their turn)',
  },
  {
    name: 'max-log-queries',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: DEFAULT_LOG_QUERIES,
    description: 'log queries on the scan pool the process runs at once, turns taken round-robin by key',
  },
  {
    name: 'log-queue-per-key',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: DEFAULT_LOG_QUEUE_PER_KEY,
    description: 'log queries one key may have waiting (-32005 / HTTP 429 past it)',
  },
  {
    name: 'log-queue',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: DEFAULT_LOG_QUEUE,
    description: 'log queries waiting in all (-32005 / HTTP 429 past it)',
  },
  {
    name: 'max-streams-per-key',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: DEFAULT_STREAMS_PER_KEY,
    description: 'gRPC StreamLogs calls one API key holds open at once',
  },
  {
    name: 'max-streams',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: DEFAULT_STREAMS,
    description: 'gRPC StreamLogs calls the process holds open at once',
  },
  {
    name: 'filter-mb-per-key',
    type: { kind: 'integer', min: 1, max: MAX_BUDGET_MB },
    default: DEFAULT_FILTER_BYTES_PER_KEY / MIB,
    placeholder: 'MB',
    description: "MiB one API key's polling filters may hold, criteria and pending changes",
  },
  {
    name: 'filter-mb',
    type: { kind: 'integer', min: 1, max: MAX_BUDGET_MB },
    default: DEFAULT_FILTER_BYTES / MIB,
    placeholder: 'MB',
    description: 'MiB all polling filters may hold',
  },
  {
    name: 'subscription-mb-per-key',
    type: { kind: 'integer', min: 1, max: MAX_BUDGET_MB },
    default: DEFAULT_SUBSCRIPTION_BYTES_PER_KEY / MIB,
    placeholder: 'MB',
    description: "MiB one API key's WebSocket subscriptions may hold, on every HTTP thread",
  },
  {
    name: 'subscription-mb',
    type: { kind: 'integer', min: 1, max: MAX_BUDGET_MB },
    default: DEFAULT_SUBSCRIPTION_BYTES / MIB,
    placeholder: 'MB',
    description: 'MiB all WebSocket subscriptions may hold',
  },
  {
    name: 'shutdown-grace-ms',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    defaultText: `--log-timeout-ms + ${SHUTDOWN_GRACE_MARGIN_MS}`,
    placeholder: 'MS',
    description: 'on SIGTERM, how long requests in flight may finish',
  },
  {
    name: 'no-metrics',
    type: { kind: 'boolean' },
    default: false,
    description: 'do not serve GET /metrics (and keep no counters)',
  },
  {
    name: 'compression',
    type: { kind: 'choice', choices: Object.keys(COMPRESSION_CHOICES) },
    default: 'br,gzip',
    placeholder: 'CODINGS',
    description:
      'compress HTTP answers for clients that accept it (Accept-Encoding): brotli or gzip, gzip only, or never',
  },
  {
    name: 'compression-min-bytes',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: DEFAULT_COMPRESSION_MIN_BYTES,
    placeholder: 'BYTES',
    description: 'HTTP answers smaller than this go out uncompressed',
  },
  {
    name: 'gzip-level',
    type: { kind: 'integer', min: 1, max: 9 },
    default: DEFAULT_GZIP_LEVEL,
    description: 'gzip level, 1 (fastest) to 9 (smallest)',
  },
  {
    name: 'brotli-quality',
    type: { kind: 'integer', min: 0, max: 11 },
    default: DEFAULT_BROTLI_QUALITY,
    description: 'brotli quality, 0 (fastest) to 11 (smallest)',
  },
  {
    name: 'access-log',
    type: { kind: 'pattern', pattern: /^(?:on|off|sample:[1-9]\d{0,8})$/, expected: 'on, off or sample:N' },
    default: 'on',
    placeholder: 'MODE',
    description:
      'one info line per HTTP request; sample:N writes one in N per HTTP thread, and 401, 413, 429 and 5xx always',
  },
  {
    name: 'log-level',
    type: { kind: 'choice', choices: LOG_LEVELS },
    default: 'info',
    placeholder: 'LEVEL',
    description: 'log level (JSON lines on stderr)',
  },
  {
    name: 'follow-rpc',
    type: { kind: 'pattern', pattern: /^https?:\/\/\S+$/, expected: 'an http:// or https:// URL' },
    placeholder: 'URL',
    description:
      "run as a replica: follow this node's head (ingest --follow, a supervised child) while serving, " +
      'and report the lag',
  },
  {
    name: 'follow-poll-ms',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: FOLLOW_POLL_MS,
    placeholder: 'MS',
    description: "with --follow-rpc, how often the node's head is polled",
  },
  {
    name: 'follow-storage',
    type: { kind: 'choice', choices: ['prestate', 'none'] },
    default: 'prestate',
    placeholder: 'MODE',
    description: 'with --follow-rpc, storage history copied as ingest --storage does',
  },
  {
    name: 'max-lag-blocks',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: DEFAULT_MAX_LAG_BLOCKS,
    description:
      'with --follow-rpc, blocks the store may be behind the node while /ready answers 200 and eth_syncing false',
  },
  {
    name: 'upstream',
    type: { kind: 'pattern', pattern: /^https?:\/\/\S+$/, expected: 'an http:// or https:// URL' },
    placeholder: 'URL',
    defaultText: "--follow-rpc's URL, else none",
    description:
      'forward the calls the store cannot answer (eth_call, balances, code, traces: docs/api.md §9) to this node; ' +
      'never logged',
  },
  {
    name: 'upstream-methods',
    type: {
      kind: 'pattern',
      pattern: /^[a-zA-Z][a-zA-Z0-9_]*(,[a-zA-Z][a-zA-Z0-9_]*)*$/,
      expected: 'method names separated by commas',
    },
    placeholder: 'LIST',
    defaultText: DEFAULT_UPSTREAM_METHODS.join(','),
    description:
      'with --upstream, the methods forwarded (never admin_*, personal_*, miner_*, debug_set*, nor a wallet method)',
  },
  {
    name: 'upstream-send',
    type: { kind: 'boolean' },
    default: false,
    description: `with --upstream, forward ${SEND_METHOD} too`,
  },
  {
    name: 'upstream-timeout-ms',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    default: UPSTREAM_TIMEOUT_MS,
    placeholder: 'MS',
    description: 'with --upstream, how long a forwarded call may take (-32015 past it)',
  },
  {
    name: 'upstream-concurrency',
    type: { kind: 'integer', min: 1, max: 4096 },
    default: UPSTREAM_CONCURRENCY,
    description: 'with --upstream, requests in flight to the node at once',
  },
  {
    name: 'upstream-rate-limit',
    type: { kind: 'integer', min: 0, max: MAX_OPTION_INT },
    default: 0,
    defaultText: '0 (only --rate-limit)',
    description: 'with --upstream, forwarded calls per second per API key, on top of --rate-limit (-32005 past it)',
  },
  {
    name: 'upstream-rate-burst',
    type: { kind: 'integer', min: 1, max: MAX_OPTION_INT },
    defaultText: `${DEFAULT_RATE_BURST_SECONDS} s of --upstream-rate-limit`,
    description: 'forwarded calls a key may make at once',
  },
];

/** The options only a replica takes: given without --follow-rpc they would mean nothing, and are refused. */
const REPLICA_OPTIONS = ['follow-poll-ms', 'follow-storage', 'max-lag-blocks'];

/** The options that tune forwarding: given with no upstream node they would mean nothing, and are refused. */
const UPSTREAM_OPTIONS = [
  'upstream-methods',
  'upstream-send',
  'upstream-timeout-ms',
  'upstream-concurrency',
  'upstream-rate-limit',
  'upstream-rate-burst',
];

/** Usage text of `serve`. */
export const SERVE_USAGE = `Usage: ethlogd serve --data DIR [options]

Serves the store in DIR: POST /v3/<API_KEY> with JSON-RPC 2.0 (single or batch), and with
--grpc-port the gRPC service ethlogd.v1.EthLogs (src/grpc/ethlogd.proto, key in x-api-key metadata).
Prints "listening on http://HOST:PORT" once it accepts requests, then "grpc listening on HOST:PORT"
when gRPC is on. SIGINT/SIGTERM stop accepting at once, let requests in flight finish within
--shutdown-grace-ms, then close the workers and the store: exit 0, or 1 if requests had to be cut;
a second signal exits at once.

With --upstream URL (or --follow-rpc URL) the calls the store cannot answer (eth_call, balances,
code, nonces, gas, fees, traces) go to that node, their latest/safe/finalized pinned to the store's
own head and markers; other methods answer -32601.

With --follow-rpc URL it is a replica: it also runs ingest --follow on DIR against the node (a child
process it restarts, logging why, whenever it stops), polls the node's head, and answers /ready with
503 while the store is more than --max-lag-blocks behind it (eth_syncing agrees). Every JSON-RPC
answer carries X-Ethlogd-Head: the head of the snapshot it was answered from.

Each option is read from its flag, else its environment variable, else the config file, else its
default.

Options:
${optionsHelp(SERVE_OPTIONS)}`;

/** The option values of a `serve` run. */
type Values = ResolvedOptions['values'];

/** The node a `serve` run forwards to and follows, as its options ask. */
interface NodeOptions {
  /** The node a replica follows (--follow-rpc). */
  followRpc: string | undefined;
  /** The node calls are forwarded to: --upstream, else --follow-rpc. */
  upstreamUrl: string | undefined;
  /** The methods forwarded (--upstream-methods); the default list when unset. */
  upstreamMethods: string[] | undefined;
}

/**
 * The node options of `resolved`, checked: a replica option needs --follow-rpc, an upstream option
 * a node to forward to, and the forwarded methods must be known; throws a UsageError.
 */
function nodeOptions(resolved: ResolvedOptions): NodeOptions {
  const { values: v, sources } = resolved;
  const followRpc = v['follow-rpc'] as string | undefined;
  const strayReplicaOption = REPLICA_OPTIONS.find((name) => sources[name] !== 'default');
  if (followRpc === undefined && strayReplicaOption !== undefined)
    throw new UsageError(
      `--${strayReplicaOption} needs --follow-rpc (the lag is measured against the node a replica follows)`,
    );
  const upstreamUrl = (v.upstream as string | undefined) ?? followRpc;
  const strayUpstreamOption = UPSTREAM_OPTIONS.find((name) => sources[name] !== 'default');
  if (upstreamUrl === undefined && strayUpstreamOption !== undefined)
    throw new UsageError(
      `--${strayUpstreamOption} needs --upstream URL (or --follow-rpc URL): the node calls are forwarded to`,
    );
  const upstreamMethods = (v['upstream-methods'] as string | undefined)?.split(',');
  try {
    if (upstreamUrl !== undefined)
      forwardedMethods(upstreamMethods, v['upstream-send'] === true, new Set(METHODS.keys()));
  } catch (error) {
    if (error instanceof ForwardListError) throw new UsageError(`--upstream-methods: ${error.message}`);
    throw error;
  }
  return { followRpc, upstreamUrl, upstreamMethods };
}

/** The service's limits of `v`: log queries, rate limits, admission and byte budgets. */
function limitOptions(
  v: Values,
): Pick<
  ServiceOptions,
  'limits' | 'rateLimit' | 'rateCostBlocks' | 'admission' | 'filterBudget' | 'subscriptionBudget'
> {
  return {
    limits: {
      timeoutMs: v['log-timeout-ms'] as number,
      maxResults: v['max-log-results'] as number,
      maxParams: v['max-filter-params'] as number,
    },
    rateLimit: { perSecond: v['rate-limit'] as number, burst: v['rate-burst'] as number | undefined },
    rateCostBlocks: v['rate-cost-blocks'] as number,
    admission: {
      queriesPerKey: v['max-log-queries-per-key'] as number,
      queries: v['max-log-queries'] as number,
      queuePerKey: v['log-queue-per-key'] as number,
      queue: v['log-queue'] as number,
      streamsPerKey: v['max-streams-per-key'] as number,
      streams: v['max-streams'] as number,
    },
    filterBudget: { perKey: (v['filter-mb-per-key'] as number) * MIB, total: (v['filter-mb'] as number) * MIB },
    subscriptionBudget: {
      perKey: (v['subscription-mb-per-key'] as number) * MIB,
      total: (v['subscription-mb'] as number) * MIB,
    },
  };
}

/** Where `serve` forwards the calls the store cannot answer, when it has a node. */
function upstreamOptions(v: Values, node: NodeOptions): ServiceOptions['upstream'] {
  const { upstreamUrl } = node;
  if (upstreamUrl === undefined) return undefined;
  return {
    url: upstreamUrl,
    methods: node.upstreamMethods,
    send: v['upstream-send'] === true,
    timeoutMs: v['upstream-timeout-ms'] as number,
    concurrency: v['upstream-concurrency'] as number,
    rateLimit: {
      perSecond: v['upstream-rate-limit'] as number,
      burst: v['upstream-rate-burst'] as number | undefined,
    },
  };
}

/** The service `serve` starts over the store at `dataDir`, as `v` asks. */
function serviceOptions(
  v: Values,
  dataDir: string,
  node: NodeOptions,
  replica: ReplicaSync | undefined,
  logger: Logger,
): ServiceOptions {
  return {
    dataDir,
    readOnlyProcess: true,
    replica,
    host: v.host as string,
    port: v.port as number,
    grpcPort: v['grpc-port'] as number | undefined,
    grpcStream: { timeoutMs: v['stream-timeout-ms'] as number, stallMs: v['stream-stall-ms'] as number },
    grpcConnections: { max: v['grpc-max-connections'] as number, idleTimeoutMs: v['grpc-idle-timeout-ms'] as number },
    threads: v.threads as number,
    httpThreads: v['http-threads'] as number,
    answerCacheBytes: (v['answer-cache-mb'] as number) * MIB,
    ...limitOptions(v),
    shutdownGraceMs: v['shutdown-grace-ms'] as number | undefined,
    metrics: v['no-metrics'] !== true,
    compression: {
      codings: COMPRESSION_CHOICES[v.compression as string],
      minBytes: v['compression-min-bytes'] as number,
      gzipLevel: v['gzip-level'] as number,
      brotliQuality: v['brotli-quality'] as number,
    },
    accessLog: accessLogMode(v['access-log'] as string),
    upstream: upstreamOptions(v, node),
    logger,
  };
}

/**
 * Resolves with the exit code once SIGINT or SIGTERM has stopped the service and the replica's
 * follower: 0, or 1 when requests had to be cut or the shutdown failed.
 */
function stopOnSignal(service: RunningService, replica: Replica | undefined, logger: Logger): Promise<number> {
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      logger.info(`${signal}: shutting down`);
      Promise.all([service.close(), replica?.close()]).then(
        ([outcome]) => resolve(outcome.clean ? 0 : 1),
        (error) => {
          logger.error('shutdown failed', error);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/** Runs `serve`. */
export async function serveCommand(argv: string[]): Promise<number> {
  const resolved = resolveOptions(argv, SERVE_OPTIONS);
  const { values: v, help } = resolved;
  if (help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  const node = nodeOptions(resolved);
  const { followRpc } = node;
  const logger = createLogger(v['log-level'] as LogLevel);
  // The servers' modules (uWebSockets.js, grpc-js) load here, so `serve --help` and usage errors start fast.
  const { startService } = await import('../service.js');
  const { Replica } = await import('../replica/replica.js');
  const dataDir = existingStore(v.data as string);
  const replica = followRpc === undefined ? undefined : new Replica(v['max-lag-blocks'] as number);
  const service = await startService(serviceOptions(v, dataDir, node, replica?.sync, logger));
  if (replica !== undefined && followRpc !== undefined) {
    replica.follow({
      rpc: followRpc,
      dataDir,
      pollMs: v['follow-poll-ms'] as number,
      storage: v['follow-storage'] as string,
      logLevel: v['log-level'] as LogLevel,
      logger,
    });
  }
  // The signal handlers go in before the lines that say it listens: a supervisor that stops the
  // server as soon as it reads them must not meet the default disposition (killed by the signal).
  const stopped = stopOnSignal(service, replica, logger);
  console.log(`listening on ${service.url}`);
  if (service.grpcPort !== undefined) console.log(`grpc listening on ${service.host}:${service.grpcPort}`);
  return stopped;
}
