/**
 * ethlogd as a library (the package entry point): open a store read-only or as a writer, look up
 * blocks, transactions and storage as typed objects, iterate logs in order, append blocks, generate
 * or ingest a chain, and start or stop the HTTP and gRPC servers in-process. The `ethlogd` command
 * line is built on exactly this surface.
 */
import type { RunningService, ServiceOptions } from './service.js';

/**
 * Opens the store at `options.dataDir` read-only and serves it over HTTP, and over gRPC when
 * `grpcPort` is set. The servers' modules (uWebSockets.js, grpc-js) load on the first call, so a
 * program that only reads a store does not pay for them.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const service = await import('./service.js');
  return service.startService(options);
}

export { EthLogStore, type OpenOptions, ReadOnlyStoreError } from './api/store.js';
export type {
  Block,
  BlockSelector,
  BlockStatus,
  BytesLike,
  ExportOptions,
  InclusionBlock,
  LogFilter,
  LogLines,
  LogPosition,
  LogsOptions,
  TransactionEntry,
} from './api/types.js';
export { type RpcLog, toRpcBlock, toRpcLog, toRpcTransaction } from './api/wire.js';
export { bytesToHex, hexToBytes, quantityToHex } from './chain/hex.js';
export { BLOCK_TAGS } from './chain/tags.js';
export type {
  AccessListEntry,
  Authorization,
  BlockBundle,
  BlockHeader,
  BlockTag,
  ChainMeta,
  Log,
  LogEntry,
  StorageWrite,
  Transaction,
  TxType,
  Withdrawal,
} from './chain/types.js';
// The limits and defaults a user of the library or the command line sees; the rest of config.ts
// tunes the service's insides and stays internal.
export {
  CLIENT_VERSION,
  DEFAULT_BROTLI_QUALITY,
  DEFAULT_COMPRESSION_MIN_BYTES,
  DEFAULT_GZIP_LEVEL,
  DEFAULT_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_LOG_LIMITS,
  DEFAULT_RATE_BURST_SECONDS,
  DEFAULT_RATE_LIMIT_PER_SECOND,
  FOLLOW_POLL_MS,
  INGEST_BLOCKS_PER_REQUEST,
  INGEST_COMMIT_BLOCKS,
  INGEST_REQUESTS_IN_FLIGHT,
  LOG_QUERY_TIMEOUT_MS,
  type LogLimits,
  MAX_BATCH_ITEMS,
  MAX_BODY_BYTES,
  MAX_FILTER_PARAMS,
  MAX_LOG_RESULTS,
  MAX_TOPIC_POSITIONS,
  SHUTDOWN_GRACE_MARGIN_MS,
  STREAM_TIMEOUT_MS,
} from './config.js';
export { COMPRESSIONS, type CompressionName } from './export/compression.js';
export type { ExportProgress, ExportSummary } from './export/exporter.js';
export { OutDirError } from './export/files.js';
export { EXPORT_KINDS, type ExportKind, SCHEMAS, type SchemaColumn, type SchemaType } from './export/schemas.js';
export type { AccessLogMode } from './http/accessLog.js';
export type { CompressionOptions, ContentCoding } from './http/compress.js';
export { type IngestOptions, type IngestResult, runIngest } from './ingest/ingest.js';
export type { StorageMode } from './ingest/source.js';
export type { ShutdownOutcome } from './lifecycle.js';
export type { RateLimitOptions } from './limits/options.js';
export { PortUnavailableError } from './listenError.js';
export { createLogger, isLogLevel, LOG_LEVELS, type Logger, type LogLevel, redactSecrets } from './logger.js';
export {
  AuthError,
  BatchOverBurstError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  MethodNotFoundError,
  ParseError,
  QueryTimeoutError,
  RateLimitedError,
  ResponseTooLargeError,
  RpcError,
  ShuttingDownError,
} from './rpc/errors.js';
export type { RunningService, ServiceOptions } from './service.js';
export type { ApiKeyEntry } from './store/apiKeys.js';
export type { VerifiedMark, VerifyOptions, VerifyResult } from './store/verify.js';
export { type AppendBatch, ChainContinuityError } from './store/writer.js';
export { type GenerateStoreOptions, type GenerateStoreResult, generateStore } from './synth/generateStore.js';
export type { BusyContract } from './synth/logTally.js';
export { GenerateRefusedError } from './synth/provenance.js';
