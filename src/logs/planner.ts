/**
 * Splits a block range into scan tasks of equal size, so the threads finish together (a task may
 * span segments or end inside one: the worker reads the index rows of each segment it touches).
 */

/** Tasks per thread of the window a query keeps in flight (engine, stream): two keep every thread busy while the main thread merges. */
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
export function planTasks(from: number, to: number, threads: number, shape: TaskShape = SELECTIVE_TASKS): [number, number][] {
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
