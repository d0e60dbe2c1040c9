/**
 * Writes a generated chain into a store: blocks appended in batches (one LMDB write transaction
 * each), the chain id and the provenance record (provenance.ts) with the first batch, safe/finalized
 * markers with every batch, and the pending block of the new head with the last one. The blocks
 * come built, encoded and linked from a source (blockSource.ts): this thread, or worker threads
 * (`threads`), which give the same bytes. A store this generator made with the same seed and
 * density is extended from its head; any other is refused with what to do (GenerateRefusedError).
 */
import { bytesEqual } from '../chain/hex.js';
import { Progress } from '../ingest/progress.js';
import { blockRecordsBytes } from '../store/blockRecords.js';
import { FREEZE_BLOCKS, freezesWholeUnits } from '../store/freezer.js';
import { StoreReader } from '../store/reader.js';
import { storedBlockHash } from '../store/recordViews.js';
import { closeStore, openStore, type Store } from '../store/schema.js';
import { type RecordsBatch, StoreWriter } from '../store/writer.js';
import { type BlockSource, InThreadSource, type SourceBatch, type SourceRange } from './blockSource.js';
import { BlockThreads } from './blockThreads.js';
import { type GeneratorOptions, genesisParentHash, markers } from './generator.js';
import type { BusyContract } from './logTally.js';
import {
  checkProvenance,
  GenerateRefusedError,
  provenanceOf,
  provenanceOptions,
  recordProvenance,
  storedProvenance,
} from './provenance.js';

/**
 * Most blocks a write transaction holds by default. Most of the store's puts go to random keys
 * (transaction hashes, storage slots), and a transaction pays for every B-tree page it dirties:
 * the more blocks share one, the fewer pages per put. Extending a 20,480-block mainnet-density
 * store by 1,200 blocks (the store's file opened with a write map, schema.ts) took 22.5 s of CPU
 * in transactions of 1,024 blocks against 34.5 s in transactions of 256. Bounded so that a crash
 * loses little work and progress moves, and by DEFAULT_BATCH_BYTES at high densities.
 */
export const DEFAULT_BATCH_BLOCKS = 1024;
/**
 * Bytes of records a mainnet-density block takes, about (density 1; a generated block's records grow with its density).
 */
const MAINNET_BLOCK_RECORD_BYTES = 160 * 1024;
/**
 * Most bytes of encoded records a write transaction holds by default (they stay in memory until it commits): at
 * MAINNET_BLOCK_RECORD_BYTES a block, DEFAULT_BATCH_BLOCKS binds first up to a density of about 1.5.
 */
export const DEFAULT_BATCH_BYTES = 256 * 1024 * 1024;
/**
 * Least bytes of records a write transaction is expected to hold for generate to open the store with
 * the write map (schema.ts). With it, extending a 20,480-block mainnet-density store by 1,200 blocks
 * in 1,024-block transactions (~160 MiB of records each) took 24 s against 44 s without; at density
 * 0.02 (~3.3 MiB each), extending a 604,832-block store by 5,120 blocks took 13-16 s against 9-12 s
 * without (the kernel writing mapped pages back as they are dirtied), a 200,000-block one 7.2-8.9 s
 * against 5.4-7.8, and 100,000 blocks into a fresh store 82 s against 75. Between the two, not
 * measured: the threshold sits where the old 256-block mainnet transactions (~40 MiB) already spent
 * 42% of their CPU on LMDB's dirty list.
 */
const WRITE_MAP_MIN_BATCH_BYTES = 32 * 1024 * 1024;

/**
 * Whether generate opens the store with the write map: when a write transaction of `batchBlocks` blocks at `density`
 * (at most `batchBytes`) is expected to hold WRITE_MAP_MIN_BATCH_BYTES of records or more.
 */
export function generateWriteMap(density: number, batchBlocks: number, batchBytes: number): boolean {
  return Math.min(batchBytes, batchBlocks * density * MAINNET_BLOCK_RECORD_BYTES) >= WRITE_MAP_MIN_BATCH_BYTES;
}

/**
 * Most blocks a source builds and hands over at a time (a worker thread's task): small enough that every thread starts
 * writing soon and few megabytes travel at once.
 */
const SOURCE_BATCH_BLOCKS = 64;
/** Contracts the result names as the busiest (generate prints them). */
const BUSIEST_CONTRACTS = 3;
/** topic0s named for each of them. */
const BUSIEST_TOPICS = 2;

/**
 * Options of generateStore: the chain, the batch size (most blocks and most bytes of records per write transaction),
 * the generating threads (0, the default: this thread), whether progress is printed, and whether the store is opened
 * with the write map (default: generateWriteMap).
 */
export type GenerateStoreOptions = GeneratorOptions & {
  batchBlocks?: number;
  batchBytes?: number;
  progress?: boolean;
  threads?: number;
  writeMap?: boolean;
};

/** What generateStore appended, and the stored chain after it. */
export interface GenerateStoreResult {
  /** Blocks, transactions and logs appended by this call (0 when the store already held the chain asked for). */
  blocks: number;
  logs: number;
  txs: number;
  seconds: number;
  /**
   * Seconds of `seconds` spent in the writer's transactions (the write path alone: records encoded by the generating
   * threads, appended, indexed, frozen and merged, committed).
   */
  writeSeconds: number;
  /** The stored chain's first and last block. */
  earliest: number;
  head: number;
  /**
   * The contracts that emitted the most logs in the blocks this call appended (most first), each with its commonest
   * topic0s.
   */
  busiest: BusyContract[];
}

/**
 * Where generation starts: the first block, or the stored head of a store to extend (regenerated first, as a check),
 * with the parent hash of that block.
 */
interface Start {
  from: number;
  parentHash: Uint8Array;
  /** The stored head's hash, when the store holds blocks: the first block generated must have it. */
  head?: Uint8Array;
}

/**
 * Where to start generating into a store this generator made with the same options; refuses
 * (GenerateRefusedError) a store of another chain, version or greater length.
 */
function start(store: Store, reader: StoreReader, opts: GeneratorOptions, dir: string): Start {
  const first = opts.startNumber ?? 0;
  const meta = reader.meta();
  if (!meta) return { from: first, parentHash: genesisParentHash(opts.seed) };
  const wanted = provenanceOf(opts.seed, opts.density, opts.chain === 'op' ? 'op' : undefined);
  checkProvenance(dir, storedProvenance(store), wanted, meta.earliest, meta.head);
  const chainId = opts.chainId ?? 1n;
  if (meta.earliest !== first || meta.chainId !== chainId) {
    throw new GenerateRefusedError(
      `the store at ${dir} holds another chain (chain id ${meta.chainId} from block ${meta.earliest}, ` +
        `not chain id ${chainId} from block ${first}): choose another --out`,
    );
  }
  const last = first + opts.blocks - 1;
  if (meta.head > last) {
    throw new GenerateRefusedError(
      `the store at ${dir} already holds blocks ${first}–${meta.head} of this chain, ` +
        `more than the ${opts.blocks} asked for, and keeps them: ` +
        `ask for --blocks ${meta.head - first + 1} or more to extend it, ` +
        `or choose another --out for a ${opts.blocks}-block chain`,
    );
  }
  const parentHash = meta.head > first ? reader.header(meta.head - 1)!.hash : genesisParentHash(opts.seed);
  return { from: meta.head, parentHash, head: reader.header(meta.head)!.hash };
}

/**
 * How many blocks, from the first of those whose records take `sizes` bytes, make the next write transaction:
 * batchBlocks, or fewer when their records pass batchBytes (at least one).
 */
function batchLength(sizes: readonly number[], batchBlocks: number, batchBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < Math.min(sizes.length, batchBlocks); i++) {
    bytes += sizes[i]!;
    if (bytes >= batchBytes) return i + 1;
  }
  return Math.min(sizes.length, batchBlocks);
}

/**
 * The longest write transaction of at most `length` blocks from block `from` (a chain from `earliest`), and less than
 * FREEZE_BLOCKS shorter, after which every block the markers finalize is frozen: the writer then freezes the batch's
 * finalized blocks straight from it, where a batch ending mid-unit would put the unit's blocks into the recent
 * B-trees and the next batch take them out again. `length` when no such end is near.
 */
export function freezeAlignedLength(from: number, length: number, earliest: number): number {
  for (let n = length; n > Math.max(0, length - FREEZE_BLOCKS); n--) {
    const head = from + n - 1;
    if (freezesWholeUnits(head, markers(head, earliest).finalized)) return n;
  }
  return length;
}

/**
 * The blocks of `batch` the store does not hold yet: a batch starting at the store's head leaves it out, once it is
 * checked to be the same block (else the store was written by something else: GenerateRefusedError).
 */
function afterStoredHead(batch: SourceBatch, from: Start, dir: string, opts: GeneratorOptions): SourceBatch {
  const { blocks, logCounts } = batch;
  if (!from.head || blocks[0]?.number !== from.from) return { blocks, logCounts };
  if (!bytesEqual(storedBlockHash(blocks[0].header), from.head)) {
    throw new GenerateRefusedError(
      `the store at ${dir} is recorded as made with ${provenanceOptions(provenanceOf(opts.seed, opts.density))}, ` +
        `but its block ${from.from} is not that chain's: ` +
        `something else wrote to it; generate into another --out`,
    );
  }
  return { blocks: blocks.slice(1), logCounts: logCounts.slice(1) };
}

/** Appends generated batches to the store, timing the writer's transactions. */
class TimedAppender {
  private nanoseconds = 0n;

  constructor(
    private readonly store: Store,
    private readonly writer: StoreWriter,
    private readonly opts: GenerateStoreOptions,
  ) {}

  append(batch: RecordsBatch): void {
    const started = process.hrtime.bigint();
    if (this.writer.meta() !== undefined) this.writer.appendRecords(batch);
    else {
      // The store's first blocks: the record of what made them commits with them.
      const { seed, density, chain, chainId } = this.opts;
      this.store.env.transactionSync(() => {
        recordProvenance(this.store, provenanceOf(seed, density, chain === 'op' ? 'op' : undefined));
        this.writer.appendRecords({ ...batch, chainId: chainId ?? 1n, chainKind: chain });
      });
    }
    this.nanoseconds += process.hrtime.bigint() - started;
  }

  /** Seconds spent in append. */
  seconds(): number {
    return Number(this.nanoseconds) / 1e9;
  }
}

/**
 * Generates the chain `opts` describes into the store at `dir` (created if absent), extending a store of the same chain
 * from its head.
 */
export async function generateStore(dir: string, opts: GenerateStoreOptions): Promise<GenerateStoreResult> {
  const batchBlocks = Math.max(1, opts.batchBlocks ?? DEFAULT_BATCH_BLOCKS);
  const batchBytes = Math.max(1, opts.batchBytes ?? DEFAULT_BATCH_BYTES);
  const store = openStore(dir, { writeMap: opts.writeMap ?? generateWriteMap(opts.density, batchBlocks, batchBytes) });
  let source: BlockSource | undefined;
  try {
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    const first = opts.startNumber ?? 0;
    const last = first + opts.blocks - 1;
    const from = start(store, reader, opts, dir);
    const threads = opts.threads ?? 0;
    source = threads > 0 ? new BlockThreads(opts, threads) : new InThreadSource(opts);
    const tallyFrom = from.head ? from.from + 1 : from.from;
    const progress = new Progress(last - tallyFrom + 1, { enabled: opts.progress === true, label: 'generate' });
    const counts = { blocks: 0, txs: 0, logs: 0 };
    const appender = new TimedAppender(store, writer, opts);
    const append = (batch: RecordsBatch) => appender.append(batch);
    const range: SourceRange = {
      from: from.from,
      to: last,
      parentHash: from.parentHash,
      batchBlocks: Math.min(batchBlocks, SOURCE_BATCH_BLOCKS),
      tallyFrom,
      pending: opts.pending !== false,
    };
    const collected: SourceBatch = { blocks: [], logCounts: [] };
    /** The bytes of each collected block's records, and their sum. */
    const sizes: number[] = [];
    let collectedBytes = 0;
    for await (const batch of source.batches(range)) {
      const { blocks, logCounts } = afterStoredHead(batch, from, dir, opts);
      collected.blocks.push(...blocks);
      collected.logCounts.push(...logCounts);
      for (const b of blocks) {
        const size = blockRecordsBytes(b);
        sizes.push(size);
        collectedBytes += size;
      }
      const finished = (blocks.length > 0 ? blocks[blocks.length - 1]!.number : from.from) === last;
      const full = () => collected.blocks.length >= batchBlocks || collectedBytes >= batchBytes;
      if (!finished && !full()) continue;
      // Write transactions of batchBlocks blocks (fewer when they pass batchBytes, and ended where the finalized blocks
      // fill whole frozen units), whatever the source's cut; the last one takes the rest (none when the store held the
      // chain already).
      do {
        const next = collected.blocks[0];
        const fits = batchLength(sizes, batchBlocks, batchBytes);
        const length = next === undefined ? 0 : freezeAlignedLength(next.number, fits, first);
        const chunk = collected.blocks.splice(0, length);
        for (const size of sizes.splice(0, length)) collectedBytes -= size;
        const head = chunk.length > 0 ? chunk[chunk.length - 1]!.number : from.from;
        const finishing = head === last ? { pending: opts.pending === false ? null : batch.pending! } : {};
        append({ blocks: chunk, ...markers(head, first), ...finishing });
        counts.blocks += chunk.length;
        for (const b of chunk) counts.txs += b.txCount;
        for (const n of collected.logCounts.splice(0, chunk.length)) counts.logs += n;
        progress.update(counts);
      } while (full() || (finished && collected.blocks.length > 0));
    }
    writer.saveMergeFilters();
    const seconds = progress.finish();
    return {
      ...counts,
      seconds,
      writeSeconds: appender.seconds(),
      earliest: first,
      head: last,
      busiest: await source.busiest(BUSIEST_CONTRACTS, BUSIEST_TOPICS),
    };
  } finally {
    await source?.close();
    await closeStore(store);
  }
}
