/**
 * Every limit and default of the service, named, with the reason for its value.
 */

/** eth_getLogs result cap: docs/api.md §6 (-32005 past it). */
export const MAX_LOG_RESULTS = 10_000;

/** eth_getLogs time budget in milliseconds: docs/api.md §6 (-32005 `query timeout exceeded` past it). */
export const LOG_QUERY_TIMEOUT_MS = 10_000;

/** Addresses plus topic values one eth_getLogs filter may carry: docs/api.md §6. */
export const MAX_FILTER_PARAMS = 5_000;

/** Topic positions a filter may constrain: the EVM's LOG0..LOG4 emit at most four topics. */
export const MAX_TOPIC_POSITIONS = 4;

/** Items one JSON-RPC batch may hold: docs/api.md §6 (bounds the work one request can queue). */
export const MAX_BATCH_ITEMS = 1_000;

/**
 * Largest batch answer in bytes: geth's default --rpc.batch-response-max-size. An item whose answer
 * would take the batch past it, and every item not started by then, answers -32003 `response too
 * large`, so one batch cannot hold gigabytes of logs.
 */
export const MAX_BATCH_RESPONSE_BYTES = 25_000_000;

/** Asynchronous items (eth_getLogs) of one batch running at once: keeps its memory bounded, still concurrent. */
export const MAX_BATCH_CONCURRENCY = 4;

/** Largest request body in bytes: docs/api.md §6 (413 past it; a 1,000-item batch fits easily). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects a request body may have, checked by a scan before it is
 * parsed: no method's params nest past 4 levels, and JSON.parse of millions of levels holds the
 * thread for a second or more (-32600 past it, docs/api.md §6).
 */
export const MAX_JSON_DEPTH = 128;

/** Default HTTP port: the Ethereum JSON-RPC convention, so clients work unconfigured. */
export const DEFAULT_HTTP_PORT = 8545;

/** Default bind address: loopback, so a fresh install is not exposed to the network. */
export const DEFAULT_HOST = '127.0.0.1';

/** Client version reported by web3_clientVersion. */
export const CLIENT_VERSION = 'ethlogd/0.1.0';

/**
 * Upper bounds (seconds) of the per-method latency histogram: point lookups answer in 5 to 50 µs
 * and eth_getLogs in milliseconds up to its 10 s deadline, so the bounds run from 10 µs to 10 s,
 * about three per decade (19 buckets per method keeps a scrape small).
 */
export const METRICS_LATENCY_BUCKETS_S: readonly number[] = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  5, 10,
];

/** Runtime limits of the log query path; tests shrink them, production keeps the defaults. */
export interface LogLimits {
  maxResults: number;
  timeoutMs: number;
  maxParams: number;
}

/** The eth_getLogs limits of docs/api.md §6. */
export const DEFAULT_LOG_LIMITS: LogLimits = {
  maxResults: MAX_LOG_RESULTS,
  timeoutMs: LOG_QUERY_TIMEOUT_MS,
  maxParams: MAX_FILTER_PARAMS,
};

/**
 * Blocks per upstream batch request during ingest (three calls each: block, receipts, storage diff): geth caps a batch
 * at 1,000 calls and its response at 25 MB, and ten mainnet blocks with full transactions, receipts and storage diffs
 * stay well under both.
 */
export const INGEST_BLOCKS_PER_REQUEST = 10;

/**
 * Upstream batch requests in flight at once during ingest: enough to hide the round trip and keep a node's cores busy,
 * few enough to stay under hosted providers' concurrency limits.
 */
export const INGEST_REQUESTS_IN_FLIGHT = 8;

/**
 * Blocks per write transaction during ingest: amortises LMDB's commit (an fsync) over many blocks while one commit
 * stays a few MB at mainnet density.
 */
export const INGEST_COMMIT_BLOCKS = 200;

/**
 * Longest fetched blocks wait before they are committed: on a slow node readers still see progress (and a stop loses
 * little) about once a second.
 */
export const INGEST_COMMIT_INTERVAL_MS = 1_000;

/**
 * Most calls in one upstream batch request: geth's default BatchRequestLimit (larger batches are refused whole); longer
 * batches are split.
 */
export const RPC_MAX_BATCH_CALLS = 1_000;

/**
 * Timeout of one upstream request: a batch of heavy blocks with storage diffs can take seconds on a loaded node; past
 * this it is retried.
 */
export const RPC_TIMEOUT_MS = 30_000;

/**
 * Retries of a failed upstream request (timeout, network error, HTTP 429 or 5xx) before ingest stops: with the backoff
 * below, that rides out about a minute of node trouble.
 */
export const RPC_MAX_RETRIES = 8;

/**
 * First retry delay in milliseconds; it doubles (with jitter) each attempt: short enough that a one-off failure costs
 * little.
 */
export const RPC_RETRY_BASE_MS = 200;

/**
 * Longest retry delay in milliseconds (also the cap on a node's Retry-After): a rate-limited node gets room without
 * stalling ingest for minutes.
 */
export const RPC_RETRY_MAX_MS = 10_000;

/**
 * Head poll interval of follow mode: well under a 12 s slot, so a new block is stored within about a second of the node
 * having it.
 */
export const FOLLOW_POLL_MS = 1_000;

/**
 * Block hashes fetched per request while walking back to a reorganisation's common ancestor: most reorganisations are
 * one or two blocks, so one request usually finds it.
 */
export const REORG_WALK_BLOCKS = 32;

/**
 * Deepest reorganisation ingest follows: far beyond finality (two epochs, 64 blocks); a deeper divergence means the
 * node serves another chain, and ingest stops rather than discard the store.
 */
export const MAX_REORG_DEPTH = 4_096;

/**
 * Refetches of a block range whose answers disagree (block, receipts and traces from different blocks): that happens
 * only when the node's head moves between the calls of one batch, which a refetch or two outlasts.
 */
export const INGEST_INCONSISTENT_RETRIES = 3;

/**
 * StreamLogs deadline in milliseconds (0: none; the call's own gRPC deadline still applies): a
 * stream holds its buffers and a share of the pool for as long as it runs, so one is ended with
 * DEADLINE_EXCEEDED after 10 minutes; a pipeline resumes from the last batch's cursor.
 */
export const STREAM_TIMEOUT_MS = 600_000;

/**
 * Longest a StreamLogs waits for its client to read (its send buffer full) before it is ended with
 * DEADLINE_EXCEEDED: a client that never reads holds megabytes of buffers until then.
 */
export const STREAM_STALL_MS = 30_000;

/** Open gRPC connections the process accepts; more are closed as they connect: clients multiplex calls over a few. */
export const GRPC_MAX_CONNECTIONS = 1_024;

/**
 * A gRPC connection without a call for this long is closed (GOAWAY; grpc-js's grpc.max_connection_idle_ms): WebSocket's
 * idle timeout is the same 2 minutes.
 */
export const GRPC_IDLE_TIMEOUT_MS = 120_000;

/**
 * A gRPC connection that sends nothing for this long after it opens is closed: a client sends its preface at once;
 * uWS's HTTP idle timeout is the same 10 s.
 */
export const GRPC_PREFACE_TIMEOUT_MS = 10_000;

/**
 * Logs one StreamLogs scan task renders before it hands back (then the rest of its range is planned again): bounds a
 * task's buffer to about 1 MB, while a task still takes milliseconds, far above its dispatch cost.
 */
export const STREAM_TASK_LOGS = 4096;

/**
 * Largest LogBatch of a StreamLogs answer in bytes (whole logs, so one large log may exceed it): well under gRPC's 4
 * MiB default receive limit, small enough that a stream's resumption granularity and per-message latency stay low.
 */
export const STREAM_BATCH_BYTES = 128 * 1024;

/**
 * How long a shutdown waits for requests in flight beyond the eth_getLogs deadline (the drain bound
 * is that deadline plus this, 12 s by default): time to render and send a 10,000-log answer to a
 * slow client once its query ends. HTTP requests and gRPC calls (streams included: they resume
 * from their cursor) still running at the bound are cut off, and `serve` then exits 1.
 */
export const SHUTDOWN_GRACE_MARGIN_MS = 2_000;

/**
 * Per-key request rate limit in calls per second by default: none, since a self-hosted service serves its own clients;
 * an operator sharing it sets one.
 */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 0;

/**
 * Burst of a rate limit, in seconds of its rate, when none is given: a client may spend one second's allowance at once
 * (start-up calls, a modest batch), and an idle key hoards no more.
 */
export const DEFAULT_RATE_BURST_SECONDS = 1;

/**
 * Most API keys the rate limiter tracks at once: buckets exist only for valid keys, so this bounds its memory (a table
 * shared by the threads, about 10 MB, allocated when a limit is set) even with more keys issued than clients active.
 */
export const MAX_RATE_LIMIT_BUCKETS = 100_000;

/**
 * Scheduling niceness added to eth_getLogs worker threads: scans use every idle core, but the main
 * thread (point lookups, merging) preempts them, so lookups keep their latency while heavy scans run.
 * Only on a machine of two cores or more (logWorkerNice): on one core the HTTP thread under load
 * never leaves a niced worker any time, and a query on the pool waited a second or more.
 */
export const LOG_WORKER_NICE = 10;

/** The niceness of the log workers on a machine of `cores` cores: LOG_WORKER_NICE, or none on one core. */
export function logWorkerNice(cores: number): number {
  return cores > 1 ? LOG_WORKER_NICE : 0;
}

/**
 * Longest wait, when the log engine closes, for worker threads still loading their modules:
 * terminating a thread while it loads (lmdb's native addon, the ESM module graph) aborts the whole
 * process with a fatal error, and loading takes well under a second even on a busy machine.
 */
export const WORKER_LOAD_WAIT_MS = 5_000;

/**
 * Answers smaller than this many bytes go out uncompressed (unless the client refuses identity):
 * an answer this small fits one TCP segment with its headers compressed or not, so compressing it
 * saves no packet and costs 10-20 µs of CPU (native-free-bench/compression.ts), a third of a point
 * lookup. Point lookups of a transaction (~0.9 KB) stay under it.
 */
export const DEFAULT_COMPRESSION_MIN_BYTES = 1024;

/**
 * gzip level of compressed answers: level 1 costs about half the CPU of zlib's default 6 on our
 * answers (a 10,000-log eth_getLogs answer: ~4-5 ms/MB against ~8-9) for an answer about 10% larger;
 * CPU is what this service runs out of first (native-free-bench/compression.ts).
 */
export const DEFAULT_GZIP_LEVEL = 1;

/**
 * Brotli quality of compressed answers: quality 1 costs less CPU than gzip level 1 and gives
 * answers about 20% smaller (a 10,000-log answer: ~2-4 ms/MB and 8.1× against ~4-5 ms/MB and 6.6×);
 * qualities 4 and up cost several times more for 10-15% less (native-free-bench/compression.ts).
 */
export const DEFAULT_BROTLI_QUALITY = 1;

/**
 * Blocks a replica may be behind its node and still answer /ready with 200 (serve --max-lag-blocks):
 * about a minute of mainnet slots, more than one follow poll and commit take, so a healthy replica
 * does not flap while a new block is on its way, and few enough that a balancer stops sending clients
 * to one that fell behind.
 */
export const DEFAULT_MAX_LAG_BLOCKS = 5;

/** First wait before a replica restarts its failed follow-mode ingest: a node restarting is back within seconds. */
export const REPLICA_RESTART_MIN_MS = 500;

/**
 * Longest wait between restarts of a failing follow-mode ingest (doubling from the first): retried often enough to
 * catch up soon after the node returns.
 */
export const REPLICA_RESTART_MAX_MS = 10_000;

/**
 * A follow-mode ingest that ran this long before failing restarts after the shortest wait again: it was healthy, its
 * failure is news.
 */
export const REPLICA_HEALTHY_RUN_MS = 60_000;

/**
 * How long a stopping replica waits for its ingest to commit its current batch and exit before killing it (a batch
 * commits within seconds).
 */
export const REPLICA_INGEST_STOP_MS = 10_000;

/**
 * Timeout of the replica's own eth_blockNumber poll of its node (the lag it reports): far above a node's answer, well
 * under a poll interval's worth of lag.
 */
export const NODE_HEAD_TIMEOUT_MS = 5_000;

/**
 * Log queries on the scan pool (eth_getLogs past the inline budget, eth_getFilterLogs, gRPC GetLogs)
 * one API key may run at once (serve --max-log-queries-per-key): two per worker of a 2-core pool, so
 * one key can keep every core busy while others still get a turn from the fair queue.
 */
export const DEFAULT_LOG_QUERIES_PER_KEY = 4;

/**
 * Log queries on the scan pool the process runs at once (--max-log-queries): each holds up to two tasks per worker and
 * its answer's memory (up to ~7 MB), so 16 bound that to ~120 MB.
 */
export const DEFAULT_LOG_QUERIES = 16;

/**
 * Log queries one key may have waiting for a turn (--log-queue-per-key): past it the key's next one is refused (-32005,
 * HTTP 429).
 */
export const DEFAULT_LOG_QUEUE_PER_KEY = 32;

/**
 * Log queries the process keeps waiting, all keys together (--log-queue): each waits only as long as a few queries run,
 * and holds only its filter.
 */
export const DEFAULT_LOG_QUEUE = 512;

/** StreamLogs calls one key may hold open at once (--max-streams-per-key): a pipeline reads a few ranges at a time. */
export const DEFAULT_STREAMS_PER_KEY = 8;

/**
 * StreamLogs calls the process holds open at once (--max-streams): each keeps up to two scan tasks' output (~1 MB a
 * task) and gRPC's send buffer.
 */
export const DEFAULT_STREAMS = 64;

/** The Retry-After, in milliseconds, of a call refused for concurrency: about as long as a heavy query runs. */
export const CONCURRENCY_RETRY_AFTER_MS = 1_000;

/**
 * Blocks of a pooled log query's range that cost one more call of the rate limit (--rate-cost-blocks),
 * beyond the call itself: a whole-chain query of mainnet (21M blocks) costs ~2,100 calls, a query of
 * the last 100 blocks one. 0 charges calls only.
 */
export const DEFAULT_RATE_COST_BLOCKS = 10_000;

/**
 * Bytes one API key's polling filters may hold, their packed criteria and the changes gathered for
 * their next poll (--filter-mb-per-key): ~250 filters of 5,000 parameters, or one filter's 10,000
 * pending logs ten times over.
 */
export const DEFAULT_FILTER_BYTES_PER_KEY = 32 * 1024 * 1024;

/** Bytes all polling filters may hold (--filter-mb): with the subscriptions' budget, a quarter of a 2 GiB process. */
export const DEFAULT_FILTER_BYTES = 256 * 1024 * 1024;

/**
 * Bytes one API key's `logs` subscriptions may hold on all threads, their packed criteria (--subscription-mb-per-key).
 */
export const DEFAULT_SUBSCRIPTION_BYTES_PER_KEY = 32 * 1024 * 1024;

/** Bytes all `logs` subscriptions may hold on all threads (--subscription-mb). */
export const DEFAULT_SUBSCRIPTION_BYTES = 256 * 1024 * 1024;

/** Bytes a subscription or a filter costs beyond its criteria: its id, its entry, its connection's share. */
export const SUBSCRIPTION_OVERHEAD_BYTES = 256;
