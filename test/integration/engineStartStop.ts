/**
 * A program for engineLifecycle.test.ts: starts and closes log engines over the store in argv[2],
 * each closed a different number of milliseconds after it started (across the threads' module
 * loading), and prints "closed N" at the end. A thread terminated while it loads would abort the
 * process before that line.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_LOG_LIMITS } from '../../src/config.js';
import { LogEngine } from '../../src/logs/engine.js';

const dataDir = process.argv[2]!;
const delays = [0, 0, 0, 1, 2, 5, 10, 20, 30, 40, 60, 80, 100, 130, 160, 200];
for (const delay of delays) {
  const engine = new LogEngine({ dataDir, limits: DEFAULT_LOG_LIMITS, threads: 2, onError: () => undefined });
  await sleep(delay);
  await engine.close();
}
console.log(`closed ${delays.length}`);
