/**
 * Reads a request body with a size limit: chunks are copied as they come (uWS reuses their memory
 * after each callback), except a body that arrives whole in one chunk, which is handed over in place.
 * A body over the limit is read on and dropped until it ends, so the client sees the refusal.
 */
import type { HttpResponse } from './uws.js';

/** Capacity to start with when the length is not announced (chunked transfer encoding). */
const INITIAL_CAPACITY = 16 * 1024;

/**
 * Most bytes of a body over the limit read and dropped before it is refused. Clients such as fetch
 * send the whole body before they read the answer, and uWS answers `Expect: 100-continue` itself, so
 * a refusal sent while the body still arrives closes a socket with unread data: the kernel resets
 * the connection and the client sees a write error, not the 413. A body announced or grown past
 * this is refused at once and the connection closed unread (a reset is then the client's due).
 */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;

/** Where a body reading ends. */
export interface BodySink {
  /**
   * Receives the whole body. The bytes are only valid until this call returns when the body came in
   * one chunk (a view of uWS's receive buffer, detached afterwards); copy them to keep them.
   */
  body(bytes: Uint8Array): void;
  /**
   * Called once a body over the limit has ended (or passed DISCARD_MAX_BYTES) with the bytes read and dropped; no more
   * data is delivered after it.
   */
  tooLarge(received: number): void;
}

/** A growing byte buffer bounded by the body limit. */
class Accumulator {
  private buf: Buffer;
  private length = 0;

  /** Starts with room for `capacity` bytes. */
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Copies `chunk` to the end, growing up to `limit` bytes. */
  append(chunk: Uint8Array, limit: number): void {
    const needed = this.length + chunk.byteLength;
    if (needed > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, Math.min(limit, this.buf.length * 2)));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    this.buf.set(chunk, this.length);
    this.length = needed;
  }

  /** The bytes collected. */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/**
 * Reads the body of `res` into `sink`: `announced` is the Content-Length (or -1 when absent; at most
 * DISCARD_MAX_BYTES). A body over `limit`, announced or grown, is dropped as it comes until it ends.
 */
export function readBody(res: HttpResponse, announced: number, limit: number, sink: BodySink): void {
  let received = 0;
  let over = announced > limit;
  let refused = false;
  let acc: Accumulator | null = null;
  res.onData((chunk: ArrayBuffer, isLast: boolean) => {
    if (refused) return;
    received += chunk.byteLength;
    if (over || received > limit) {
      over = true;
      acc = null;
      if (isLast || received > DISCARD_MAX_BYTES) {
        refused = true;
        sink.tooLarge(received);
      }
      return;
    }
    const view = new Uint8Array(chunk);
    if (isLast && acc === null) {
      sink.body(view);
      return;
    }
    acc ??= new Accumulator(announced > 0 ? announced : Math.min(limit, INITIAL_CAPACITY));
    acc.append(view, limit);
    if (isLast) sink.body(acc.bytes());
  });
}
