/**
 * The parallel eth_getLogs engine (docs/architecture.md §4): resolves the range once, plans segment
 * tasks, keeps a window of them in flight on a Piscina pool, merges results in order, and fails
 * with the result-cap and deadline errors (errors.ts). Once a query is answered its remaining tasks
 * stop at their next check (a shared cancel flag); no running thread is killed. Answers come as
 * JSON text (eth_getLogs) or protobuf messages (the gRPC front); stream() runs the uncapped,
 * flow-controlled variant.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { type LogLimits, logWorkerNice, WORKER_LOAD_WAIT_MS } from '../config.js';
import type { StoreReader } from '../store/reader.js';
import { type LogChunks, lastFitting, type QueryPaths, type ScanCounts, type ScanTotals, withExtra } from './answer.js';
import { giveBack, lend, takeSpare } from './answerBuffers.js';
import { DeadlineExceededError, QueryCancelledError, ResultCapError, ScanFailedError } from './errors.js';
import type { FilterSpec } from './filter.js';
import { answerInline } from './inline.js';
import { InlineLoad } from './inlineLoad.js';
import { defaultInlineBudgetUs, planTasks, TASKS_PER_THREAD, taskShape } from './planner.js';
import { type ResolvedRange, resolveRange } from './range.js';
import { type StreamChunk, type StreamOptions, streamQuery, type TaskOutcome } from './stream.js';
import type { LogFormat, ScanResult, ScanTask } from './task.js';

/** How to run the engine. */
export interface LogEngineOptions {
  dataDir: string;
  limits: LogLimits;
  /** Worker threads; default: the machine's cores. */
  threads?: number;
  /**
   * Estimated microseconds of work under which a query runs inline (planner.ts); defaultInlineBudgetUs by default,
   * negative: never.
   */
  inlineBudgetUs?: number;
  /** Where unexpected worker failures are reported. */
  onError: (message: string, error: unknown) => void;
}

type ScanOk = Extract<ScanResult, { ok: true }>;

/** Frees a query's turn on the pool. */
export type Release = () => void;

/** How one query is run beyond its filter: who may stop it, and what it waits for before the pool. */
export interface QueryOptions {
  /** Aborted when the query's caller goes away: a query waiting or on the pool stops (QueryCancelledError). */
  signal?: AbortSignal;
  /**
   * Waits for the query's turn on the pool, told the blocks its range spans; resolves with what
   * frees the turn (called once the query ends), or throws the refusal. Inline queries do not wait.
   */
  admit?: (blocks: number, signal?: AbortSignal) => Release | Promise<Release>;
}

/** Does nothing: what a settled task's promise becomes for close(), whatever its outcome. */
function noop(): void {}

/** One query on the pool (LogEngine.pooled): its tasks, what came back and was merged, and how it ends. */
interface PooledRun {
  spec: FilterSpec;
  range: ResolvedRange;
  format: LogFormat;
  limits: LogLimits;
  /** The tasks' block ranges, in order. */
  tasks: ReturnType<typeof planTasks>;
  /** Set once the query is answered: its tasks stop at their next check. */
  cancel: Int32Array;
  /** When the query fails with DeadlineExceededError (epoch milliseconds). */
  deadline: number;
  /** Most tasks in flight at once. */
  window: number;
  signal: AbortSignal | undefined;
  /** The answers of tasks not merged yet, by task. */
  results: (ScanOk | undefined)[];
  /** The answer so far, merged in order. */
  chunks: LogChunks;
  /** Tasks merged. */
  merged: number;
  /** Logs merged. */
  count: number;
  /** Tasks sent to the pool. */
  dispatched: number;
  /** Tasks on the pool now. */
  inFlight: number;
  /** The query is answered or failed. */
  done: boolean;
  timer: NodeJS.Timeout | undefined;
  /** Stops the query when its signal aborts. */
  onAbort: () => void;
  resolve: (chunks: LogChunks) => void;
  reject: (error: Error) => void;
}

/** Ends `run` once: answered, or failed with `error` (its memory given back); its tasks stop. */
function finishPooled(run: PooledRun, error?: Error): void {
  if (run.done) return;
  run.done = true;
  Atomics.store(run.cancel, 0, 1);
  clearTimeout(run.timer);
  run.signal?.removeEventListener('abort', run.onAbort);
  const { chunks, results } = run;
  if (error) {
    giveBack(chunks);
    for (const r of results) if (r !== undefined) giveBack([r.bytes]);
    return run.reject(error);
  }
  try {
    run.resolve(withExtra(chunks, run.count, run.range, run.spec, run.format, run.limits.maxResults));
  } catch (capError) {
    run.reject(capError as Error);
  }
}

/** Merges the answers of `run` that are next in order, failing it past the result cap; answers it after the last. */
function mergePooled(run: PooledRun): void {
  const { results, tasks, limits } = run;
  while (!run.done && run.merged < tasks.length && results[run.merged]) {
    const r = results[run.merged]!;
    results[run.merged] = undefined;
    if (run.count + r.count > limits.maxResults) {
      const last = lastFitting(r.blockCounts, run.count, limits.maxResults, tasks[run.merged]![1]);
      return finishPooled(run, new ResultCapError(run.range.from, last, limits.maxResults));
    }
    if (r.count > 0) run.chunks.push(r.bytes);
    else giveBack([r.bytes]);
    run.count += r.count;
    run.merged++;
  }
  if (!run.done && run.merged === tasks.length) finishPooled(run);
}

/** The worker pool and the query path over it. */
export class LogEngine implements ScanCounts {
  /** The Piscina pool (exposed for tests and metrics). */
  readonly pool: Piscina<ScanTask, ScanResult>;
  /** Worker threads in the pool. */
  readonly threads: number;
  /** What the scans did so far, inline and on the pool. */
  readonly totals: ScanTotals = { blocks: 0, candidates: 0, matchedBlocks: 0 };
  /** eth_getLogs queries (query(), not streams) by where they ran. */
  readonly paths: QueryPaths = { inline: 0, pool: 0 };
  /** Pool queries stopped because their caller went away (QueryOptions.signal), while running. */
  cancelled = 0;
  /** This thread's recent inline scans: a thread busy with them sends more to the pool (inlineLoad.ts). */
  private readonly load = new InlineLoad();
  /**
   * The inline budget in microseconds (planner.ts): the option, else the default for this machine's cores, read once
   * (availableParallelism is a system call).
   */
  readonly inlineBudgetUs: number;
  /** Set by close(): tasks the shutdown aborts are not worker failures. */
  private closing = false;
  /** The tasks on the pool now, each settled when its run settles: close() stops them and waits for them. */
  private readonly running = new Set<{ cancel: Int32Array; settled: Promise<unknown> }>();
  /**
   * Resolves once every worker thread has loaded its modules and answered (or after
   * WORKER_LOAD_WAIT_MS): one `ready` task per thread, each held at a barrier until all have
   * started, so each runs on its own thread.
   */
  readonly ready: Promise<void>;

  /** Starts the pool. */
  constructor(private readonly options: LogEngineOptions) {
    this.threads = options.threads ?? availableParallelism();
    this.inlineBudgetUs = options.inlineBudgetUs ?? defaultInlineBudgetUs(availableParallelism());
    this.pool = new Piscina<ScanTask, ScanResult>({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      niceIncrement: logWorkerNice(availableParallelism()),
    });
    // Piscina emits 'error' for what it cannot pin on a task (a worker's answer to a task it has
    // dropped, as at shutdown, "Unexpected message from Worker"): unheard, it kills the process.
    this.pool.on('error', (error: unknown) => {
      if (!this.closing) this.options.onError('log scan pool failed', error);
    });
    const barrier = new Int32Array(new SharedArrayBuffer(8));
    barrier[1] = this.threads;
    const readyTasks = this.pool as unknown as Piscina<Int32Array, void>;
    const pings = Array.from({ length: this.threads }, () => readyTasks.run(barrier, { name: 'ready' }));
    this.ready = Promise.allSettled(pings).then(() => undefined);
  }

  /**
   * Answers a parsed filter, in order: chunks of comma-separated log JSON (UTF-8), or with format
   * `proto` chunks of protobuf Log messages (logProto.ts). A query the planner estimates cheap is
   * answered inline, synchronously (a result, or a thrown error of errors.ts), under a smaller
   * budget while inline scans keep this thread busy (inlineLoad.ts); the others run on the pool (a
   * promise, rejected with one).
   */
  query(
    spec: FilterSpec,
    reader: StoreReader,
    format: Exclude<LogFormat, 'jsonl'> = 'json',
    options: QueryOptions = {},
  ): LogChunks | Promise<LogChunks> {
    if (options.signal?.aborted) throw new QueryCancelledError();
    const range = resolveRange(spec, reader);
    const started = performance.now();
    const inline = answerInline(
      range,
      spec,
      reader,
      format,
      this.options.limits.maxResults,
      this.load.budget(this.inlineBudgetUs, started),
      this,
    );
    this.load.add(started);
    if (inline !== undefined) return inline;
    this.paths.pool++;
    return this.admitted(spec, range, format, options);
  }

  /**
   * Answers a parsed filter on the pool, as query() does past the inline budget (for an HTTP thread that found it over
   * its budget).
   */
  queryOnPool(spec: FilterSpec, reader: StoreReader, options: QueryOptions = {}): Promise<LogChunks> {
    const range = resolveRange(spec, reader);
    this.paths.pool++;
    return this.admitted(spec, range, 'json', options);
  }

  /** Runs a query on the pool once admitted (QueryOptions.admit), its turn freed however it ends. */
  private async admitted(
    spec: FilterSpec,
    range: ResolvedRange,
    format: LogFormat,
    options: QueryOptions,
  ): Promise<LogChunks> {
    const release =
      options.admit === undefined
        ? undefined
        : await options.admit(Math.max(0, range.to - range.from + 1), options.signal);
    try {
      return await this.pooled(spec, range, format, options.signal);
    } finally {
      release?.();
    }
  }

  /**
   * Runs a query on the pool: a window of tasks in flight, merged in order under the result cap and
   * the deadline; `signal` aborting stops it as the deadline does (its tasks at their next check).
   */
  private pooled(spec: FilterSpec, range: ResolvedRange, format: LogFormat, signal?: AbortSignal): Promise<LogChunks> {
    const started = Date.now();
    const { limits } = this.options;
    const tasks = planTasks(range.from, range.to, this.threads, taskShape(spec.addresses));
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const deadline = started + limits.timeoutMs;
    const window = this.threads * TASKS_PER_THREAD;

    return new Promise<LogChunks>((resolve, reject) => {
      const run: PooledRun = {
        spec,
        range,
        format,
        limits,
        tasks,
        cancel,
        deadline,
        window,
        signal,
        results: new Array(tasks.length),
        chunks: [],
        merged: 0,
        count: 0,
        dispatched: 0,
        inFlight: 0,
        done: false,
        timer: undefined,
        onAbort: () => {
          if (run.done) return;
          this.cancelled++;
          finishPooled(run, new QueryCancelledError());
        },
        resolve,
        reject,
      };
      run.timer = setTimeout(() => finishPooled(run, new DeadlineExceededError()), Math.max(0, deadline - Date.now()));
      if (signal?.aborted) return finishPooled(run, new QueryCancelledError());
      signal?.addEventListener('abort', run.onAbort, { once: true });
      if (Date.now() > deadline) return finishPooled(run, new DeadlineExceededError());
      mergePooled(run);
      this.dispatchPooled(run);
    });
  }

  /** Sends the query's next tasks to the pool while its window has room. */
  private dispatchPooled(run: PooledRun): void {
    const { tasks, limits, format } = run;
    while (!run.done && run.inFlight < run.window && run.dispatched < tasks.length) {
      const index = run.dispatched++;
      const [from, to] = tasks[index]!;
      run.inFlight++;
      const task: ScanTask = {
        dataDir: this.options.dataDir,
        format,
        from,
        to,
        addresses: run.spec.addresses,
        topics: run.spec.topics,
        deadline: run.deadline,
        budget: limits.maxResults - run.count,
        cancel: run.cancel,
        out: format === 'json' ? takeSpare() : undefined,
      };
      this.submit(task).then(
        (result) => this.pooledTaskDone(run, index, result),
        (error: unknown) => this.pooledTaskDied(run, error),
      );
    }
  }

  /** Takes the answer of the query's task `index`: merged in order, or the end of the query. */
  private pooledTaskDone(run: PooledRun, index: number, result: ScanResult): void {
    run.inFlight--;
    if (result.ok) {
      this.account(result);
      if (run.format === 'json') lend(result.bytes.buffer as ArrayBuffer);
    }
    if (run.done) {
      if (result.ok) giveBack([result.bytes]);
      return;
    }
    if (!result.ok) {
      this.options.onError('log scan task failed', result.message);
      return finishPooled(run, new ScanFailedError());
    }
    if (result.stop === 'deadline') return finishPooled(run, new DeadlineExceededError());
    // Only close() cancels the tasks of a query still unanswered: its answer would be partial.
    if (result.stop === 'cancelled') return finishPooled(run, new ScanFailedError());
    run.results[index] = result;
    mergePooled(run);
    this.dispatchPooled(run);
  }

  /** Fails the query whose task's worker died (reported unless the pool is closing). */
  private pooledTaskDied(run: PooledRun, error: unknown): void {
    run.inFlight--;
    if (!this.closing) this.options.onError('log scan worker died', error);
    finishPooled(run, new ScanFailedError());
  }

  /**
   * Streams a parsed filter's matches in order as protobuf Log messages, without the result cap:
   * see stream.ts for the flow control, the cursor and the deadline. Throws the errors of errors.ts.
   */
  stream(spec: FilterSpec, reader: StoreReader, options: StreamOptions = {}): AsyncGenerator<StreamChunk> {
    return streamQuery(
      { dataDir: this.options.dataDir, threads: this.threads, run: (task) => this.runTask(task) },
      spec,
      resolveRange(spec, reader),
      options,
    );
  }

  /**
   * Runs one task; a failure comes back as a ScanFailedError (reported unless the pool is closing), never as a
   * rejection.
   */
  private runTask(task: ScanTask): Promise<TaskOutcome> {
    return this.submit(task).then(
      (result): TaskOutcome => {
        if (result.ok) {
          this.account(result);
          // A task close() cancelled: the stream must fail, not end as if it were complete.
          if (result.stop === 'cancelled' && this.closing) return { error: new ScanFailedError() };
          return result;
        }
        this.options.onError('log scan task failed', result.message);
        return { error: new ScanFailedError() };
      },
      (error: unknown): TaskOutcome => {
        if (!this.closing) this.options.onError('log scan worker died', error);
        return { error: new ScanFailedError() };
      },
    );
  }

  /** Runs `task` on the pool (its answer memory transferred with it), known to close() until it settles. */
  private submit(task: ScanTask): Promise<ScanResult> {
    const run = this.pool.run(task, task.out ? { transferList: [task.out] } : undefined);
    const entry = { cancel: task.cancel, settled: run.then(noop, noop) };
    this.running.add(entry);
    void entry.settled.then(() => this.running.delete(entry));
    return run;
  }

  /** Adds a completed task's work to the totals. */
  private account(result: ScanOk): void {
    this.totals.blocks += result.blocks;
    this.totals.candidates += result.candidates;
    this.totals.matchedBlocks += result.blockCounts.length / 2;
  }

  /**
   * Stops the pool: running tasks are cancelled (a query still unanswered fails with ScanFailedError), and not
   * reported as failures. Before the threads are terminated it lets those still loading their
   * modules finish, and the running tasks reach their next cancellation check (both bounded):
   * terminating a thread inside lmdb's native code (registering the addon, opening the store)
   * aborts the whole process.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const { cancel } of this.running) Atomics.store(cancel, 0, 1);
    let timer: NodeJS.Timeout | undefined;
    const settled = Promise.all([this.ready, ...[...this.running].map((r) => r.settled)]);
    await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, WORKER_LOAD_WAIT_MS)))]);
    clearTimeout(timer);
    await this.pool.destroy();
  }
}
