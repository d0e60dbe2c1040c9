/**
 * A bounded poll with backoff, for conditions another process (or an asynchronous loop) makes
 * true: a follower committing a node's new head, a server seeing it.
 */
import assert from 'node:assert/strict';

/** Polls `check` with backoff (5 ms doubling to 200 ms) until it holds; fails after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 5; !(await check()); delay = Math.min(delay * 2, 200)) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
