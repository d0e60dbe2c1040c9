/**
 * Where generateStore gets its blocks: encoded, linked and in chain order, a batch (one write
 * transaction) at a time. Two sources: the blocks built in the writer's own thread (InThreadSource,
 * `generate --threads 0`, the reference the parallel one is compared with), or in worker threads
 * (blockThreads.ts). Both give the same bytes.
 */
import type { BlockRecords } from '../store/blockRecords.js';
import { encodeBlockRecords } from '../store/blockRecords.js';
import { encodeBundle } from '../store/codec.js';
import { ChainGenerator, type GeneratorOptions } from './generator.js';
import { type BusyContract, LogTally } from './logTally.js';

/** Which blocks to produce: from..to, the first linked to `parentHash`, in batches of `batchBlocks`. */
export interface SourceRange {
  from: number;
  to: number;
  parentHash: Uint8Array;
  batchBlocks: number;
  /** Logs of blocks from this number on are counted for busiest() (a block regenerated only to check it is not). */
  tallyFrom: number;
  /** Whether the last batch carries the pending block after `to`. */
  pending: boolean;
}

/**
 * A batch of blocks ready to append, with their log counts, and after the last block the pending one (encodeBundle's
 * bytes) when asked for.
 */
export interface SourceBatch {
  blocks: BlockRecords[];
  logCounts: number[];
  pending?: Buffer;
}

/** A producer of a chain's blocks as linked records, in order. */
export interface BlockSource {
  /** The batches of `range`, in chain order. */
  batches(range: SourceRange): AsyncGenerator<SourceBatch>;
  /** The contracts with the most logs in the blocks counted (tallyFrom), each with its most frequent topic0s. */
  busiest(contracts: number, topics: number): Promise<BusyContract[]>;
  /** Releases what the source holds (threads). */
  close(): Promise<void>;
}

/** Blocks built in the calling thread, one after the other. */
export class InThreadSource implements BlockSource {
  private readonly tally = new LogTally();

  /** Builds the chain `opts` describes. */
  constructor(private readonly opts: GeneratorOptions) {}

  /** The batches of `range`, each block built, linked and encoded here in turn. */
  async *batches(range: SourceRange): AsyncGenerator<SourceBatch> {
    const first = this.opts.startNumber ?? 0;
    const generator = new ChainGenerator(
      this.opts,
      range.from > first ? { number: range.from - 1, hash: range.parentHash } : undefined,
    );
    while (generator.nextNumber <= range.to) {
      const batch: SourceBatch = { blocks: [], logCounts: [] };
      while (batch.blocks.length < range.batchBlocks && generator.nextNumber <= range.to) {
        const block = generator.next();
        if (block.header.number >= range.tallyFrom) this.tally.add(block.logs);
        batch.blocks.push(encodeBlockRecords(block));
        batch.logCounts.push(block.logs.length);
      }
      if (generator.nextNumber > range.to && range.pending) batch.pending = encodeBundle(generator.pending());
      yield batch;
    }
  }

  /** The busiest contracts of the blocks counted. */
  async busiest(contracts: number, topics: number): Promise<BusyContract[]> {
    return this.tally.busiest(contracts, topics);
  }

  /** Nothing to release: the blocks were built in this thread. */
  async close(): Promise<void> {}
}
