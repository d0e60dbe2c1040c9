/**
 * A program for engineLifecycle.test.ts: starts and closes log engines over the store in argv[2],
 * each closed a different number of milliseconds after it started (across the threads' module
 * loading), and prints "closed N" at the end. With argv[3] = "scanning", each engine is closed
 * that long after its threads loaded and a streamed query started (across the threads opening the
 * store and scanning). A thread terminated inside lmdb's native code would abort the process before
 * that line.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_LOG_LIMITS } from '#src/config.js';
import { LogEngine } from '#src/logs/engine.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';

const dataDir = process.argv[2]!;
const scanning = process.argv[3] === 'scanning';
const store = openStore(dataDir, { readOnly: true });
const reader = new StoreReader(store);
// Start-up spans the threads' loading (up to ~200 ms); a query's first tasks open the store within a few ms.
const delays = scanning
  ? [0, 0, 0, 1, 2, 3, 5, 10, 20, 40]
  : [0, 0, 0, 1, 2, 5, 10, 20, 30, 40, 60, 80, 100, 130, 160, 200];
for (const delay of delays) {
  const engine = new LogEngine({ dataDir, limits: DEFAULT_LOG_LIMITS, threads: 2, onError: () => undefined });
  if (scanning) {
    await engine.ready;
    const stream = engine.stream(
      { fromBlock: { tag: 'earliest' }, toBlock: { tag: 'latest' }, addresses: [], topics: [] },
      reader,
    );
    void (async () => {
      for await (const chunk of stream) void chunk;
    })().catch(() => undefined);
  }
  await sleep(delay);
  await engine.close();
}
await closeStore(store);
console.log(`closed ${delays.length}`);
