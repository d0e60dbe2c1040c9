/**
 * Where an eth_getLogs query runs and how it is cut. A query whose estimated work is below
 * INLINE_BUDGET_US runs inline on the thread that received it (inline.ts): a worker round trip
 * costs more than that work. Larger queries go to the pool, their range split into scan tasks of
 * equal size, so the threads finish together (a task may span segments or end inside one: the
 * worker reads the index rows of each segment it touches).
 */

/** The work of answering a query, counted in the units the inline estimate weighs. */
export interface QueryWork {
  /** Blocks whose candidacy is tested against their own logsBloom (the open segment has no bloom rows yet). */
  bloomBlocks: number;
  /** Complete segments whose address index or bloom rows are read. */
  segments: number;
  /** Candidate blocks whose logs record is read and its address table searched (and, when it passes, scanned). */
  candidates: number;
  /** Bytes of the logs records scanned. */
  recordBytes: number;
  /** Matching logs rendered. */
  logs: number;
}

/**
 * Microseconds per unit of QueryWork on the thread that answers inline, measured by
 * `node dist/native-free-bench/inlineCost.js` on a generated store at mainnet density (about 480
 * logs a block), one shape per unit, rounded up: a header read and bloom test (the thread's header
 * memory warm, as realtime queries find it; a cold read costs about 1 µs), a complete segment's
 * address index and topic rows, a candidate's logs record read and its address table searched (1.7
 * µs: the record, about 34 KB, is copied out of LMDB whole), a byte of a logs record scanned (read
 * and walked), a log rendered with its transaction hash.
 */
export const INLINE_COST_US: Readonly<QueryWork> = {
  bloomBlocks: 0.1,
  segments: 14,
  candidates: 2,
  recordBytes: 0.001,
  logs: 0.7,
};

/**
 * The most estimated work, in microseconds, a query may cost to be answered inline. A pool round
 * trip (post the task, wake a worker, its buffers, transfer, merge) costs about 190 µs of CPU
 * (inlineCost.js), so inline a query costs less CPU at any size; past a millisecond it would hold
 * the thread that answers point lookups longer than their own p99 under load, and workers on other
 * cores, splitting the range, answer it sooner. A mainnet block by hash (about 480 logs, 350 µs)
 * fits; a 10,000-log range does not.
 */
export const INLINE_BUDGET_US = 1000;

/**
 * The inline budget on a machine of one core, µs: there the pool's worker shares the one core with
 * the thread that answers, so a query on the pool costs its round trip and splits nothing, and
 * with many connections the queries on the pool queue behind each other at half the core (their
 * p99 above anvil's: docs/benchmarks.md, "Why the defaults"). Up to this budget a query is answered
 * in its turn on the thread, and a point lookup waits behind at most this much of it.
 */
export const ONE_CORE_INLINE_BUDGET_US = 10_000;

/** The default inline budget on a machine of `cores` cores. */
export function defaultInlineBudgetUs(cores: number): number {
  return cores > 1 ? INLINE_BUDGET_US : ONE_CORE_INLINE_BUDGET_US;
}

/** The estimated microseconds of `work` on the answering thread. */
export function inlineCost(work: QueryWork): number {
  return (
    work.bloomBlocks * INLINE_COST_US.bloomBlocks +
    work.segments * INLINE_COST_US.segments +
    work.candidates * INLINE_COST_US.candidates +
    work.recordBytes * INLINE_COST_US.recordBytes +
    work.logs * INLINE_COST_US.logs
  );
}

/** Whether `work` fits an inline budget of `budgetUs` microseconds (a negative budget fits nothing). */
export function fitsInline(work: QueryWork, budgetUs: number): boolean {
  return budgetUs >= 0 && inlineCost(work) <= budgetUs;
}

/**
 * Tasks per thread of the window a query keeps in flight (engine, stream): two keep every thread busy while the main
 * thread merges.
 */
export const TASKS_PER_THREAD = 2;

/** How a filter's range is cut: the smallest task in blocks, and tasks per thread. */
export interface TaskShape {
  minBlocks: number;
  perThread: number;
}

/**
 * A filter with addresses: its scan is cheap per block (the exact address index), so one task per
 * thread (every dispatch costs tens of µs), none below 1,024 blocks.
 */
export const SELECTIVE_TASKS: TaskShape = { minBlocks: 1024, perThread: 1 };

/**
 * A filter without addresses: it may read every record and match most logs (at mainnet density
 * four blocks are ~2,000 logs, milliseconds of rendering), so short ranges are shared by every
 * thread too, and two tasks per thread even out a thread that falls behind.
 */
export const DENSE_TASKS: TaskShape = { minBlocks: 4, perThread: TASKS_PER_THREAD };

/** The task shape of a filter: DENSE_TASKS without addresses, else SELECTIVE_TASKS. */
export function taskShape(addresses: readonly Uint8Array[]): TaskShape {
  return addresses.length === 0 ? DENSE_TASKS : SELECTIVE_TASKS;
}

/**
 * The tasks [from, to] (inclusive) covering the range in order: `shape.perThread` per thread, of
 * equal size (within a block) so the threads finish together, none below `shape.minBlocks` unless
 * the range is; empty when from > to.
 */
export function planTasks(
  from: number,
  to: number,
  threads: number,
  shape: TaskShape = SELECTIVE_TASKS,
): [number, number][] {
  const tasks: [number, number][] = [];
  if (from > to) return tasks;
  const total = to - from + 1;
  const count = Math.max(1, Math.min(threads * shape.perThread, Math.floor(total / shape.minBlocks)));
  for (let i = 0, start = from; i < count; i++) {
    const end = from + Math.floor(((i + 1) * total) / count) - 1;
    tasks.push([start, end]);
    start = end + 1;
  }
  return tasks;
}
