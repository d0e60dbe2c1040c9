/**
 * The messages between the writer's thread and its generating threads (blockThreads.ts,
 * blockWorker.ts). Every request carries an id its reply repeats.
 */
import type { TallyCounts } from './logTally.js';

/**
 * A request to a generating thread: build blocks from..to (counting the logs of those from tallyFrom on), build the
 * pending block `from` (its planner moves there), or hand over its log counts.
 */
export type ToBlockThread =
  | { id: number; kind: 'blocks'; from: number; to: number; tallyFrom: number }
  | { id: number; kind: 'pending'; from: number }
  | { id: number; kind: 'tally' };

/**
 * A generating thread's reply: the packed blocks (recordBatch.ts) with their transaction count, the packed pending
 * block, or its log counts.
 */
export type FromBlockThread =
  | { id: number; kind: 'blocks'; bytes: Uint8Array; txs: number }
  | { id: number; kind: 'pending'; bytes: Uint8Array }
  | { id: number; kind: 'tally'; counts: TallyCounts };
