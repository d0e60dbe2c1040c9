/**
 * Blocks built in worker threads (`generate --threads N`): N generating threads (blockWorker.ts)
 * each fold the chain's plans and build, encode and pack every N-th batch; the writer's thread
 * receives the packed batches in chain order, links them (recordBatch.ts: parent hash, then the
 * block hash, one keccak per block) and appends them. Batches are asked for ahead of the writer,
 * a bounded number, so the threads keep building while it writes and memory stays bounded.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BlockSource, SourceBatch, SourceRange } from './blockSource.js';
import type { FromBlockThread, ToBlockThread } from './blockThreadProtocol.js';
import type { GeneratorOptions } from './generator.js';
import { type BusyContract, LogTally } from './logTally.js';
import { linkPending, linkRecords, unpackBlocks } from './recordBatch.js';

/**
 * Fewest cores on which generate builds blocks in worker threads by default. On one core a thread
 * only adds its start-up and the batches' hand-over to the same work; from two cores on, the
 * threads build and encode blocks while the writer writes (docs/benchmarks.md, "Why the defaults").
 */
const MIN_CORES_FOR_THREADS = 2;

/**
 * The generating threads `generate` starts when none are asked for: one per core, or none (the writer's thread builds)
 * on a machine of fewer than MIN_CORES_FOR_THREADS cores.
 */
export function defaultGenerateThreads(cores: number = availableParallelism()): number {
  return cores >= MIN_CORES_FOR_THREADS ? cores : 0;
}

/** Batches asked for ahead of the writer, per thread: one being built while the next waits in its queue. */
const AHEAD_PER_THREAD = 2;

type Request = ToBlockThread extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;
type Reply<K extends FromBlockThread['kind']> = Extract<FromBlockThread, { kind: K }>;

/** A pool of generating threads for one chain. */
export class BlockThreads implements BlockSource {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<
    number,
    { resolve: (reply: FromBlockThread) => void; reject: (error: Error) => void }
  >();
  private nextId = 0;
  private failure: Error | undefined;
  private closing = false;

  /** Starts `threads` generating threads (at least one) for the chain `opts` describes. */
  constructor(opts: GeneratorOptions, threads: number) {
    if (!Number.isInteger(threads) || threads < 1)
      throw new RangeError(`threads must be a positive integer, not ${threads}`);
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL('./blockWorker.js', import.meta.url), { workerData: opts });
      worker.on('message', (reply: FromBlockThread) => {
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        waiter?.resolve(reply);
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`a generating thread exited with code ${code}`));
      });
      this.workers.push(worker);
    }
  }

  /**
   * The batches of `range` (of at most its batchBlocks): asked of the threads in turn, AHEAD_PER_THREAD per thread
   * ahead, linked here in chain order.
   */
  async *batches(range: SourceRange): AsyncGenerator<SourceBatch> {
    const threads = this.workers.length;
    const blocks = range.to - range.from + 1;
    // A short range is cut finer, so that every thread has batches to build (the store is the same whatever the cut).
    const batchBlocks = Math.min(range.batchBlocks, Math.max(1, Math.ceil(blocks / (threads * AHEAD_PER_THREAD))));
    const count = Math.ceil(blocks / batchBlocks);
    const asked: Promise<Reply<'blocks'>>[] = [];
    let pending: Promise<Reply<'pending'>> | undefined;
    const askNext = (j: number) => {
      const from = range.from + j * batchBlocks;
      const to = Math.min(range.to, from + batchBlocks - 1);
      asked.push(this.ask(j % threads, { kind: 'blocks', from, to, tallyFrom: range.tallyFrom }));
      // The pending block goes to the thread after the last batch's, once every batch is asked for: no thread's planner
      // passes a batch it still has to build.
      if (j === count - 1 && range.pending)
        pending = this.ask((j + 1) % threads, { kind: 'pending', from: range.to + 1 });
    };
    let next = 0;
    while (next < count && next < AHEAD_PER_THREAD * threads) askNext(next++);
    let parent = range.parentHash;
    for (let j = 0; j < count; j++) {
      const reply = await asked.shift()!;
      if (next < count) askNext(next++);
      const unpacked = unpackBlocks(reply.bytes);
      const batch: SourceBatch = { blocks: [], logCounts: [] };
      for (const block of unpacked) {
        parent = linkRecords(block, parent);
        batch.blocks.push(block.records);
        batch.logCounts.push(block.logCount);
      }
      if (j === count - 1 && pending) batch.pending = linkPending((await pending).bytes, parent);
      yield batch;
    }
  }

  /** The busiest contracts of the blocks counted, every thread's counts merged. */
  async busiest(contracts: number, topics: number): Promise<BusyContract[]> {
    const tally = new LogTally();
    for (let i = 0; i < this.workers.length; i++) tally.addCounts((await this.ask(i, { kind: 'tally' })).counts);
    return tally.busiest(contracts, topics);
  }

  /** Stops the threads. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private ask<K extends Request['kind']>(worker: number, request: Extract<Request, { kind: K }>): Promise<Reply<K>> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const reply = new Promise<FromBlockThread>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.workers[worker]!.postMessage({ ...request, id } as ToBlockThread);
    // A batch asked for ahead may fail before it is awaited; the failure reaches the writer when it is.
    reply.catch(() => undefined);
    return reply as Promise<Reply<K>>;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
    this.waiting.clear();
  }
}
