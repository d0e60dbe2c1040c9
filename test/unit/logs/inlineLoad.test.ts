/**
 * A thread's recent inline scan time and the budget it gives (logs/inlineLoad.ts), on a clock the
 * test sets: whole while the thread is idle or has one core, BUSY_BUDGET_US once scans take more
 * than BUSY_SHARE of the window, whole again once that has decayed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUSY_BUDGET_US, BUSY_SHARE, InlineLoad, LOAD_WINDOW_MS } from '#src/logs/inlineLoad.js';

const BASE = 1000;

/** A load on `cores` cores that spent `busyMs` of the last `spanMs` in scans, in one scan ending at `spanMs`. */
function loaded(cores: number, busyMs: number, spanMs: number): InlineLoad {
  const load = new InlineLoad(cores);
  load.add(spanMs - busyMs, spanMs);
  return load;
}

test('the budget by the recent share of scans, the cores and the base', () => {
  const cases: [string, InlineLoad, number, number, number][] = [
    ['idle', new InlineLoad(2), 0, BASE, BASE],
    ['busy past the share', loaded(2, LOAD_WINDOW_MS, LOAD_WINDOW_MS), LOAD_WINDOW_MS, BASE, BUSY_BUDGET_US],
    ['below the share', loaded(2, (BUSY_SHARE * LOAD_WINDOW_MS) / 2, LOAD_WINDOW_MS), LOAD_WINDOW_MS, BASE, BASE],
    ['busy, decayed over ten windows', loaded(2, LOAD_WINDOW_MS, LOAD_WINDOW_MS), 11 * LOAD_WINDOW_MS, BASE, BASE],
    ['busy on one core: nowhere else to go', loaded(1, LOAD_WINDOW_MS, LOAD_WINDOW_MS), LOAD_WINDOW_MS, BASE, BASE],
    ['busy, a base already under the busy budget', loaded(2, LOAD_WINDOW_MS, LOAD_WINDOW_MS), LOAD_WINDOW_MS, 50, 50],
    [
      'busy, every query inline (unbounded base)',
      loaded(2, LOAD_WINDOW_MS, LOAD_WINDOW_MS),
      LOAD_WINDOW_MS,
      Number.POSITIVE_INFINITY,
      Number.POSITIVE_INFINITY,
    ],
    ['busy, inline off (negative base)', loaded(2, LOAD_WINDOW_MS, LOAD_WINDOW_MS), LOAD_WINDOW_MS, -1, -1],
  ];
  for (const [name, load, now, base, expected] of cases) assert.equal(load.budget(base, now), expected, name);
});

test('scans add up, each decayed by its age', () => {
  const load = new InlineLoad(2);
  let expected = 0;
  for (let t = 1; t <= 10; t++) {
    load.add(t - 0.5, t);
    expected += (0.5 * Math.exp(-(10 - t) / LOAD_WINDOW_MS)) / LOAD_WINDOW_MS;
  }
  assert.ok(Math.abs(load.share(10) - expected) < 1e-9, `${load.share(10)} against ${expected}`);
  assert.ok(Math.abs(load.share(10 + LOAD_WINDOW_MS) - expected / Math.E) < 1e-9);
});
