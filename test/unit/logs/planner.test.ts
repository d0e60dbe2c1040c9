import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DENSE_MIN_TASK_BLOCKS, MIN_TASK_BLOCKS, minTaskBlocks, planTasks } from '../../../src/logs/planner.js';
import { SEGMENT_BLOCKS, segmentOf } from '../../../src/store/segments.js';

function check(from: number, to: number, threads: number): [number, number][] {
  const tasks = planTasks(from, to, threads);
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
});

test('short ranges split into pieces that never cross a segment boundary', () => {
  for (const [from, to] of [
    [0, 99],
    [SEGMENT_BLOCKS - 50, SEGMENT_BLOCKS + 50],
    [100, 100 + 3 * SEGMENT_BLOCKS],
    [7, 9000],
  ] as const) {
    for (const threads of [1, 2, 4]) {
      for (const [a, b] of check(from, to, threads)) {
        const chunk = Math.max(MIN_TASK_BLOCKS, Math.ceil((to - from + 1) / (threads * 2)));
        if (chunk < SEGMENT_BLOCKS) assert.equal(segmentOf(a), segmentOf(b), `[${a}, ${b}] stays in one segment`);
      }
    }
  }
});

test('long ranges use runs of whole segments, about two tasks per thread', () => {
  const to = 40 * SEGMENT_BLOCKS - 1;
  const tasks = check(0, to, 2);
  assert.ok(tasks.length >= 4 && tasks.length <= 5, `${tasks.length} tasks`);
  for (const [, b] of tasks) assert.ok(b === to || (b + 1) % SEGMENT_BLOCKS === 0, 'tasks end at segment ends');
});

test('a filter without addresses shares even a short dense range across the threads', () => {
  assert.equal(minTaskBlocks([]), DENSE_MIN_TASK_BLOCKS);
  assert.equal(minTaskBlocks([new Uint8Array(20)]), MIN_TASK_BLOCKS);
  assert.deepEqual(planTasks(100, 119, 2, minTaskBlocks([])), [
    [100, 104],
    [105, 109],
    [110, 114],
    [115, 119],
  ]);
  assert.deepEqual(planTasks(100, 119, 2, minTaskBlocks([new Uint8Array(20)])), [[100, 119]]);
  assert.deepEqual(planTasks(100, 102, 2, DENSE_MIN_TASK_BLOCKS), [[100, 102]], 'never below the minimum unless the range is');
  const across = planTasks(SEGMENT_BLOCKS - 6, SEGMENT_BLOCKS + 9, 2, DENSE_MIN_TASK_BLOCKS);
  for (const [a, b] of across) assert.equal(segmentOf(a), segmentOf(b), `[${a}, ${b}] stays in one segment`);
});
