/**
 * Writes a generated chain into a store: blocks appended in batches (one LMDB write transaction
 * each), the chain id with the first batch, safe/finalized markers with every batch, and the pending
 * block with the last one. A store that already holds the start of the same chain is continued
 * from its head; one that holds another chain is refused.
 */
import { bytesEqual } from '../chain/hex.js';
import type { BlockBundle } from '../chain/types.js';
import { StoreReader } from '../store/reader.js';
import { closeStore, openStore } from '../store/schema.js';
import { StoreWriter } from '../store/writer.js';
import { ChainGenerator, markers, type GeneratorOptions } from './generator.js';
import { Progress } from '../ingest/progress.js';

/** Blocks per write transaction by default. */
const DEFAULT_BATCH_BLOCKS = 64;

/** Options of generateStore: the chain, the batch size and whether progress is printed. */
export type GenerateStoreOptions = GeneratorOptions & { batchBlocks?: number; progress?: boolean };

/** What generateStore appended. */
export interface GenerateStoreResult {
  blocks: number;
  logs: number;
  txs: number;
  seconds: number;
}

/** Positions a generator after the stored head, checking that the head is this chain's block. */
function resume(reader: StoreReader, opts: GeneratorOptions, dir: string): ChainGenerator | undefined {
  const meta = reader.meta();
  if (!meta) return undefined;
  const first = opts.startNumber ?? 0;
  const head = reader.header(meta.head);
  if (meta.earliest !== first || !head) throw new Error(`the store at ${dir} holds another chain (it starts at block ${meta.earliest}, not ${first})`);
  const parent = meta.head > first ? reader.header(meta.head - 1) : undefined;
  const generator = new ChainGenerator(opts, parent);
  const regenerated = generator.next();
  if (!bytesEqual(regenerated.header.hash, head.hash)) {
    throw new Error(`the store at ${dir} holds another chain (block ${meta.head} differs: other seed, density or length)`);
  }
  return generator;
}

/** Generates the chain `opts` describes into the store at `dir` (created if absent), resuming after its head. */
export async function generateStore(dir: string, opts: GenerateStoreOptions): Promise<GenerateStoreResult> {
  const store = openStore(dir);
  try {
    const writer = new StoreWriter(store);
    const reader = new StoreReader(store);
    const first = opts.startNumber ?? 0;
    const last = first + opts.blocks - 1;
    const generator = resume(reader, opts, dir) ?? new ChainGenerator(opts);
    const batchBlocks = Math.max(1, opts.batchBlocks ?? DEFAULT_BATCH_BLOCKS);
    const todo = Math.max(0, last - generator.nextNumber + 1);
    const progress = new Progress(todo, { enabled: opts.progress === true, label: 'generate' });
    const counts = { blocks: 0, txs: 0, logs: 0 };
    let firstBatch = writer.meta() === undefined;
    const finishing = () => ({ pending: opts.pending === false ? null : generator.pending() });
    if (todo === 0) {
      const head = Math.min(last, generator.nextNumber - 1);
      writer.append({ blocks: [], ...markers(head, first), ...finishing() });
    }
    while (generator.nextNumber <= last) {
      const blocks: BlockBundle[] = [];
      while (blocks.length < batchBlocks && generator.nextNumber <= last) {
        const block = generator.next();
        blocks.push(block);
        counts.blocks++;
        counts.txs += block.transactions.length;
        counts.logs += block.logs.length;
      }
      const head = blocks[blocks.length - 1]!.header.number;
      writer.append({
        blocks,
        chainId: firstBatch ? (opts.chainId ?? 1n) : undefined,
        ...markers(head, first),
        ...(head === last ? finishing() : {}),
      });
      firstBatch = false;
      progress.update(counts);
    }
    const seconds = progress.finish();
    return { ...counts, seconds };
  } finally {
    await closeStore(store);
  }
}
