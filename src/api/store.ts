/**
 * The library's store handle: opens a store read-only (point lookups, log queries) or as a writer
 * (also appends, API keys, index rebuilds), over the same reader, writer and eth_getLogs engine
 * the servers use.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { bytesEqual } from '../chain/hex.js';
import type { BlockBundle, BlockHeader, ChainMeta, LogEntry } from '../chain/types.js';
import { DEFAULT_LOG_LIMITS, type LogLimits } from '../config.js';
import { DEFAULT_CHUNK_BLOCKS } from '../export/chunks.js';
import { COMPRESSIONS, isCompression } from '../export/compression.js';
import { type ExportSummary, runExport } from '../export/exporter.js';
import { prepareOutDir } from '../export/files.js';
import { EXPORT_KINDS, type ExportKind, isExportKind } from '../export/schemas.js';
import { LogEngine } from '../logs/engine.js';
import { RangeInvertedError } from '../logs/errors.js';
import { resolveRange } from '../logs/range.js';
import type { StreamChunk, StreamFormat } from '../logs/stream.js';
import { MARK_STRIDE } from '../render/logProto.js';
import { decodeLogMessages } from '../render/logProtoDecode.js';
import { resolveBlock } from '../rpc/blocks.js';
import { InvalidParamsError, RpcError, toRpcError } from '../rpc/errors.js';
import { type ApiKeyEntry, createApiKey, listApiKeys, revokeApiKey, revokeApiKeyById } from '../store/apiKeys.js';
import { STORE_DATA_FILE } from '../store/dataFile.js';
import { StoreReader } from '../store/reader.js';
import { closeStore, openStore, type Store } from '../store/schema.js';
import { type VerifyOptions, type VerifyResult, verifyStore } from '../store/verify.js';
import { type AppendBatch, StoreWriter } from '../store/writer.js';
import { addressArg, blockId, filterSpec, hashArg, slotArg } from './params.js';
import type {
  Block,
  BlockSelector,
  BytesLike,
  ExportOptions,
  InclusionBlock,
  LogFilter,
  LogLines,
  LogsOptions,
  TransactionEntry,
} from './types.js';

export { DEFAULT_CHUNK_BLOCKS };

/** How to open a store. */
export interface OpenOptions {
  /** Open for appending too (creating the store when absent); default false: read-only. */
  writable?: boolean;
  /** Worker threads of the log engine, started on the first logs() call; default: the machine's cores. */
  threads?: number;
  /** Limits of log queries: only `maxParams` applies to the uncapped logs() iteration. */
  limits?: Partial<LogLimits>;
  /** Where unexpected worker failures are reported (the iteration itself fails with -32603); default: stderr. */
  onError?: (message: string, error: unknown) => void;
}

/** Thrown by operations that need a writable store on a read-only one. */
export class ReadOnlyStoreError extends Error {
  /** Names the operation that was refused. */
  constructor(operation: string) {
    super(`${operation} needs a store opened with { writable: true }`);
  }
}

/** The error an aborted iteration throws: the signal's reason, or an AbortError. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('the operation was aborted', 'AbortError');
}

/** The inclusion fields of a transaction in block `h`. */
function inclusion(h: BlockHeader): InclusionBlock {
  return { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas };
}

function bundleBlock(bundle: BlockBundle, status: Block['status'], full: boolean): Block {
  const block: Block = { header: bundle.header, status, transactionHashes: bundle.transactions.map((t) => t.hash) };
  if (full) block.transactions = bundle.transactions;
  return block;
}

/** An open store: point lookups and ordered log iteration, and appends when writable. */
export class EthLogStore {
  private readonly reader: StoreReader;
  private readonly limits: LogLimits;
  private engine: LogEngine | undefined;
  private storeWriter: StoreWriter | undefined;
  private closed = false;

  private constructor(
    /** The store's directory. */
    readonly dataDir: string,
    private readonly store: Store,
    private readonly options: OpenOptions,
  ) {
    this.reader = new StoreReader(store);
    this.limits = { ...DEFAULT_LOG_LIMITS, ...options.limits };
  }

  /** Opens the store in `dataDir` (read-only unless `writable`, which creates it when absent). */
  static open(dataDir: string, options: OpenOptions = {}): EthLogStore {
    if (options.writable !== true && !existsSync(join(dataDir, STORE_DATA_FILE))) {
      throw new Error(`no store at ${dataDir}: ${existsSync(dataDir) ? `no ${STORE_DATA_FILE}` : 'no such directory'}`);
    }
    return new EthLogStore(dataDir, openStore(dataDir, { readOnly: options.writable !== true }), options);
  }

  /** Whether appends and key changes are refused. */
  get readOnly(): boolean {
    return this.store.readOnly;
  }

  /** The chain markers (chain id, earliest, head, safe, finalized), or undefined while the store holds no block. */
  meta(): ChainMeta | undefined {
    return this.reader.meta();
  }

  /** The head block number, or undefined while the store holds no block. */
  head(): number | undefined {
    return this.reader.head();
  }

  /**
   * A block by number, tag or hash, with its transactions when `transactions` is true; null when the store has no such
   * block.
   */
  getBlock(selector: BlockSelector, options: { transactions?: boolean } = {}): Block | null {
    const full = options.transactions === true;
    const ref = blockId(selector);
    const resolved = resolveBlock(ref, this.reader);
    if (resolved === null) {
      const orphan = 'hash' in ref ? this.reader.orphan(ref.hash) : undefined;
      return orphan ? bundleBlock(orphan, 'orphaned', full) : null;
    }
    if ('pending' in resolved) return bundleBlock(resolved.pending, 'pending', full);
    const header = this.reader.header(resolved.number);
    if (!header) return null;
    const block: Block = { header, status: 'canonical', transactionHashes: this.reader.txHashes(resolved.number) };
    if (full) block.transactions = this.reader.transactions(resolved.number);
    return block;
  }

  /** A transaction by hash: canonical, else in the pending block; null when unknown. */
  getTransaction(hash: BytesLike): TransactionEntry | null {
    const h = hashArg(hash, 'transaction hash');
    const at = this.reader.txLocation(h);
    if (at) return this.canonicalTx(at.number, at.index);
    const pending = this.reader.pending();
    const index = pending ? pending.transactions.findIndex((tx) => bytesEqual(tx.hash, h)) : -1;
    return index >= 0 ? { transaction: pending!.transactions[index]!, index, block: null } : null;
  }

  /** Transaction `index` of a block (by number, tag or hash); null when either is absent. */
  getTransactionAt(selector: BlockSelector, index: number): TransactionEntry | null {
    if (!Number.isSafeInteger(index) || index < 0) return null;
    const ref = blockId(selector);
    const resolved = resolveBlock(ref, this.reader);
    if (resolved === null) {
      const orphan = 'hash' in ref ? this.reader.orphan(ref.hash) : undefined;
      const tx = orphan?.transactions[index];
      if (!orphan || !tx) return null;
      const h = orphan.header;
      return { transaction: tx, index, block: inclusion(h) };
    }
    if ('pending' in resolved) {
      const tx = resolved.pending.transactions[index];
      return tx ? { transaction: tx, index, block: null } : null;
    }
    return this.canonicalTx(resolved.number, index);
  }

  private canonicalTx(number: number, index: number): TransactionEntry | null {
    const tx = this.reader.transaction(number, index);
    const h = this.reader.header(number);
    if (!tx || !h) return null;
    return { transaction: tx, index, block: inclusion(h) };
  }

  /**
   * The 32-byte value of a storage slot after a block (default latest; the pending block's state is
   * the head's); throws RpcError -32000 `header not found` for a block the store does not hold.
   */
  getStorageAt(address: BytesLike, slot: BytesLike | number | bigint, selector: BlockSelector = 'latest'): Uint8Array {
    const a = addressArg(address);
    const s = slotArg(slot);
    const ref = blockId(selector);
    const resolved = resolveBlock(ref, this.reader);
    if (resolved === null) throw new RpcError(-32000, 'hash' in ref ? 'header for hash not found' : 'header not found');
    const number = 'pending' in resolved ? this.reader.meta()!.head : resolved.number;
    return this.reader.storageAt(a, s, number);
  }

  /**
   * The storage slots canonical block `number` wrote (address and 32-byte slot), as eth_getStorageAt takes them; none
   * for a block not held or frozen (in a whole unit of 256 blocks at or below the finalized block or 128 behind the
   * head: the store keeps a block's list of written slots only until its writes move to the storage history's runs).
   */
  writtenSlots(number: number): { address: Uint8Array; slot: Uint8Array }[] {
    return this.reader.writtenSlots(number);
  }

  /**
   * The logs matching `filter`, in order, without eth_getLogs's result cap: scans run on the worker
   * pool a window ahead of the consumer (a slow consumer holds the scan back). The range is resolved
   * once, at the start. Throws RpcErrors (invalid filter -32602, parameter limit and timeout -32005).
   */
  async *logs(filter: LogFilter, options: LogsOptions = {}): AsyncGenerator<LogEntry, void, undefined> {
    for await (const chunk of this.chunks(filter, options, 'proto')) {
      for (const log of decodeLogMessages(chunk.bytes)) {
        if (options.signal?.aborted) throw abortReason(options.signal);
        yield log;
      }
    }
  }

  /**
   * The same logs as logs(), rendered by the workers as JSON lines (each the object eth_getLogs
   * answers) in runs of consecutive logs: for pipelines that pass JSON on, several times faster
   * than rendering typed objects in the main thread.
   */
  async *logLines(filter: LogFilter, options: LogsOptions = {}): AsyncGenerator<LogLines, void, undefined> {
    for await (const { bytes, marks } of this.chunks(filter, options, 'jsonl')) {
      const count = marks.length / MARK_STRIDE;
      if (count === 0) continue;
      const lastMark = (count - 1) * MARK_STRIDE;
      yield { text: bytes, count, last: { block: marks[lastMark + 1]!, logIndex: marks[lastMark + 2]! } };
    }
  }

  /**
   * The stream's chunks in `format`, ending with the signal's reason once it aborts; the engine's errors as the
   * RpcErrors eth_getLogs answers.
   */
  private async *chunks(
    filter: LogFilter,
    options: LogsOptions,
    format: StreamFormat,
  ): AsyncGenerator<StreamChunk, void, undefined> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    try {
      const spec = filterSpec(filter, this.limits.maxParams);
      for await (const chunk of this.logEngine().stream(spec, this.reader, {
        deadline,
        signal,
        from: options.from,
        format,
      })) {
        if (signal?.aborted) break;
        yield chunk;
      }
    } catch (error) {
      throw toRpcError(error) ?? error;
    }
    if (signal?.aborted) throw abortReason(signal);
  }

  private logEngine(): LogEngine {
    if (this.closed) throw new Error('the store is closed');
    this.engine ??= new LogEngine({
      dataDir: this.dataDir,
      limits: this.limits,
      threads: this.options.threads,
      onError:
        this.options.onError ?? ((message, error) => process.stderr.write(`ethlogd: ${message}: ${String(error)}\n`)),
    });
    return this.engine;
  }

  /**
   * Exports a range of `kind` (logs, blocks, transactions, receipts) to Parquet files in
   * `options.out`, one per chunk of `chunkBlocks` blocks, named and typed as cryo writes them
   * (docs/export.md). Logs take an eth_getLogs filter's addresses and topics; every kind its range
   * (default earliest to latest). Resumable: complete files are skipped, temporaries of an
   * interrupted run removed, and each file appears under its name only once complete. Throws
   * RpcErrors for an invalid filter or range (-32602), OutDirError when `out` cannot be written,
   * ExportOptionsError when `out` holds files of `kind` written with other options (see `overwrite`).
   */
  async export(kind: ExportKind, options: ExportOptions): Promise<ExportSummary> {
    if (!isExportKind(kind))
      throw new InvalidParamsError(`unknown export kind "${String(kind)}" (${EXPORT_KINDS.join(', ')})`);
    const compression = options.compression ?? COMPRESSIONS[0];
    if (!isCompression(compression))
      throw new InvalidParamsError(`unknown compression "${String(compression)}" (${COMPRESSIONS.join(', ')})`);
    const chunkBlocks = options.chunkBlocks ?? DEFAULT_CHUNK_BLOCKS;
    if (!Number.isSafeInteger(chunkBlocks) || chunkBlocks < 1)
      throw new InvalidParamsError(`chunkBlocks must be a positive integer, not ${chunkBlocks}`);
    const filter: LogFilter = { fromBlock: 'earliest', toBlock: 'latest', ...options.filter };
    if (kind !== 'logs' && (filter.address !== undefined || filter.topics !== undefined))
      throw new InvalidParamsError(`address and topics filter logs, not ${kind}`);
    if (filter.blockHash !== undefined) throw new InvalidParamsError('an export takes a block range, not a blockHash');
    if (filter.fromBlock === 'pending' || filter.toBlock === 'pending')
      throw new InvalidParamsError('the pending block has no number: export a range of stored blocks');
    let range: { from: number; to: number };
    let spec;
    try {
      spec = filterSpec(filter, this.limits.maxParams);
      range = resolveRange(spec, this.reader);
    } catch (error) {
      if (error instanceof RangeInvertedError)
        throw new InvalidParamsError(`fromBlock ${error.from} is after toBlock ${error.to}`);
      throw toRpcError(error) ?? error;
    }
    await prepareOutDir(options.out);
    return runExport({
      dataDir: this.dataDir,
      out: options.out,
      kind,
      from: range.from,
      to: range.to,
      addresses: spec.addresses,
      topics: spec.topics,
      chainId: this.reader.head() === undefined ? 0n : this.reader.chainId(),
      chunkBlocks,
      compression,
      hex: options.hex === true,
      overwrite: options.overwrite === true,
      threads: options.threads ?? this.options.threads ?? availableParallelism(),
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }

  /**
   * Appends blocks in one write transaction (a reorganisation with `rollbackTo`); the batch must continue the stored
   * chain.
   */
  append(batch: AppendBatch): void {
    this.writer('append').append(batch);
  }

  /**
   * Rebuilds the derived log indexes (address tables, bloom rows) from the stored blocks; returns the segments rebuilt.
   */
  reindex(): number {
    return this.writer('reindex').rebuildIndexes();
  }

  /**
   * Checks every block and index of the store (one read snapshot), or with `since` (an earlier result's `mark`) what
   * was written after it, telling `onBlock` how many of how many blocks it has checked; lists the problems found.
   */
  verify(options: VerifyOptions | ((checked: number, total: number) => void) = {}): VerifyResult {
    return verifyStore(this.store, typeof options === 'function' ? { onBlock: options } : options);
  }

  /** Creates an API key with `label` and returns it: only its hash is stored, so this is the only time it is seen. */
  createApiKey(label: string): string {
    this.requireWritable('createApiKey');
    return createApiKey(this.store, label);
  }

  /** Lists the API keys: id (the key's sha256), label, creation and revocation times. */
  listApiKeys(): ApiKeyEntry[] {
    return listApiKeys(this.store);
  }

  /** Revokes `key` (refused by running servers from their next request); false when the store does not know it. */
  revokeApiKey(key: string): boolean {
    this.requireWritable('revokeApiKey');
    return revokeApiKey(this.store, key);
  }

  /**
   * Revokes the one key whose id (as listApiKeys shows it) is `id` or starts with it (8+ hex digits); returns how many
   * keys the id names (only 1 revokes).
   */
  revokeApiKeyById(id: string): number {
    this.requireWritable('revokeApiKeyById');
    return revokeApiKeyById(this.store, id);
  }

  private requireWritable(operation: string): void {
    if (this.store.readOnly) throw new ReadOnlyStoreError(operation);
  }

  private writer(operation: string): StoreWriter {
    this.requireWritable(operation);
    this.storeWriter ??= new StoreWriter(this.store);
    return this.storeWriter;
  }

  /** Stops the log engine's workers and closes the store; running iterations fail with -32603. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.engine?.close();
    await closeStore(this.store);
  }
}
