/**
 * A client's floor on the head (X-Ethlogd-Min-Head). A balancer that remembers, per API key, the
 * highest X-Ethlogd-Head it passed back (deploy/haproxy.cfg) sends it with that key's next request;
 * a replica whose store is below it waits for its follow-mode ingest to get there, and past
 * MIN_HEAD_WAIT_MS refuses with 503 so the balancer retries on another replica. A client moved to
 * another replica (its own was killed, or is back) therefore never sees the head go back.
 */

/** The request header, as uWS's getHeader takes it (lower case, as bytes). */
export const MIN_HEAD_HEADER = Buffer.from('x-ethlogd-min-head');

/**
 * Longest a request waits for the store to reach its floor. A replica within --max-lag-blocks gets
 * there in one follow poll and one ingest batch (milliseconds on loopback, about a block time behind
 * a public node's head); past this the balancer does better to try another replica.
 */
export const MIN_HEAD_WAIT_MS = 2_000;

/** How often the head is read while requests wait: the ingest writes from another process, so no event says when. */
export const MIN_HEAD_POLL_MS = 5;

/** The largest floor taken: a block number JavaScript holds exactly. */
const MAX_FLOOR = Number.MAX_SAFE_INTEGER;

/**
 * The floor in header value `text`: undefined when the header is absent, null when it is not a decimal block number.
 */
export function parseMinHead(text: string): number | undefined | null {
  if (text === '') return undefined;
  if (!/^[0-9]{1,16}$/.test(text)) return null;
  const floor = Number(text);
  return floor <= MAX_FLOOR ? floor : null;
}

/** One request waiting for its floor. */
interface Waiter {
  floor: number;
  deadline: number;
  settle: (reached: boolean) => void;
}

/** Requests waiting for the store's head to reach their floors, served by one poll while any waits. */
export class HeadWaiters {
  private waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  /**
   * Waits on `readHead` (the store's head now, undefined while it holds no block) for at most `waitMs`, reading it
   * every `pollMs`.
   */
  constructor(
    private readonly readHead: () => number | undefined,
    private readonly waitMs = MIN_HEAD_WAIT_MS,
    private readonly pollMs = MIN_HEAD_POLL_MS,
  ) {}

  /** True when the store's head is at `floor` or above now. */
  reached(floor: number): boolean {
    const head = this.readHead();
    return head !== undefined && head >= floor;
  }

  /**
   * Calls `settle(true)` once the head reaches `floor`, or `settle(false)` when the wait runs out or the waiters close.
   */
  wait(floor: number, settle: (reached: boolean) => void): void {
    this.waiting.push({ floor, deadline: performance.now() + this.waitMs, settle });
    this.timer ??= setInterval(() => this.poll(), this.pollMs);
  }

  /** Settles every waiting request as not reached and stops polling. */
  close(): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.stop();
    for (const w of waiting) w.settle(false);
  }

  /** Reads the head once and settles the waiters it reaches or whose wait ran out. */
  private poll(): void {
    let head: number;
    try {
      head = this.readHead() ?? -1;
    } catch {
      // A store that cannot be read reaches no floor: the waits run out into 503s, retried elsewhere.
      head = -1;
    }
    const now = performance.now();
    const settled: Waiter[] = [];
    const still: Waiter[] = [];
    for (const w of this.waiting) (head >= w.floor || now >= w.deadline ? settled : still).push(w);
    if (settled.length === 0) return;
    this.waiting = still;
    if (still.length === 0) this.stop();
    for (const w of settled) w.settle(head >= w.floor);
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
