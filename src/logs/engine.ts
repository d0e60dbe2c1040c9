/**
 * The parallel eth_getLogs engine (DESIGN.md §4): resolves the range once, plans segment tasks,
 * keeps a window of them in flight on a Piscina pool, merges results in order, and answers the
 * -32005 cap and deadline errors. Once a query is answered its remaining tasks stop at their next
 * check (a shared cancel flag); no running thread is killed. Answers come as JSON text (eth_getLogs)
 * or protobuf messages (the gRPC front); stream() runs the uncapped, flow-controlled variant.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { LOG_WORKER_NICE, WORKER_LOAD_WAIT_MS, type LogLimits } from '../config.js';
import { InternalError, RpcError } from '../rpc/errors.js';
import type { LogChunks } from '../rpc/method.js';
import type { StoreReader } from '../store/reader.js';
import { renderBundleMatches } from './blockLogs.js';
import { compileFilter, type FilterSpec } from './filter.js';
import { resultCapError, timeoutError } from './limits.js';
import { LogProtoWriter } from './logProto.js';
import { planTasks, TASKS_PER_THREAD, taskShape } from './planner.js';
import { resolveRange, type ResolvedRange } from './range.js';
import { streamQuery, type StreamChunk, type StreamOptions, type TaskOutcome } from './stream.js';
import type { LogFormat, ScanResult, ScanTask } from './task.js';

/** How to run the engine. */
export interface LogEngineOptions {
  dataDir: string;
  limits: LogLimits;
  /** Worker threads; default: the machine's cores. */
  threads?: number;
  /** Where unexpected worker failures are reported. */
  onError: (message: string, error: unknown) => void;
}

type ScanOk = Extract<ScanResult, { ok: true }>;

/** The work of the engine's completed scan tasks since it started, query() and stream() together (read by the metrics). */
export interface ScanTotals {
  /** Blocks the tasks covered. */
  blocks: number;
  /** Candidate blocks whose records were read. */
  candidates: number;
  /** Candidate blocks with at least one match (the others were bloom false positives). */
  matchedBlocks: number;
}

/** The matches of the pending or orphaned block a range ends with, in `format`, and how many there are. */
function renderExtra(range: ResolvedRange, spec: FilterSpec, format: LogFormat): { chunk?: string | Uint8Array; count: number } {
  const bundle = range.pending ?? range.orphan;
  if (!bundle) return { count: 0 };
  const kind = range.pending ? 'pending' : 'orphan';
  if (format === 'json') {
    const logs = renderBundleMatches(bundle, compileFilter(spec), kind);
    return logs.length > 0 ? { chunk: logs.join(','), count: logs.length } : { count: 0 };
  }
  const writer = new LogProtoWriter();
  writer.writeBundle(bundle, compileFilter(spec), kind);
  return writer.count > 0 ? { chunk: writer.take().bytes, count: writer.count } : { count: 0 };
}

/** The worker pool and the query path over it. */
export class LogEngine {
  /** The Piscina pool (exposed for tests and metrics). */
  readonly pool: Piscina<ScanTask, ScanResult>;
  /** Worker threads in the pool. */
  readonly threads: number;
  /** What the scan tasks did so far. */
  readonly totals: ScanTotals = { blocks: 0, candidates: 0, matchedBlocks: 0 };
  /** Set by close(): tasks the shutdown aborts are not worker failures. */
  private closing = false;
  /**
   * Resolves once every worker thread has loaded its modules and answered (or after
   * WORKER_LOAD_WAIT_MS): one `ready` task per thread, each held at a barrier until all have
   * started, so each runs on its own thread.
   */
  readonly ready: Promise<void>;

  /** Starts the pool. */
  constructor(private readonly options: LogEngineOptions) {
    this.threads = options.threads ?? availableParallelism();
    this.pool = new Piscina<ScanTask, ScanResult>({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      niceIncrement: LOG_WORKER_NICE,
    });
    const barrier = new Int32Array(new SharedArrayBuffer(8));
    barrier[1] = this.threads;
    const readyTasks = this.pool as unknown as Piscina<Int32Array, void>;
    const pings = Array.from({ length: this.threads }, () => readyTasks.run(barrier, { name: 'ready' }));
    this.ready = Promise.allSettled(pings).then(() => undefined);
  }

  /**
   * Answers a parsed filter, in order: chunks of comma-separated log JSON (UTF-8), or with format
   * `proto` chunks of protobuf Log messages (logProto.ts); rejects with an RpcError.
   */
  query(spec: FilterSpec, reader: StoreReader, format: LogFormat = 'json'): Promise<LogChunks> {
    const started = Date.now();
    const { limits } = this.options;
    const range = resolveRange(spec, reader);
    const tasks = planTasks(range.from, range.to, this.threads, taskShape(spec.addresses));
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const deadline = started + limits.timeoutMs;
    const window = this.threads * TASKS_PER_THREAD;

    return new Promise<LogChunks>((resolve, reject) => {
      const results: (ScanOk | undefined)[] = new Array(tasks.length);
      const chunks: LogChunks = [];
      let merged = 0;
      let count = 0;
      let dispatched = 0;
      let inFlight = 0;
      let done = false;

      const finish = (error?: RpcError) => {
        if (done) return;
        done = true;
        Atomics.store(cancel, 0, 1);
        clearTimeout(timer);
        if (error) return reject(error);
        const extra = renderExtra(range, spec, format);
        if (count + extra.count > limits.maxResults) return reject(resultCapError(range.from, range.to, limits.maxResults));
        if (extra.chunk !== undefined) chunks.push(extra.chunk);
        resolve(chunks);
      };

      const timer = setTimeout(() => finish(timeoutError()), Math.max(0, deadline - Date.now()));

      const merge = () => {
        while (!done && merged < tasks.length && results[merged]) {
          const r = results[merged]!;
          results[merged] = undefined;
          if (count + r.count > limits.maxResults) {
            let running = count;
            let lastFitting = tasks[merged]![1];
            for (let i = 0; i < r.blockCounts.length; i += 2) {
              running += r.blockCounts[i + 1]!;
              if (running > limits.maxResults) {
                lastFitting = r.blockCounts[i]! - 1;
                break;
              }
            }
            return finish(resultCapError(range.from, lastFitting, limits.maxResults));
          }
          if (r.count > 0) chunks.push(r.bytes);
          count += r.count;
          merged++;
        }
        if (!done && merged === tasks.length) finish();
      };

      const dispatch = () => {
        while (!done && inFlight < window && dispatched < tasks.length) {
          const index = dispatched++;
          const [from, to] = tasks[index]!;
          inFlight++;
          const task: ScanTask = {
            dataDir: this.options.dataDir,
            format,
            from,
            to,
            addresses: spec.addresses,
            topics: spec.topics,
            deadline,
            budget: limits.maxResults - count,
            cancel,
          };
          this.pool.run(task).then(
            (result) => {
              inFlight--;
              if (result.ok) this.account(result);
              if (done) return;
              if (!result.ok) {
                this.options.onError('log scan task failed', result.message);
                return finish(new InternalError());
              }
              if (result.stop === 'deadline') return finish(timeoutError());
              results[index] = result;
              merge();
              dispatch();
            },
            (error: unknown) => {
              inFlight--;
              if (!this.closing) this.options.onError('log scan worker died', error);
              finish(new InternalError());
            },
          );
        }
      };

      if (Date.now() > deadline) return finish(timeoutError());
      merge();
      dispatch();
    });
  }

  /**
   * Streams a parsed filter's matches in order as protobuf Log messages, without the result cap:
   * see stream.ts for the flow control, the cursor and the deadline. Throws RpcErrors.
   */
  stream(spec: FilterSpec, reader: StoreReader, options: StreamOptions = {}): AsyncGenerator<StreamChunk> {
    return streamQuery(
      { dataDir: this.options.dataDir, threads: this.threads, run: (task) => this.runTask(task) },
      spec,
      resolveRange(spec, reader),
      options,
    );
  }

  /** Runs one task; a failure comes back as an InternalError (reported unless the pool is closing), never as a rejection. */
  private runTask(task: ScanTask): Promise<TaskOutcome> {
    return this.pool.run(task).then(
      (result): TaskOutcome => {
        if (result.ok) {
          this.account(result);
          return result;
        }
        this.options.onError('log scan task failed', result.message);
        return { error: new InternalError() };
      },
      (error: unknown): TaskOutcome => {
        if (!this.closing) this.options.onError('log scan worker died', error);
        return { error: new InternalError() };
      },
    );
  }

  /** Adds a completed task's work to the totals. */
  private account(result: ScanOk): void {
    this.totals.blocks += result.blocks;
    this.totals.candidates += result.candidates;
    this.totals.matchedBlocks += result.blockCounts.length / 2;
  }

  /**
   * Stops the pool: running tasks are aborted (a query still unanswered fails with -32603), and not
   * reported as failures. It first lets threads still loading their modules finish (bounded):
   * terminating a thread while it registers lmdb's native addon aborts the whole process.
   */
  async close(): Promise<void> {
    this.closing = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ready, new Promise((resolve) => (timer = setTimeout(resolve, WORKER_LOAD_WAIT_MS)))]);
    clearTimeout(timer);
    await this.pool.destroy();
  }
}
