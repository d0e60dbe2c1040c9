/**
 * Ingest from the generator: logs/s into a fresh store, blocks built in the writer's thread
 * (generate's default) and in worker threads (generate --threads), the store's write path alone
 * (blocks to encode, and blocks encoded as the worker threads hand them over), and bytes per log
 * (the log data and its indexes, and the whole store with transactions, headers and storage
 * history).
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBlockRecords } from '#src/store/blockRecords.js';
import { STORE_DATA_FILE } from '#src/store/dataFile.js';
import { CHAIN_DATABASES, closeStore, openStore, type Store, storeDiskBytes } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { DEFAULT_BATCH_BLOCKS, generateStore } from '#src/synth/generateStore.js';
import { generateChain } from '#src/synth/generator.js';
import { type DatasetSpec, ensureDataset } from './dataset.js';
import type { Row } from './report.js';

/** The databases that hold logs and their indexes. */
const LOG_DATABASES = ['logs', 'bloomBits', 'addressSegments'] as const;

interface Stats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

function bytesOf(store: Store, name: (typeof LOG_DATABASES)[number]): number {
  const s = store[name].getStats() as Stats;
  return (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize;
}

/** Blocks per write transaction of the store-writes-alone measurement: generateStore's default batch. */
const WRITE_BATCH_BLOCKS = DEFAULT_BATCH_BLOCKS;

/**
 * The write path alone, in logs/s: pre-generated blocks appended as blocks (encoded by the writer) and as encoded
 * records (what worker threads hand over); and the entries it wrote per log.
 */
interface WriteRates {
  blocks: number;
  records: number;
  entriesPerLog: number;
}

/** Entries of every chain database of `store`: in a store written by appends alone, the puts that wrote it. */
function chainEntries(store: Store): number {
  return CHAIN_DATABASES.reduce((sum, name) => sum + (store[name].getStats() as { entryCount: number }).entryCount, 0);
}

/** Appends pre-generated mainnet-density blocks into fresh stores: the store's write path alone, in logs/s. */
async function measureWrites(blocks: number): Promise<WriteRates> {
  const chain = [...generateChain({ blocks, seed: 'ingest-bench-writes', density: 1 })];
  const logs = chain.reduce((sum, b) => sum + b.logs.length, 0);
  const records = chain.map(encodeBlockRecords);
  const timed = async (
    append: (writer: StoreWriter, from: number, chainId: bigint | undefined) => void,
  ): Promise<{ rate: number; entries: number }> => {
    const dir = mkdtempSync(join(tmpdir(), 'ethlogd-write-bench-'));
    const store = openStore(dir);
    try {
      const writer = new StoreWriter(store);
      const started = performance.now();
      for (let i = 0; i < chain.length; i += WRITE_BATCH_BLOCKS) append(writer, i, i === 0 ? 1n : undefined);
      return { rate: logs / ((performance.now() - started) / 1000), entries: chainEntries(store) };
    } finally {
      await closeStore(store);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const fromBlocks = await timed((w, i, chainId) =>
    w.append({ blocks: chain.slice(i, i + WRITE_BATCH_BLOCKS), chainId }),
  );
  const fromRecords = await timed((w, i, chainId) =>
    w.appendRecords({ blocks: records.slice(i, i + WRITE_BATCH_BLOCKS), chainId }),
  );
  return { blocks: fromBlocks.rate, records: fromRecords.rate, entriesPerLog: fromRecords.entries / logs };
}

/** Puts the put-cost measurement makes: as many as ~250 mainnet-density blocks' transaction hashes. */
const FLOOR_PUTS = 65_536;

/**
 * What one LMDB put costs through lmdb-js, at best: random 32-byte keys (as transaction hashes are)
 * with 12-byte values, put in key order in one write transaction into a fresh database of a store
 * opened as generate opens it. Returns µs per put.
 */
async function measurePutCost(): Promise<number> {
  const keys = Array.from({ length: FLOOR_PUTS }, () => randomBytes(32)).sort(Buffer.compare);
  const value = Buffer.alloc(12);
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-put-bench-'));
  const store = openStore(dir);
  try {
    const started = performance.now();
    store.env.transactionSync(() => {
      for (const key of keys) store.txByHash.put(key, value);
    });
    return ((performance.now() - started) * 1000) / FLOOR_PUTS;
  } finally {
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Generates `blocks` mainnet-density blocks into a temp store with `threads` generating threads (0: the writer's);
 * returns the rate and the store's directory.
 */
async function timedGenerate(blocks: number, threads: number): Promise<{ dir: string; logs: number; rate: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-ingest-bench-'));
  const result = await generateStore(dir, {
    blocks,
    seed: 'ingest-bench',
    density: 1,
    pending: false,
    progress: false,
    threads,
  });
  return { dir, logs: result.logs, rate: result.logs / result.seconds };
}

/**
 * Extends a copy of the benchmark dataset (made sure of first) by `blocks` blocks in the writer's
 * thread: generate where the store's B-trees are large, so that nearly every put to a random key
 * (transaction hash, storage slot) dirties a page of its own. The copy is made before the clock starts.
 */
async function timedExtend(dataset: DatasetSpec, blocks: number): Promise<{ rate: number; logs: number }> {
  ensureDataset(dataset);
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-extend-bench-'));
  try {
    copyFileSync(join(dataset.dir, STORE_DATA_FILE), join(dir, STORE_DATA_FILE));
    const result = await generateStore(dir, {
      blocks: dataset.blocks + blocks,
      seed: dataset.seed,
      density: dataset.density,
      progress: false,
    });
    return { rate: result.logs / result.seconds, logs: result.logs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Generates `blocks` mainnet-density blocks into temp stores (in the writer's thread, then in
 * worker threads) and measures rates and size, the write path alone, and generate extending a copy
 * of the benchmark dataset by half as many blocks.
 */
export async function measureIngest(blocks: number, dataset: DatasetSpec): Promise<Row[]> {
  const extendBlocks = Math.max(1, Math.floor(blocks / 2));
  const extend = await timedExtend(dataset, extendBlocks);
  const writes = await measureWrites(Math.max(1, Math.floor(blocks / 3)));
  const putMicros = await measurePutCost();
  const threads = availableParallelism();
  const sequential = await timedGenerate(blocks, 0);
  rmSync(sequential.dir, { recursive: true, force: true });
  const parallel = await timedGenerate(blocks, threads);
  try {
    const store = openStore(parallel.dir, { readOnly: true });
    const logBytes = LOG_DATABASES.reduce((sum, name) => sum + bytesOf(store, name), 0);
    await closeStore(store);
    const fileBytes = storeDiskBytes(parallel.dir);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    return [
      {
        figure:
          `ingest from the generator, blocks built in the writer's thread (generate --threads 0; ${blocks} ` +
          `blocks, ${sequential.logs} logs, up to ${WRITE_BATCH_BLOCKS} blocks per write transaction)`,
        ours: sequential.rate,
        unit: 'logs/s',
        target: { kind: 'min', value: 400_000, text: '≥ 400k logs/s' },
        note: 'generate --threads 0: building, encoding and writing share one thread',
      },
      {
        figure:
          `ingest from the generator, blocks built in ${threads} worker threads ` +
          `(generate --threads ${threads}, one per core: its default from 2 cores on; same blocks)`,
        ours: parallel.rate,
        unit: 'logs/s',
        target: { kind: 'min', value: 400_000, text: '≥ 400k logs/s' },
        note:
          `${ratio(parallel.rate, sequential.rate)} the writer's-thread ` +
          'rate of this run; includes starting the threads',
      },
      {
        figure:
          `ingest from the generator extending the ${dataset.blocks}-block benchmark dataset (density ` +
          `${dataset.density}) by ${extendBlocks} blocks, ${extend.logs} logs (writer's thread)`,
        ours: extend.rate,
        unit: 'logs/s',
        note:
          `${ratio(extend.rate, sequential.rate)} the rate into a fresh ` +
          'store: the random puts of a large store dirty a page each',
      },
      {
        figure:
          "ingest: the store's write path alone (pre-generated mainnet blocks, " +
          `encoded and appended up to ${WRITE_BATCH_BLOCKS} per transaction)`,
        ours: writes.blocks,
        unit: 'logs/s',
        target: { kind: 'min', value: 1_000_000, text: '≥ 1M logs/s' },
      },
      {
        figure:
          "ingest: the store's write path alone, records encoded beforehand " +
          `(what worker threads hand over; up to ${WRITE_BATCH_BLOCKS} blocks per transaction)`,
        ours: writes.records,
        unit: 'logs/s',
        target: { kind: 'min', value: 1_000_000, text: '≥ 1M logs/s' },
        note:
          `${ratio(writes.records, writes.blocks)} the rate with encoding; ${writes.entriesPerLog.toFixed(2)} ` +
          'LMDB puts per log (one per transaction, its hash, and storage write)',
      },
      {
        figure:
          `ingest: one LMDB put through lmdb-js at best (${FLOOR_PUTS} random ` +
          '32-byte keys in key order, one write transaction, a fresh store)',
        ours: putMicros,
        unit: 'µs/put',
        note: 'the floor of every put the write path makes',
      },
      {
        figure:
          `ingest: the write path's ceiling on this layout (${writes.entriesPerLog.toFixed(2)} ` +
          'puts per log at the put cost above, everything else free)',
        ours: 1e6 / (writes.entriesPerLog * putMicros),
        unit: 'logs/s',
        target: { kind: 'min', value: 1_000_000, text: '≥ 1M logs/s' },
        note:
          'the records-only row reaches ' +
          `${((100 * writes.records * writes.entriesPerLog * putMicros) / 1e6).toFixed(0)}% of it`,
      },
      {
        figure: 'store size per log: logs and their indexes (logs, address tables, bloom bits, address index)',
        ours: logBytes / parallel.logs,
        unit: 'B/log',
        target: { kind: 'max', value: 120, text: '≤ 120 B/log' },
      },
      {
        figure: 'store size per log: whole file (with transactions, headers, storage history)',
        ours: fileBytes / parallel.logs,
        unit: 'B/log',
      },
    ];
  } finally {
    rmSync(parallel.dir, { recursive: true, force: true });
  }
}
