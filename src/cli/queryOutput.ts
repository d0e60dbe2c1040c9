/**
 * Output for `ethlogd query logs`: text is batched into large writes and the stream's backpressure
 * is honoured, so a huge result piped into a slow reader holds the scan back instead of filling memory.
 */
import type { Writable } from 'node:stream';

/**
 * Characters queued before they are written: one write (a syscall on a pipe) per ~64 KiB instead of
 * one per log, while the queue stays small. A shorter queue is written as soon as the producer
 * waits (for the next scan result), so sparse matches still appear as they are found.
 */
export const FLUSH_CHARS = 64 * 1024;

/** Writes text to a stream in batches, waiting for 'drain' when the stream is full. */
export class BatchedWriter {
  private queued = '';
  private idle: NodeJS.Immediate | undefined;
  private full: Promise<void> | undefined;
  private closed = false;

  /** Writes to `out`; aborting `signal` releases a producer waiting for the stream to drain. */
  constructor(
    private readonly out: Writable,
    private readonly signal: AbortSignal,
  ) {
    const close = () => {
      this.closed = true;
    };
    out.once('close', close);
    out.once('error', close);
  }

  /**
   * Queues `text`. Returns a promise to await before queuing more while the stream is full
   * (undefined when it is not). Text queued after the stream closed or failed is dropped.
   */
  write(text: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.queued += text;
    if (this.queued.length >= FLUSH_CHARS) this.flush();
    else this.idle ??= setImmediate(() => this.flush());
    return this.full;
  }

  /** Writes what is queued now. */
  flush(): void {
    if (this.idle) clearImmediate(this.idle);
    this.idle = undefined;
    if (this.queued === '' || this.closed) return;
    const text = this.queued;
    this.queued = '';
    if (!this.out.write(text) && !this.signal.aborted) this.full ??= this.drained();
  }

  /** Writes what is queued and resolves once the stream has taken it, or closed, or the signal aborted. */
  async end(): Promise<void> {
    this.flush();
    await this.full;
  }

  /** Resolves on the stream's next 'drain' (or its end, or the signal's abort). */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('close', done);
        this.out.off('error', done);
        this.signal.removeEventListener('abort', done);
        this.full = undefined;
        resolve();
      };
      this.out.on('drain', done);
      this.out.on('close', done);
      this.out.on('error', done);
      this.signal.addEventListener('abort', done);
    });
  }
}
