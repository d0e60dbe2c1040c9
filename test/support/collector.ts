/**
 * What a watcher's callback reports, collected: a list that a test waits on to grow, failing with
 * the watcher's name after a bound rather than hanging.
 */

/** How long a watcher may take to report what the store already has: a failure, not a hang. */
const REPORT_TIMEOUT_MS = 20_000;

/**
 * A list filled by a watcher's callback, and promises of it growing: `until` fails after
 * REPORT_TIMEOUT_MS without a report, `settles` answers false after `timeoutMs` without one.
 */
export function collector<T>(what: string): {
  items: T[];
  push(more: T[]): void;
  grow(past: number, timeoutMs?: number): Promise<void>;
  until(done: (items: T[]) => boolean): Promise<T[]>;
  settles(done: (items: T[]) => boolean, timeoutMs: number): Promise<boolean>;
} {
  const items: T[] = [];
  const waiters: (() => void)[] = [];
  return {
    async until(done) {
      while (!done(items)) await this.grow(items.length);
      return items;
    },
    async settles(done, timeoutMs) {
      try {
        while (!done(items)) await this.grow(items.length, timeoutMs);
        return true;
      } catch {
        return false;
      }
    },
    items,
    push(more) {
      items.push(...more);
      for (const w of waiters.splice(0)) w();
    },
    async grow(past, timeoutMs = REPORT_TIMEOUT_MS) {
      if (items.length > past) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((w) => waiters.push(w)),
        new Promise<never>((_, fail) => {
          timer = setTimeout(
            () => fail(new Error(`${what}: no report after ${items.length} items in ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}

/**
 * A viem watchBlocks callback that passes on the number of each block viem has: viem calls it with
 * `undefined` when its eth_getBlockByNumber for a new head fails, as when a test closes the socket
 * under one in flight (its unsubscribe does not stop a head already being fetched). A head missed
 * while a test runs shows as a gap in what the callback collected, which the test's assertion catches.
 */
export function fetchedBlocks(
  onNumber: (number: bigint | null) => void,
): (block: { number: bigint | null } | undefined) => void {
  return (block) => {
    if (block !== undefined) onNumber(block.number);
  };
}
