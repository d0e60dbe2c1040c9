/**
 * The streamed log query (the gRPC front's StreamLogs, the library's log iterators): the matches of
 * a filter in order, as protobuf Log messages or JSON lines, with no result cap.
 *
 * - Flow control: scan tasks are dispatched only while the consumer pulls, at most a window of
 *   them ahead of the chunk it is reading, so a slow consumer holds the scan back instead of
 *   letting results pile up.
 * - Bounded tasks: a task hands back after about `taskLogs` logs; the rest of its range is planned
 *   again in pieces of the span it covered (its density), so dense ranges keep every thread busy
 *   and no task's buffer grows without bound.
 * - Cursor: every chunk says where the stream continues after it (block number, log index); a
 *   stream started from a cursor skips everything before it, so a broken stream resumed from the
 *   last cursor it delivered repeats nothing and misses nothing.
 * - Deadline: optional (none by default), checked by the tasks and while waiting for them.
 */
import { STREAM_TASK_LOGS } from '../config.js';
import { LogProtoWriter, MARK_STRIDE } from '../render/logProto.js';
import { renderBundleLines } from './blockLogs.js';
import { DeadlineExceededError, type ScanFailedError } from './errors.js';
import { compileFilter, type FilterSpec, matchLog } from './filter.js';
import { planTasks, TASKS_PER_THREAD, taskShape } from './planner.js';
import type { ResolvedRange } from './range.js';
import type { LogFormat, ScanResult, ScanTask } from './task.js';

/** A position in a filter's ordered logs: log `logIndex` of block `block`, and everything after it. */
export interface LogCursor {
  block: number;
  logIndex: number;
}

/** How to run a streamed query. */
export interface StreamOptions {
  /** Start at this position instead of the start of the range. */
  from?: LogCursor;
  /** Epoch milliseconds past which the stream fails with DeadlineExceededError; default: none. */
  deadline?: number;
  /** Aborting ends the stream without an error: running tasks stop at their next check. */
  signal?: AbortSignal;
  /** Logs a task renders before it hands back; STREAM_TASK_LOGS by default. */
  taskLogs?: number;
  /** Protobuf Log messages (default), or one eth_getLogs JSON object per line. */
  format?: StreamFormat;
}

/** The formats a stream renders in: both mark every log, so a stream can resume after any of them. */
export type StreamFormat = Extract<LogFormat, 'proto' | 'jsonl'>;

/** A run of consecutive matches of a streamed query. */
export interface StreamChunk {
  /** Protobuf Log messages, each as field 1 of the enclosing message (logProto.ts), or JSON lines. */
  bytes: Uint8Array;
  /** Per log, MARK_STRIDE entries: its end offset in `bytes`, block number and log index. */
  marks: Float64Array;
  /** Where the stream continues after this chunk. */
  next: LogCursor;
  /** Scan tasks this stream has dispatched so far: at most the window ahead of the chunks consumed. */
  dispatched: number;
}

/** A task's result, or the error that ends the query. */
export type TaskOutcome = Extract<ScanResult, { ok: true }> | { error: ScanFailedError };

/** What a streamed query needs of the engine. */
export interface StreamRunner {
  dataDir: string;
  threads: number;
  /** Runs a task on the pool; never rejects. */
  run(task: ScanTask): Promise<TaskOutcome>;
}

/**
 * A piece of the range, in order; `outcome` is set once it has been dispatched, and dropped once consumed (so delivered
 * results are not retained).
 */
interface Slot {
  from: number;
  to: number;
  dispatched?: true;
  outcome?: Promise<TaskOutcome>;
}

const ABORTED = Symbol('aborted');
const TIMED_OUT = Symbol('timed out');

/** Waits for `outcome`, unless the deadline passes or the signal aborts first. */
function settle(
  outcome: Promise<TaskOutcome>,
  deadline: number,
  signal?: AbortSignal,
): Promise<TaskOutcome | typeof ABORTED | typeof TIMED_OUT> {
  if (signal?.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve) => {
    const timer = Number.isFinite(deadline)
      ? setTimeout(() => done(TIMED_OUT), Math.max(0, deadline - Date.now()))
      : undefined;
    const onAbort = () => done(ABORTED);
    const done = (value: TaskOutcome | typeof ABORTED | typeof TIMED_OUT) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    signal?.addEventListener('abort', onAbort);
    void outcome.then(done);
  });
}

/**
 * The pieces the rest of a task's range [from, to] is planned again in: `span` blocks each, at most `count` of them,
 * the last one taking what is left.
 */
function replan(from: number, to: number, span: number, count: number): Slot[] {
  const slots: Slot[] = [];
  let start = from;
  while (slots.length < count - 1 && start + span - 1 < to) {
    slots.push({ from: start, to: start + span - 1 });
    start += span;
  }
  slots.push({ from: start, to });
  return slots;
}

/** The first log of a chunk at or after `cursor`: the index of its first mark. */
function firstAtOrAfter(marks: Float64Array, cursor: LogCursor): number {
  let i = 0;
  while (i < marks.length / MARK_STRIDE) {
    const block = marks[i * MARK_STRIDE + 1]!;
    const logIndex = marks[i * MARK_STRIDE + 2]!;
    if (block > cursor.block || (block === cursor.block && logIndex >= cursor.logIndex)) break;
    i++;
  }
  return i;
}

/** Drops the logs of a chunk before `cursor` (they lead the chunk, as it is in order). */
function skipBefore(
  bytes: Uint8Array,
  marks: Float64Array,
  cursor: LogCursor,
): { bytes: Uint8Array; marks: Float64Array } {
  const skip = firstAtOrAfter(marks, cursor);
  if (skip === 0) return { bytes, marks };
  const offset = marks[(skip - 1) * MARK_STRIDE]!;
  const rest = marks.slice(skip * MARK_STRIDE);
  for (let i = 0; i < rest.length; i += MARK_STRIDE) rest[i] = rest[i]! - offset;
  return { bytes: bytes.subarray(offset), marks: rest };
}

/** One streamed query's tasks: its slots and what it has sent to the pool. */
interface StreamRun {
  runner: StreamRunner;
  spec: FilterSpec;
  format: StreamFormat;
  deadline: number;
  /** Logs a task renders before it hands back. */
  taskLogs: number;
  /** Most tasks in flight at once. */
  window: number;
  /** Set once the stream ends: its tasks stop at their next check. */
  cancel: Int32Array;
  slots: Slot[];
  /** Tasks dispatched so far. */
  dispatched: number;
  /** Tasks on the pool now. */
  inFlight: number;
}

/** Dispatches the slots from `head` on that are not yet, while the window has room. */
function fill(run: StreamRun, head: number): void {
  const { slots, runner, spec } = run;
  for (let i = head; i < slots.length && run.inFlight < run.window; i++) {
    const slot = slots[i]!;
    if (slot.dispatched) continue;
    const task: ScanTask = {
      dataDir: runner.dataDir,
      format: run.format,
      from: slot.from,
      to: slot.to,
      addresses: spec.addresses,
      topics: spec.topics,
      deadline: run.deadline,
      budget: run.taskLogs,
      cancel: run.cancel,
    };
    slot.outcome = runner.run(task);
    slot.dispatched = true;
    run.dispatched++;
    run.inFlight++;
  }
}

/**
 * The chunk of the pending or orphaned block that ends the range, its logs from `start` on; undefined when the range
 * has none, or `start` is past it.
 */
function bundleChunk(run: StreamRun, range: ResolvedRange, start: LogCursor | undefined): StreamChunk | undefined {
  const bundle = range.pending ?? range.orphan;
  if (!bundle || (start && start.block > bundle.header.number)) return undefined;
  const { spec } = run;
  const fromIndex = start && start.block === bundle.header.number ? start.logIndex : 0;
  const kind = range.pending ? 'pending' : 'orphan';
  let rendered: { bytes: Uint8Array; marks: Float64Array };
  if (run.format === 'jsonl') rendered = renderBundleLines(bundle, compileFilter(spec), kind, fromIndex);
  else {
    const writer = new LogProtoWriter();
    const filter = compileFilter(spec);
    writer.writeBundle(bundle, (log) => matchLog(filter, log), kind, fromIndex);
    rendered = writer.take();
  }
  return { ...rendered, next: { block: bundle.header.number + 1, logIndex: 0 }, dispatched: run.dispatched };
}

/** Streams the matches of `spec` over `range` (resolved once, at the start), in order. */
export async function* streamQuery(
  runner: StreamRunner,
  spec: FilterSpec,
  range: ResolvedRange,
  options: StreamOptions,
): AsyncGenerator<StreamChunk> {
  const start = options.from;
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const window = runner.threads * TASKS_PER_THREAD;
  const first = start ? Math.max(range.from, start.block) : range.from;
  const slots: Slot[] = planTasks(first, range.to, runner.threads, taskShape(spec.addresses)).map(([from, to]) => ({
    from,
    to,
  }));
  const run: StreamRun = {
    runner,
    spec,
    format: options.format ?? 'proto',
    deadline,
    taskLogs: options.taskLogs ?? STREAM_TASK_LOGS,
    window,
    cancel: new Int32Array(new SharedArrayBuffer(4)),
    slots,
    dispatched: 0,
    inFlight: 0,
  };
  try {
    for (let i = 0; i < slots.length; i++) {
      if (Date.now() > deadline) throw new DeadlineExceededError();
      fill(run, i);
      const slot = slots[i]!;
      const outcome = await settle(slot.outcome!, deadline, options.signal);
      slot.outcome = undefined;
      run.inFlight--;
      if (outcome === ABORTED) return;
      if (outcome === TIMED_OUT) throw new DeadlineExceededError();
      if ('error' in outcome) throw outcome.error;
      if (outcome.stop === 'deadline') throw new DeadlineExceededError();
      if (outcome.stop === 'cancelled') return;
      let next: LogCursor = { block: slot.to + 1, logIndex: 0 };
      if (outcome.stop === 'budget') {
        const last = outcome.blockCounts[outcome.blockCounts.length - 2]!;
        next = { block: last + 1, logIndex: 0 };
        if (last < slot.to) slots.splice(i + 1, 0, ...replan(last + 1, slot.to, last - slot.from + 1, window));
      }
      const { bytes, marks } = start ? skipBefore(outcome.bytes, outcome.marks, start) : outcome;
      yield { bytes, marks, next, dispatched: run.dispatched };
    }
    const chunk = bundleChunk(run, range, start);
    if (chunk !== undefined) yield chunk;
  } finally {
    Atomics.store(run.cancel, 0, 1);
  }
}
