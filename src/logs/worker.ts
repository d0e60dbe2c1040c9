/**
 * The Piscina worker task: scans a run of blocks for a filter. Per segment it selects candidate
 * blocks from the bloom index, rejects false positives cheaply by the block's address table, then
 * matches exactly and renders the matches as JSON text or protobuf messages, transferred back
 * without a copy.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { WORKER_LOAD_WAIT_MS } from '../config.js';
import { LogProtoWriter } from '../render/logProto.js';
import { segmentOf } from '../store/segments.js';
import { workerStore } from '../store/workerStore.js';
import { blockScanner } from './blockScan.js';
import { candidateBlocks, candidateQuery } from './candidates.js';
import { JsonSink } from './jsonSink.js';
import type { ScanResult, ScanStop, ScanTask } from './task.js';

/** How many candidate blocks pass between deadline and cancellation checks. */
const CHECK_EVERY = 64;

/**
 * The JSON sinks of this thread, comma-separated and lines. Each task's answer is written into the
 * memory the task brought (a spare answer buffer of the main thread, transferred here and back:
 * answerBuffers.ts), or into fresh memory when it brought none, and goes back as a view of it.
 */
const sinks = { json: new JsonSink(false), jsonl: new JsonSink(true) };

/** Bytes of fresh memory for a task that brought none (it grows as the answer needs). */
const FRESH_ANSWER_BYTES = 64 * 1024;

function scan(task: ScanTask): ScanResult {
  const { store, reader } = workerStore(task.dataDir);
  const selection = candidateQuery(store, task.addresses, task.topics);
  const scanBlock = blockScanner(reader, task.addresses, task.topics);
  const json = task.format === 'proto' ? undefined : sinks[task.format];
  json?.adopt(task.out ?? new ArrayBuffer(FRESH_ANSWER_BYTES));
  const proto = json ? undefined : new LogProtoWriter();
  const out = json ?? proto!;
  let count = 0;
  const blockCounts: number[] = [];
  let stop: ScanStop = 'done';
  let candidates = 0;
  /** The last block of the range whose candidacy was settled. */
  let reached = task.to;
  outer: for (let segment = segmentOf(task.from); segment <= segmentOf(task.to); segment++) {
    const blocks = candidateBlocks(store, segment, task.from, task.to, selection);
    for (const n of blocks) {
      if (candidates % CHECK_EVERY === 0) {
        if (Atomics.load(task.cancel, 0) !== 0) {
          stop = 'cancelled';
          reached = n - 1;
          break outer;
        }
        if (Date.now() > task.deadline) {
          stop = 'deadline';
          reached = n - 1;
          break outer;
        }
      }
      candidates++;
      const matched = scanBlock(n, out);
      if (matched === 0) continue;
      count += matched;
      blockCounts.push(n, matched);
      if (count > task.budget) {
        stop = 'budget';
        reached = n;
        break outer;
      }
    }
  }
  const { bytes, marks } = json ? { bytes: json.view(), marks: json.takeMarks() } : proto!.take();
  return {
    ok: true,
    bytes,
    marks,
    count,
    blockCounts: new Float64Array(blockCounts),
    stop,
    blocks: reached - task.from + 1,
    candidates,
  };
}

/**
 * Runs a scan task; the output, marks and counts buffers are transferred, not copied. An
 * unexpected failure comes back as `{ ok: false }`, never as a thrown error.
 */
export default function runScanTask(task: ScanTask): ScanResult | object {
  try {
    const result = scan(task);
    if (!result.ok) return result;
    return move({
      [transferableSymbol]: [result.bytes.buffer, result.marks.buffer, result.blockCounts.buffer],
      [valueSymbol]: result,
    });
  } catch (error) {
    return { ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

/**
 * The engine's start-up task (LogEngine.ready), run once per thread: it says this thread has loaded
 * its modules, then waits (bounded) until every thread's has started, so no two run on one thread.
 * `barrier` holds the threads arrived and the threads expected.
 */
export function ready(barrier: Int32Array): void {
  Atomics.add(barrier, 0, 1);
  Atomics.notify(barrier, 0);
  const deadline = Date.now() + WORKER_LOAD_WAIT_MS;
  for (let n = Atomics.load(barrier, 0); n < barrier[1]!; n = Atomics.load(barrier, 0)) {
    const left = deadline - Date.now();
    if (left <= 0 || Atomics.wait(barrier, 0, n, left) === 'timed-out') return;
  }
}
