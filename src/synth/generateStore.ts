/**
 * Writes a generated chain into a store: blocks appended in batches (one LMDB write transaction
 * each), the chain id and the provenance record (provenance.ts) with the first batch, safe/finalized
 * markers with every batch, and the pending block of the new head with the last one. A store this
 * generator made with the same seed and density is extended from its head; any other is refused
 * with what to do (GenerateRefusedError).
 */
import { bytesEqual } from '../chain/hex.js';
import type { BlockBundle } from '../chain/types.js';
import { StoreReader } from '../store/reader.js';
import { closeStore, openStore, type Store } from '../store/schema.js';
import { StoreWriter, type AppendBatch } from '../store/writer.js';
import { ChainGenerator, markers, type GeneratorOptions } from './generator.js';
import { LogTally, type BusyContract } from './logTally.js';
import { checkProvenance, GenerateRefusedError, provenanceOf, provenanceOptions, recordProvenance, storedProvenance } from './provenance.js';
import { Progress } from '../ingest/progress.js';

/** Blocks per write transaction by default. */
const DEFAULT_BATCH_BLOCKS = 64;
/** Contracts the result names as the busiest (generate prints them). */
const BUSIEST_CONTRACTS = 3;
/** topic0s named for each of them. */
const BUSIEST_TOPICS = 2;

/** Options of generateStore: the chain, the batch size and whether progress is printed. */
export type GenerateStoreOptions = GeneratorOptions & { batchBlocks?: number; progress?: boolean };

/** What generateStore appended, and the stored chain after it. */
export interface GenerateStoreResult {
  /** Blocks, transactions and logs appended by this call (0 when the store already held the chain asked for). */
  blocks: number;
  logs: number;
  txs: number;
  seconds: number;
  /** The stored chain's first and last block. */
  earliest: number;
  head: number;
  /** The contracts that emitted the most logs in the blocks this call appended (most first), each with its commonest topic0s. */
  busiest: BusyContract[];
}

/**
 * Positions a generator after the stored head of a store this generator made with the same
 * options, or refuses (GenerateRefusedError) a store of another chain, version or greater length.
 */
function resume(store: Store, reader: StoreReader, opts: GeneratorOptions, dir: string): ChainGenerator | undefined {
  const meta = reader.meta();
  if (!meta) return undefined;
  const wanted = provenanceOf(opts.seed, opts.density);
  checkProvenance(dir, storedProvenance(store), wanted, meta.earliest, meta.head);
  const first = opts.startNumber ?? 0;
  const chainId = opts.chainId ?? 1n;
  if (meta.earliest !== first || meta.chainId !== chainId) {
    throw new GenerateRefusedError(`the store at ${dir} holds another chain (chain id ${meta.chainId} from block ${meta.earliest}, not chain id ${chainId} from block ${first}): choose another --out`);
  }
  const last = first + opts.blocks - 1;
  if (meta.head > last) {
    throw new GenerateRefusedError(
      `the store at ${dir} already holds blocks ${first}–${meta.head} of this chain, more than the ${opts.blocks} asked for, and keeps them: ` +
        `ask for --blocks ${meta.head - first + 1} or more to extend it, or choose another --out for a ${opts.blocks}-block chain`,
    );
  }
  const head = reader.header(meta.head)!;
  const parent = meta.head > first ? reader.header(meta.head - 1) : undefined;
  const generator = new ChainGenerator(opts, parent);
  if (!bytesEqual(generator.next().header.hash, head.hash)) {
    throw new GenerateRefusedError(
      `the store at ${dir} is recorded as made with ${provenanceOptions(wanted)}, but its block ${meta.head} is not that chain's: ` +
        `something else wrote to it; generate into another --out`,
    );
  }
  return generator;
}

/** Generates the chain `opts` describes into the store at `dir` (created if absent), extending a store of the same chain from its head. */
export async function generateStore(dir: string, opts: GenerateStoreOptions): Promise<GenerateStoreResult> {
  const store = openStore(dir);
  try {
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    const first = opts.startNumber ?? 0;
    const last = first + opts.blocks - 1;
    const generator = resume(store, reader, opts, dir) ?? new ChainGenerator(opts);
    const batchBlocks = Math.max(1, opts.batchBlocks ?? DEFAULT_BATCH_BLOCKS);
    const todo = last - generator.nextNumber + 1;
    const progress = new Progress(todo, { enabled: opts.progress === true, label: 'generate' });
    const counts = { blocks: 0, txs: 0, logs: 0 };
    const tally = new LogTally();
    const finishing = () => ({ pending: opts.pending === false ? null : generator.pending() });
    const append = (batch: AppendBatch) => {
      if (writer.meta() !== undefined) return writer.append(batch);
      // The store's first blocks: the record of what made them commits with them.
      store.env.transactionSync(() => {
        recordProvenance(store, provenanceOf(opts.seed, opts.density));
        writer.append({ ...batch, chainId: opts.chainId ?? 1n });
      });
    };
    if (todo === 0) append({ blocks: [], ...markers(last, first), ...finishing() });
    while (generator.nextNumber <= last) {
      const blocks: BlockBundle[] = [];
      while (blocks.length < batchBlocks && generator.nextNumber <= last) {
        const block = generator.next();
        blocks.push(block);
        tally.add(block.logs);
        counts.blocks++;
        counts.txs += block.transactions.length;
        counts.logs += block.logs.length;
      }
      const head = blocks[blocks.length - 1]!.header.number;
      append({ blocks, ...markers(head, first), ...(head === last ? finishing() : {}) });
      progress.update(counts);
    }
    const seconds = progress.finish();
    return { ...counts, seconds, earliest: first, head: last, busiest: tally.busiest(BUSIEST_CONTRACTS, BUSIEST_TOPICS) };
  } finally {
    await closeStore(store);
  }
}
