/**
 * The library API's own types: how a caller names a block and a log filter, and the typed objects
 * point lookups return (stored types: bytes, numbers, bigints; src/api/wire.ts renders them as
 * JSON-RPC answers).
 */
import type { BlockHeader, BlockTag, Transaction } from '../chain/types.js';
import type { CompressionName } from '../export/compression.js';
import type { ExportProgress } from '../export/exporter.js';

/**
 * A block: a number, a tag, a 32-byte hash (bytes or 0x-hex), or a 0x-hex quantity. A hash selects
 * a canonical block, or a reorganised-out one where the JSON-RPC method would (by-hash lookups).
 */
export type BlockSelector = number | bigint | BlockTag | string | Uint8Array;

/** 20 or 32 bytes, as bytes or 0x-hex. */
export type BytesLike = Uint8Array | string;

/**
 * An eth_getLogs filter: a range (default latest..latest) or one block hash, addresses (OR) and topic positions (AND of
 * ORs, null = any).
 */
export interface LogFilter {
  fromBlock?: number | bigint | BlockTag | string;
  toBlock?: number | bigint | BlockTag | string;
  blockHash?: BytesLike;
  address?: BytesLike | BytesLike[];
  topics?: (BytesLike | BytesLike[] | null)[];
}

/** A position in a filter's ordered logs: log `logIndex` of block `block`, and everything after it. */
export interface LogPosition {
  block: number;
  logIndex: number;
}

/** How to run a logs iteration. */
export interface LogsOptions {
  /**
   * Milliseconds the whole iteration may take; past it the iterator throws QueryTimeoutError (-32005). Default: none.
   */
  timeoutMs?: number;
  /**
   * Aborting stops the iteration: running scans stop at their next check and the iterator throws the signal's reason.
   */
  signal?: AbortSignal;
  /** Start at this position (resume after the last log a previous iteration delivered, at logIndex + 1). */
  from?: LogPosition;
}

/** Where a block sits in the store: on the canonical chain, the pending block, or removed by a reorganisation. */
export type BlockStatus = 'canonical' | 'pending' | 'orphaned';

/** A block as a point lookup returns it; `transactions` only when asked for. */
export interface Block {
  header: BlockHeader;
  status: BlockStatus;
  transactionHashes: Uint8Array[];
  transactions?: Transaction[];
}

/** The block a transaction was included in. */
export interface InclusionBlock {
  hash: Uint8Array;
  number: number;
  timestamp: number;
  baseFeePerGas?: bigint;
}

/**
 * A transaction as a point lookup returns it: the signed transaction, its index, and its block (null while pending).
 */
export interface TransactionEntry {
  transaction: Transaction;
  index: number;
  block: InclusionBlock | null;
}

/** A run of consecutive logs rendered as JSON text, as logLines() yields them. */
export interface LogLines {
  /** ASCII text: each log the object eth_getLogs answers, followed by a newline. */
  text: Uint8Array;
  /** Logs in `text` (at least one). */
  count: number;
  /** The position of the last log in `text`: resume after it with `from: { block, logIndex: logIndex + 1 }`. */
  last: LogPosition;
}

/** How to run an export (EthLogStore.export). */
export interface ExportOptions {
  /** The directory the files go to; created when absent. */
  out: string;
  /**
   * The range (default earliest to latest) and, for logs, the addresses and topics, as eth_getLogs takes them; no
   * blockHash.
   */
  filter?: LogFilter;
  /** Blocks per file; default 1,000 (cryo's). */
  chunkBlocks?: number;
  /** Parquet compression: zstd (default), snappy, lz4 or none. */
  compression?: CompressionName;
  /** Byte columns as 0x-hex text instead of binary (cryo's --hex). */
  hex?: boolean;
  /**
   * Replace the datatype's files in `out` written with other options (filter, hex, compression,
   * chunk size, recorded beside them); without it such files refuse the export (ExportOptionsError).
   */
  overwrite?: boolean;
  /** Worker threads; default the store's `threads`, else the machine's cores. */
  threads?: number;
  /**
   * Aborting stops the export after the chunks in flight (their files are completed); the summary says `interrupted`.
   */
  signal?: AbortSignal;
  /** Told after every chunk written or skipped. */
  onProgress?: (progress: ExportProgress) => void;
}
