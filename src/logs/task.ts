/**
 * The message types that cross the worker boundary. No error object crosses it: a task returns a
 * result object, and the main thread rebuilds the JSON-RPC error from it.
 */

/**
 * How a task renders its matches: JSON text (eth_getLogs), one JSON object per line (streamed JSON), or protobuf Log
 * messages (the gRPC front, logProto.ts).
 */
export type LogFormat = 'json' | 'jsonl' | 'proto';

/** One scan task: a run of blocks inside whole segments, with the query's filter and limits. */
export interface ScanTask {
  dataDir: string;
  format: LogFormat;
  from: number;
  to: number;
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
  /** Epoch milliseconds after which the task stops. */
  deadline: number;
  /** The task stops once it holds more results than this. */
  budget: number;
  /** Shared flag: non-zero once the query has been answered (cancelled). */
  cancel: Int32Array;
  /**
   * Memory to render a JSON answer into (transferred with the task, and back with its bytes); absent: the worker's own.
   */
  out?: ArrayBuffer;
}

/** Why a task stopped. */
export type ScanStop = 'done' | 'budget' | 'deadline' | 'cancelled';

/** A task's answer. */
export type ScanResult =
  | {
      ok: true;
      /** The matching logs in order: comma-separated JSON objects (UTF-8), JSON lines, or protobuf Log messages. */
      bytes: Uint8Array;
      /** Formats proto and jsonl only (else empty): per log, its end offset in `bytes`, block number and log index. */
      marks: Float64Array;
      count: number;
      /** Pairs (block number, matches in it) for every block with matches, in order. */
      blockCounts: Float64Array;
      stop: ScanStop;
      /** Blocks of the range the task covered before it stopped (all of them when `stop` is 'done'). */
      blocks: number;
      /**
       * Candidate blocks (from the bloom rows or the address index) whose records were read: the
       * address table, then the logs. Those without a match (not in blockCounts) are false positives.
       */
      candidates: number;
    }
  | { ok: false; message: string };
