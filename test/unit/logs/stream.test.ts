/**
 * The streamed query's memory: a task's result is released once its chunk has been delivered, so an
 * uncapped stream over a long range holds only the window of results ahead of the consumer (a
 * regression: every delivered result used to stay referenced until the stream ended).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { streamQuery, type TaskOutcome } from '#src/logs/stream.js';
import type { ScanTask } from '#src/logs/task.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('delivered results are not retained while the stream goes on', async () => {
  const results: WeakRef<object>[] = [];
  const runner = {
    dataDir: 'unused',
    threads: 2,
    run(task: ScanTask): Promise<TaskOutcome> {
      const outcome: TaskOutcome = {
        ok: true,
        bytes: new Uint8Array(1 << 20),
        marks: new Float64Array(0),
        count: 0,
        blockCounts: new Float64Array(0),
        stop: 'done',
        blocks: task.to - task.from + 1,
        candidates: 0,
      };
      results.push(new WeakRef(outcome));
      return Promise.resolve(outcome);
    },
  };
  const spec = { fromBlock: { number: 0 }, toBlock: { number: 40_000 }, addresses: [], topics: [] };
  let chunks = 0;
  for await (const chunk of streamQuery(runner, spec, { from: 0, to: 40_000 }, {})) {
    assert.ok(chunk.bytes.length > 0);
    chunks++;
    if (chunks === 3) {
      await nextTurn();
      gc();
      assert.equal(results[0]!.deref(), undefined, 'the first delivered result was collected');
      assert.equal(results[1]!.deref(), undefined, 'the second delivered result was collected');
    }
  }
  assert.ok(chunks >= 4, `${chunks} chunks`);
});
