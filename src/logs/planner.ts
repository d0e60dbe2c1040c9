/**
 * Splits a block range into scan tasks: about two per thread so every thread has work, each task a
 * run of whole segments when the range is long (a task reads each segment's index once), or a
 * piece of one segment when it is short.
 */
import { SEGMENT_BLOCKS, segmentOf, segmentStart } from '../store/segments.js';

/** Smallest task in blocks: below this, a task's dispatch cost (tens of µs) outweighs its scan. */
export const MIN_TASK_BLOCKS = 1024;

/** Tasks per thread: two keep every thread busy while the main thread merges. */
export const TASKS_PER_THREAD = 2;

/** The tasks [from, to] (inclusive) covering the range in order; empty when from > to. */
export function planTasks(from: number, to: number, threads: number): [number, number][] {
  const tasks: [number, number][] = [];
  if (from > to) return tasks;
  const chunk = Math.max(MIN_TASK_BLOCKS, Math.ceil((to - from + 1) / (threads * TASKS_PER_THREAD)));
  for (let start = from; start <= to; ) {
    const segmentEnd = (n: number) => segmentStart(segmentOf(n) + 1) - 1;
    const end = chunk >= SEGMENT_BLOCKS ? Math.min(to, segmentEnd(start + chunk - 1)) : Math.min(to, segmentEnd(start), start + chunk - 1);
    tasks.push([start, end]);
    start = end + 1;
  }
  return tasks;
}
