/**
 * The store's head, read at most once per event-loop timer tick. lmdb-js keeps one read transaction
 * per thread and resets it with a zero-delay timer once a tick is over, so every read of one tick sees
 * one snapshot; its head is read once and remembered until that timer phase, so a caller that needs
 * the head on every request (the X-Ethlogd-Head header) adds no LMDB read per request.
 */
import type { StoreReader } from './reader.js';

/** The head of the current tick's snapshot, remembered for the tick. */
export class TickHead {
  private value: number | undefined;
  private fresh = false;
  private readonly expire = (): void => {
    this.fresh = false;
  };

  /** Reads the head through `reader`. */
  constructor(private readonly reader: StoreReader) {}

  /** The head block number of this tick's snapshot, or undefined while the store holds no block. */
  get(): number | undefined {
    if (this.fresh) return this.value;
    this.value = this.reader.head();
    this.fresh = true;
    setTimeout(this.expire, 0).unref();
    return this.value;
  }
}
