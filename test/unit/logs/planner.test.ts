/**
 * The scan planner: tasks cover the range exactly and in order, in equal sizes, one per thread for
 * selective filters (addresses) and two for dense ones, never below the shape's minimum unless the
 * range is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DENSE_TASKS,
  defaultInlineBudgetUs,
  INLINE_BUDGET_US,
  ONE_CORE_INLINE_BUDGET_US,
  planTasks,
  SELECTIVE_TASKS,
  type TaskShape,
  taskShape,
} from '#src/logs/planner.js';
import { SEGMENT_BLOCKS } from '#src/store/segments.js';

function check(from: number, to: number, threads: number, shape: TaskShape): [number, number][] {
  const tasks = planTasks(from, to, threads, shape);
  let next = from;
  for (const [a, b] of tasks) {
    assert.equal(a, next, 'tasks are contiguous and in order');
    assert.ok(b >= a);
    next = b + 1;
  }
  assert.equal(next, to + 1, 'tasks cover the range exactly');
  return tasks;
}

test('an empty range plans nothing', () => {
  assert.deepEqual(planTasks(5, 4, 2), []);
  assert.deepEqual(planTasks(5, 4, 2, DENSE_TASKS), []);
});

test('ranges split into equal tasks, per thread as the shape says, none below its minimum', () => {
  for (const shape of [SELECTIVE_TASKS, DENSE_TASKS]) {
    for (const [from, to] of [
      [0, 0],
      [0, 99],
      [SEGMENT_BLOCKS - 50, SEGMENT_BLOCKS + 50],
      [100, 100 + 3 * SEGMENT_BLOCKS],
      [7, 9000],
      [0, 5 * SEGMENT_BLOCKS - 1],
    ] as const) {
      for (const threads of [1, 2, 4]) {
        const tasks = check(from, to, threads, shape);
        const total = to - from + 1;
        assert.equal(
          tasks.length,
          Math.max(1, Math.min(threads * shape.perThread, Math.floor(total / shape.minBlocks))),
          `[${from}, ${to}] on ${threads}`,
        );
        const sizes = tasks.map(([a, b]) => b - a + 1);
        assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `equal sizes: ${sizes.join(', ')}`);
        if (tasks.length > 1) assert.ok(Math.min(...sizes) >= shape.minBlocks);
      }
    }
  }
});

test('five segments on two threads: both threads get the same share, whatever the shape', () => {
  assert.deepEqual(check(0, 5 * SEGMENT_BLOCKS - 1, 2, SELECTIVE_TASKS), [
    [0, 10239],
    [10240, 20479],
  ]);
  assert.deepEqual(check(0, 5 * SEGMENT_BLOCKS - 1, 2, DENSE_TASKS), [
    [0, 5119],
    [5120, 10239],
    [10240, 15359],
    [15360, 20479],
  ]);
});

test('a filter without addresses shares even a short dense range across the threads', () => {
  assert.equal(taskShape([]), DENSE_TASKS);
  assert.equal(taskShape([new Uint8Array(20)]), SELECTIVE_TASKS);
  assert.deepEqual(planTasks(100, 119, 2, taskShape([])), [
    [100, 104],
    [105, 109],
    [110, 114],
    [115, 119],
  ]);
  assert.deepEqual(planTasks(100, 119, 2, taskShape([new Uint8Array(20)])), [[100, 119]]);
  assert.deepEqual(planTasks(100, 102, 2, DENSE_TASKS), [[100, 102]], 'never below the minimum unless the range is');
});

test('the default inline budget: a millisecond where the pool has other cores, ten on one core', () => {
  const cases: [number, number][] = [
    [1, ONE_CORE_INLINE_BUDGET_US],
    [2, INLINE_BUDGET_US],
    [16, INLINE_BUDGET_US],
  ];
  for (const [cores, budget] of cases) assert.equal(defaultInlineBudgetUs(cores), budget, `${cores} cores`);
});
