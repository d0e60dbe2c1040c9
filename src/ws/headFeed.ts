/**
 * The chain's head as subscribers see it: polls the store's head (an ingest `--follow` in this
 * process or another one writes it) and tells listeners, per change, which blocks a
 * reorganisation dropped (newest first, read back from the store's orphans) and which blocks are
 * new (in order). The feed remembers the hashes of the last REORG_WINDOW blocks it reported, so a
 * reorganisation is found by walking down until the stored hash equals the remembered one.
 */
import type { BlockBundle } from '../chain/types.js';
import type { StoreReader } from '../store/reader.js';
import { storedBlockHash } from '../store/recordViews.js';

/** How often the store's head is read while anyone listens: a tenth of a second is far below any block time. */
export const HEAD_POLL_MS = 100;

/** Blocks whose hashes the feed remembers: deeper than any reorganisation an Ethereum chain has had since the merge. */
export const REORG_WINDOW = 256;

/**
 * One move of the head: the blocks dropped (newest first, as stored orphans) and the numbers of the new ones
 * (ascending).
 */
export interface HeadChange {
  removed: BlockBundle[];
  added: number[];
}

/** Hears the head's moves. */
export type HeadListener = (change: HeadChange) => void;

/** Polls a store's head while it has listeners and reports each move to them. */
export class HeadFeed {
  private readonly listeners = new Set<HeadListener>();
  private readonly hashes = new Map<number, string>();
  private last: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** Watches `reader`'s store every `pollMs`; a failed poll goes to `onError` and the next one tries again. */
  constructor(
    private readonly reader: StoreReader,
    private readonly pollMs = HEAD_POLL_MS,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Adds a listener (the feed starts polling with its first); returns the function that removes it. */
  listen(listener: HeadListener): () => void {
    if (this.listeners.size === 0) this.start();
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** Stops polling and forgets every listener. */
  close(): void {
    this.listeners.clear();
    this.stop();
  }

  /**
   * Reads the head now and reports a move to the listeners; returns the change, or undefined when the head did not
   * move.
   */
  poll(): HeadChange | undefined {
    const change = this.changeSince();
    if (change === undefined) return undefined;
    for (const listener of this.listeners) listener(change);
    return change;
  }

  private start(): void {
    this.last = undefined;
    this.hashes.clear();
    this.timer = setInterval(() => {
      try {
        this.poll();
      } catch (error) {
        this.onError(error);
      }
    }, this.pollMs);
    try {
      this.changeSince();
    } catch (error) {
      this.onError(error);
    }
    this.timer.unref();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The stored hash of canonical block `n` as hex, or undefined when it is not stored. */
  private storedHash(n: number): string | undefined {
    const header = this.reader.headerRecord(n);
    return header === undefined ? undefined : Buffer.from(storedBlockHash(header)).toString('hex');
  }

  /**
   * Compares the store's head with what was reported last and remembers the new head; the first call only remembers.
   */
  private changeSince(): HeadChange | undefined {
    const head = this.reader.head();
    if (head === undefined) return undefined;
    const last = this.last;
    if (last === undefined) {
      this.remember(head, head);
      return undefined;
    }
    let ancestor = Math.min(last, head);
    while (ancestor >= 0 && this.hashes.has(ancestor) && this.storedHash(ancestor) !== this.hashes.get(ancestor))
      ancestor--;
    if (ancestor === last && head === last) return undefined;
    const removed: BlockBundle[] = [];
    for (let n = last; n > ancestor; n--) {
      const hash = this.hashes.get(n);
      const orphan = hash === undefined ? undefined : this.reader.orphan(Buffer.from(hash, 'hex'));
      if (orphan !== undefined) removed.push(orphan);
      this.hashes.delete(n);
    }
    const added: number[] = [];
    for (let n = ancestor + 1; n <= head; n++) added.push(n);
    this.remember(ancestor + 1, head);
    return { removed, added };
  }

  /** Remembers the hashes of blocks [from, to] and forgets those below the window. */
  private remember(from: number, to: number): void {
    for (let n = Math.max(from, to - REORG_WINDOW + 1); n <= to; n++) {
      const hash = this.storedHash(n);
      if (hash !== undefined) this.hashes.set(n, hash);
    }
    for (const n of this.hashes.keys()) if (n <= to - REORG_WINDOW) this.hashes.delete(n);
    this.last = to;
  }
}
