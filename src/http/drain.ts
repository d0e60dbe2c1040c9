/**
 * Graceful shutdown of the HTTP front: requests in flight are counted from the moment their body is
 * awaited until their answer is fully written (or the client goes away); a drain refuses new
 * requests and waits for the count to reach zero, at most a bound, before the connections close.
 */
import { ShuttingDownError } from '../rpc/errors.js';
import { errorBody, type Reply } from './replies.js';

/** 503: a request on a kept-alive connection while the server drains; sent with `Connection: close`. */
export const SHUTTING_DOWN: Reply = {
  status: '503 Service Unavailable',
  body: errorBody(new ShuttingDownError()),
  headers: [],
};

/** The requests in flight on a front, and the drain that waits for them. */
export class InFlight {
  private count = 0;
  private draining = false;
  private idle: (() => void) | undefined;

  /** Requests in flight now. */
  get size(): number {
    return this.count;
  }

  /** True once a drain has begun: new requests are refused and answers close their connection. */
  get closing(): boolean {
    return this.draining;
  }

  /** Counts a request in; returns the function that counts it out (once, however often it is called). */
  enter(): () => void {
    this.count++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.count--;
      if (this.count === 0) this.idle?.();
    };
  }

  /** Begins refusing new requests (the start of a drain); requests in flight go on. */
  refuse(): void {
    this.draining = true;
  }

  /**
   * Begins the drain and resolves once no request is in flight, or after `graceMs` with the number
   * still in flight then (the requests the caller is about to cut off).
   */
  drain(graceMs: number): Promise<number> {
    this.refuse();
    if (this.count === 0 || graceMs <= 0) return Promise.resolve(this.count);
    return new Promise<number>((resolve) => {
      const timer = setTimeout(() => {
        this.idle = undefined;
        resolve(this.count);
      }, graceMs);
      this.idle = () => {
        clearTimeout(timer);
        this.idle = undefined;
        resolve(0);
      };
    });
  }
}
