/**
 * Splits a block range into scan tasks: never across a segment boundary (a task reads each bloom
 * row of a segment once), and small enough that every thread gets work on short ranges.
 */
import { segmentOf, segmentStart } from '../store/segments.js';

/** Smallest task in blocks: below this, a task's dispatch cost (tens of µs) outweighs its scan. */
export const MIN_TASK_BLOCKS = 1024;

/** The tasks [from, to] (inclusive) covering the range in order; empty when from > to. */
export function planTasks(from: number, to: number, threads: number): [number, number][] {
  const tasks: [number, number][] = [];
  if (from > to) return tasks;
  const chunk = Math.max(MIN_TASK_BLOCKS, Math.ceil((to - from + 1) / (threads * 2)));
  for (let start = from; start <= to; ) {
    const segmentEnd = segmentStart(segmentOf(start) + 1) - 1;
    const end = Math.min(to, segmentEnd, start + chunk - 1);
    tasks.push([start, end]);
    start = end + 1;
  }
  return tasks;
}
