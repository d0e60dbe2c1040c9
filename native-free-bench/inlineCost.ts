/**
 * Measures the unit costs behind the eth_getLogs planner's inline estimate (INLINE_COST_US in
 * src/logs/planner.ts) on a generated store, in this thread as the inline path runs them, and the
 * cost of a pool round trip that the inline budget is set against:
 *
 * - a block tested by its own logsBloom (the open segment),
 * - a complete segment's candidate selection (address index and topic bloom rows),
 * - a candidate block rejected by its address table, and one whose logs record is scanned,
 * - a log rendered,
 * - a one-block query answered on the pool (one task: post, worker, transfer, merge) against the
 *   same query answered inline.
 *
 * node dist/native-free-bench/inlineCost.js [--data DIR]   (an existing store; by default its own at mainnet density,
 * generated in /tmp/ethlogd-inline-cost)
 */
import { parseArgs } from 'node:util';
import { DEFAULT_LOG_LIMITS } from '#src/config.js';
import { blockScanner } from '#src/logs/blockScan.js';
import { bloomCandidates, candidateQuery, segmentCandidates } from '#src/logs/candidates.js';
import { LogEngine } from '#src/logs/engine.js';
import { JsonSink } from '#src/logs/jsonSink.js';
import { INLINE_BUDGET_US, INLINE_COST_US } from '#src/logs/planner.js';
import { parseFilter } from '#src/rpc/filterParams.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { SEGMENT_BLOCKS } from '#src/store/segments.js';
import { ensureDataset } from './dataset.js';

/** Blocks of the generated store: one complete segment and part of the open one. */
const BLOCKS = SEGMENT_BLOCKS + 300;
/** The tool's own dataset, used unless --data names another. */
const DEFAULT_DATA = '/tmp/ethlogd-inline-cost';

/** Mean microseconds of `run()` over enough repetitions to last about `ms` milliseconds, after a warm-up. */
function micros(run: () => void, ms = 300): number {
  for (let i = 0; i < 200; i++) run();
  let reps = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (let i = 0; i < 50; i++) run();
    reps += 50;
  }
  return ((performance.now() - started) * 1000) / reps;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' } } });
  // A store named by --data is measured as it is; the default one is this tool's own (generated again when stale).
  const dir = values.data ?? DEFAULT_DATA;
  if (values.data === undefined) ensureDataset({ dir, blocks: BLOCKS, density: 1, seed: 'inline-cost' });
  const store = openStore(dir, { readOnly: true });
  const reader = new StoreReader(store);
  const head = reader.head()!;
  const openStart = Math.floor((head + 1) / SEGMENT_BLOCKS) * SEGMENT_BLOCKS;
  const sample = reader.logs(openStart + 10)[0]!;
  const topicOnly = candidateQuery(store, [], [[sample.topics[0]!]]);
  const withAddress = candidateQuery(store, [sample.address], [[sample.topics[0]!]]);
  const sink = new JsonSink(false, 1 << 20);

  const openBlocks = head - openStart + 1;
  const bloomBlock = micros(() => bloomCandidates(store, openStart, head, topicOnly.bits)) / openBlocks;
  const segment = micros(() => segmentCandidates(store, 0, withAddress));
  const absent = blockScanner(reader, [new Uint8Array(20).fill(0xee)], []);
  const rejected = micros(() => absent(openStart + 10, sink));
  const everything = blockScanner(reader, [], []);
  const logs = reader.logs(openStart + 10).length;
  const scanned = micros(() => {
    sink.reset();
    everything(openStart + 10, sink);
  });
  const oneAddress = blockScanner(reader, [sample.address], []);
  const matches = reader.logs(openStart + 10).filter((l) => Buffer.compare(l.address, sample.address) === 0).length;
  const bytes = reader.logsRecord(openStart + 10)!.length;
  const perMatch = micros(() => {
    sink.reset();
    oneAddress(openStart + 10, sink);
  });

  const engines = [-1, Number.POSITIVE_INFINITY].map(
    (inlineBudgetUs) =>
      new LogEngine({ dataDir: dir, limits: DEFAULT_LOG_LIMITS, threads: 1, inlineBudgetUs, onError: console.error }),
  );
  await engines[0]!.ready;
  const spec = parseFilter(
    {
      fromBlock: `0x${(openStart + 10).toString(16)}`,
      toBlock: `0x${(openStart + 10).toString(16)}`,
      address: `0x${Buffer.from(sample.address).toString('hex')}`,
    },
    5000,
  );
  const timeAsync = async (engine: LogEngine, reps: number) => {
    for (let i = 0; i < 100; i++) await engine.query(spec, reader);
    const cpu = process.cpuUsage();
    for (let i = 0; i < reps; i++) await engine.query(spec, reader);
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / reps;
  };
  const pooled = await timeAsync(engines[0]!, 3000);
  const inline = await timeAsync(engines[1]!, 3000);
  await Promise.all(engines.map((e) => e.close()));
  await closeStore(store);

  const rows: [string, number, number][] = [
    ['bloomBlocks: a block tested by its own logsBloom', bloomBlock, INLINE_COST_US.bloomBlocks],
    ['segments: a complete segment, address index + topic rows', segment, INLINE_COST_US.segments],
    ['candidates: a candidate rejected by its address table', rejected, INLINE_COST_US.candidates],
    [
      `recordBytes: a byte of a ${bytes}-byte record scanned for one address (${matches} of ${logs} logs match)`,
      (perMatch - rejected) / bytes,
      INLINE_COST_US.recordBytes,
    ],
    [`logs: a log rendered (the same block, every log)`, (scanned - perMatch) / (logs - matches), INLINE_COST_US.logs],
  ];
  console.log(`${'unit'.padEnd(100)}measured µs   planner µs`);
  for (const [name, measured, planned] of rows)
    console.log(`${name.padEnd(100)}${measured.toFixed(4).padStart(11)}${planned.toFixed(4).padStart(13)}`);
  console.log(
    'one-block eth_getLogs, all CPU of this process (main thread and the worker): ' +
      `pool ${pooled.toFixed(1)} µs, inline ${inline.toFixed(1)} µs; the pool adds ` +
      `${(pooled - inline).toFixed(1)} µs (inline budget ${INLINE_BUDGET_US} µs)`,
  );
}

await main();
