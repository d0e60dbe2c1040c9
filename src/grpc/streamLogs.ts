/**
 * The StreamLogs call: the engine's streamed query cut into LogBatch messages (encoded here, sent
 * as they are), written at the pace the client reads. When grpc-js's buffer is full (write()
 * returns false) the call stops pulling from the engine until 'drain', so the scan waits for the
 * client; a cancelled call, a passed deadline or a client that reads nothing for the stall timeout
 * ends the wait and the scan.
 */
import type { EventEmitter } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { varintSize, writeVarint } from '../chain/varint.js';
import type { LogLimits } from '../config.js';
import type { Admission, Release } from '../limits/admission.js';
import type { LogEngine } from '../logs/engine.js';
import { DeadlineExceededError } from '../logs/errors.js';
import type { LogCursor, StreamChunk } from '../logs/stream.js';
import { MARK_STRIDE } from '../render/logProto.js';
import { parseFilter } from '../rpc/filterParams.js';
import type { StoreReader } from '../store/reader.js';
import { keyOf } from './auth.js';
import { type CursorMessage, cursorOf, filterObject, type LogFilterMessage } from './convert.js';
import { toGrpcFailure } from './errors.js';

/** ethlogd.v1.StreamLogsRequest as decoded. */
export interface StreamLogsMessage {
  filter?: LogFilterMessage;
  resumeFrom?: CursorMessage;
}

/** How far a stream has got. */
export interface StreamProgress {
  /** Logs written to the call. */
  logs: number;
  /** LogBatch messages written. */
  batches: number;
  /** Engine chunks consumed. */
  chunks: number;
  /** Scan tasks the engine has dispatched for this stream. */
  dispatched: number;
}

/** What StreamLogs calls report (for metrics and tests), on the gRPC server's `events`. */
export interface StreamEvents {
  /** The client is not keeping up: the call waits for it to read before scanning on. */
  'stream-waiting': [StreamProgress];
  /** The client has read enough: the call writes and scans on. */
  'stream-drained': [StreamProgress];
  /** A call ended: all sent, cancelled by the client, or failed. */
  'stream-finished': [StreamProgress & { outcome: 'done' | 'cancelled' | 'failed' }];
}

/** What serving StreamLogs needs. */
export interface StreamLogsContext {
  engine: LogEngine;
  reader: StoreReader;
  limits: LogLimits;
  /** The server's stream deadline in milliseconds; 0: none (the call's own deadline still applies). */
  timeoutMs: number;
  /** Longest the stream waits for its client to read, in milliseconds; 0: as long as the deadline allows. */
  stallMs: number;
  /** Largest LogBatch in bytes (a single larger log is sent alone). */
  batchBytes: number;
  /** Logs per scan task; the engine's default when unset. */
  taskLogs?: number;
  events: EventEmitter<StreamEvents>;
  onError: (message: string, error: unknown) => void;
  /** Holds a stream's slot per key and per process while it is open (limits/admission.ts); none: unlimited. */
  admission?: Admission;
}

/** Field 2 (`next`) of LogBatch, a Cursor: block_number = 1, log_index = 2. */
function encodeBatch(logs: Uint8Array, next: LogCursor): Buffer {
  const cursorSize = 2 + varintSize(next.block) + varintSize(next.logIndex);
  const out = Buffer.allocUnsafe(logs.length + 2 + cursorSize);
  out.set(logs, 0);
  let p = logs.length;
  out[p++] = 0x12;
  out[p++] = cursorSize;
  out[p++] = 0x08;
  p = writeVarint(out, p, next.block);
  out[p++] = 0x10;
  writeVarint(out, p, next.logIndex);
  return out;
}

/**
 * Cuts a chunk into LogBatch messages of at most `maxBytes` of logs (at least one log each); each
 * batch's cursor points just after its last log, the last one's at the chunk's own `next`. A chunk
 * without logs is one batch that only moves the cursor.
 */
function* batchesOf(chunk: StreamChunk, maxBytes: number): Generator<{ message: Buffer; logs: number }> {
  const { bytes, marks } = chunk;
  const count = marks.length / MARK_STRIDE;
  if (count === 0) {
    yield { message: encodeBatch(bytes, chunk.next), logs: 0 };
    return;
  }
  let start = 0;
  for (let i = 0; i < count; ) {
    let j = i;
    while (j + 1 < count && marks[(j + 1) * MARK_STRIDE]! - start <= maxBytes) j++;
    const end = marks[j * MARK_STRIDE]!;
    const next =
      j === count - 1 ? chunk.next : { block: marks[j * MARK_STRIDE + 1]!, logIndex: marks[j * MARK_STRIDE + 2]! + 1 };
    yield { message: encodeBatch(bytes.subarray(start, end), next), logs: j - i + 1 };
    start = end;
    i = j + 1;
  }
}

/** The epoch milliseconds of the call's gRPC deadline (Infinity when it has none). */
function callDeadline(call: ServerWritableStream<StreamLogsMessage, Buffer>): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/**
 * Waits until the call drains, is cancelled (false), or the deadline or `stallMs` passes (throws the timeout error).
 */
function drained(
  call: ServerWritableStream<StreamLogsMessage, Buffer>,
  signal: AbortSignal,
  deadline: number,
  stallMs: number,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  const until = stallMs > 0 ? Math.min(deadline, Date.now() + stallMs) : deadline;
  return new Promise((resolve, reject) => {
    const timer = Number.isFinite(until)
      ? setTimeout(() => done(() => reject(new DeadlineExceededError())), Math.max(0, until - Date.now()))
      : undefined;
    const onDrain = () => done(() => resolve(true));
    const onAbort = () => done(() => resolve(false));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      call.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    call.on('drain', onDrain);
    signal.addEventListener('abort', onAbort);
  });
}

/** Serves one authenticated StreamLogs call to its end. */
export async function serveStreamLogs(
  call: ServerWritableStream<StreamLogsMessage, Buffer>,
  ctx: StreamLogsContext,
): Promise<void> {
  const abort = new AbortController();
  const onCancel = () => abort.abort();
  call.on('cancelled', onCancel);
  const progress: StreamProgress = { logs: 0, batches: 0, chunks: 0, dispatched: 0 };
  let release: Release | undefined;
  const finish = (outcome: 'done' | 'cancelled' | 'failed'): void => {
    ctx.events.emit('stream-finished', { ...progress, outcome });
  };
  try {
    const spec = parseFilter(filterObject(call.request.filter), ctx.limits.maxParams);
    release = ctx.admission?.stream(keyOf(call.metadata));
    const deadline = Math.min(
      ctx.timeoutMs > 0 ? Date.now() + ctx.timeoutMs : Number.POSITIVE_INFINITY,
      callDeadline(call),
    );
    const chunks = ctx.engine.stream(spec, ctx.reader, {
      from: cursorOf(call.request.resumeFrom),
      deadline,
      signal: abort.signal,
      taskLogs: ctx.taskLogs,
    });
    for await (const chunk of chunks) {
      progress.chunks++;
      progress.dispatched = chunk.dispatched;
      for (const batch of batchesOf(chunk, ctx.batchBytes)) {
        if (abort.signal.aborted) break;
        progress.logs += batch.logs;
        progress.batches++;
        if (call.write(batch.message)) continue;
        ctx.events.emit('stream-waiting', { ...progress });
        if (!(await drained(call, abort.signal, deadline, ctx.stallMs))) break;
        ctx.events.emit('stream-drained', { ...progress });
      }
      if (abort.signal.aborted) break;
    }
    if (abort.signal.aborted) return finish('cancelled');
    call.end();
    finish('done');
  } catch (error) {
    if (abort.signal.aborted) return finish('cancelled');
    call.emit('error', toGrpcFailure(error, ctx.onError));
    finish('failed');
  } finally {
    release?.();
    call.off('cancelled', onCancel);
  }
}
