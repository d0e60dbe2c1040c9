/**
 * Splits a block range into scan tasks: about two per thread so every thread has work, each task a
 * run of whole segments when the range is long (a task reads each segment's index once), or a
 * piece of one segment when it is short.
 */
import { SEGMENT_BLOCKS, segmentOf, segmentStart } from '../store/segments.js';

/** Smallest task in blocks of a selective filter (with addresses): below this, a task's dispatch cost (tens of µs) outweighs its scan. */
export const MIN_TASK_BLOCKS = 1024;

/**
 * Smallest task in blocks of a filter without addresses: such a filter may match most logs, and at
 * mainnet density four blocks are ~2,000 logs (milliseconds of rendering), so even a short dense
 * range is shared by every thread.
 */
export const DENSE_MIN_TASK_BLOCKS = 4;

/** Tasks per thread: two keep every thread busy while the main thread merges. */
export const TASKS_PER_THREAD = 2;

/** The smallest task for a filter: short for one that may match most logs (no addresses), else MIN_TASK_BLOCKS. */
export function minTaskBlocks(addresses: readonly Uint8Array[]): number {
  return addresses.length === 0 ? DENSE_MIN_TASK_BLOCKS : MIN_TASK_BLOCKS;
}

/** The tasks [from, to] (inclusive) covering the range in order, none below `minBlocks` unless the range is; empty when from > to. */
export function planTasks(from: number, to: number, threads: number, minBlocks = MIN_TASK_BLOCKS): [number, number][] {
  const tasks: [number, number][] = [];
  if (from > to) return tasks;
  const chunk = Math.max(minBlocks, Math.ceil((to - from + 1) / (threads * TASKS_PER_THREAD)));
  for (let start = from; start <= to; ) {
    const segmentEnd = (n: number) => segmentStart(segmentOf(n) + 1) - 1;
    const end = chunk >= SEGMENT_BLOCKS ? Math.min(to, segmentEnd(start + chunk - 1)) : Math.min(to, segmentEnd(start), start + chunk - 1);
    tasks.push([start, end]);
    start = end + 1;
  }
  return tasks;
}
