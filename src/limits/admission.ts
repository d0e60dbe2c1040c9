/**
 * Admission of costly work: log queries on the scan pool and StreamLogs calls, limited per API key
 * and per process. Every such query runs on the main thread's engine (the HTTP threads hand theirs
 * over), so one Admission there holds the per-process limits whatever thread a call came in on.
 *
 * A query over its key's or the process's running limit waits in a queue; queues are served
 * round-robin by key (the key that got a slot longest ago first), so one key's hundreds of queries take
 * their turn beside another key's single one instead of ahead of it. Past its key's or the process's
 * queue bound a query is refused at once (TooManyConcurrentError: -32005, HTTP 429 with
 * Retry-After). A waiting query whose caller goes away (its signal) leaves the queue. Streams hold
 * their slot for their whole life and do not queue: over their limit they are refused at once.
 */
import {
  CONCURRENCY_RETRY_AFTER_MS,
  DEFAULT_LOG_QUERIES,
  DEFAULT_LOG_QUERIES_PER_KEY,
  DEFAULT_LOG_QUEUE,
  DEFAULT_LOG_QUEUE_PER_KEY,
  DEFAULT_STREAMS,
  DEFAULT_STREAMS_PER_KEY,
} from '../config.js';
import { QueryCancelledError } from '../logs/errors.js';
import { TooManyConcurrentError } from '../rpc/errors.js';
import type { RateLimiter } from './rateLimiter.js';
import type { LimitRefusals } from './refusals.js';

/** The limits of an Admission; each unset one takes its config.ts default. */
export interface AdmissionLimits {
  /** Log queries one key runs at once. */
  queriesPerKey: number;
  /** Log queries the process runs at once. */
  queries: number;
  /** Log queries one key may have waiting. */
  queuePerKey: number;
  /** Log queries waiting in all. */
  queue: number;
  /** Streams one key holds open. */
  streamsPerKey: number;
  /** Streams the process holds open. */
  streams: number;
}

/** The defaults of config.ts. */
export const DEFAULT_ADMISSION: AdmissionLimits = {
  queriesPerKey: DEFAULT_LOG_QUERIES_PER_KEY,
  queries: DEFAULT_LOG_QUERIES,
  queuePerKey: DEFAULT_LOG_QUEUE_PER_KEY,
  queue: DEFAULT_LOG_QUEUE,
  streamsPerKey: DEFAULT_STREAMS_PER_KEY,
  streams: DEFAULT_STREAMS,
};

/** Gives back an admitted query's or stream's slot (once; later calls do nothing). */
export type Release = () => void;

/** The key of work that came with none (the library, a test): counted under one key of its own. */
const NO_KEY = '';

/** A query waiting for its turn. */
interface Waiter {
  admit: (release: Release) => void;
  reject: (error: Error) => void;
  /** Takes it out of the queue when its caller goes away. */
  detach: () => void;
}

/** Running counts by key, entries dropped at zero. */
class Counts {
  private readonly byKey = new Map<string, number>();
  total = 0;

  get(key: string): number {
    return this.byKey.get(key) ?? 0;
  }

  add(key: string): void {
    this.byKey.set(key, this.get(key) + 1);
    this.total++;
  }

  remove(key: string): void {
    const left = this.get(key) - 1;
    if (left > 0) this.byKey.set(key, left);
    else this.byKey.delete(key);
    this.total--;
  }
}

/** Per-key and per-process limits on running log queries and open streams, with a fair queue for queries. */
export class Admission {
  readonly limits: AdmissionLimits;
  private readonly running = new Counts();
  private readonly streams = new Counts();
  /** Waiting queries by key. */
  private readonly queues = new Map<string, Waiter[]>();
  private waiting = 0;
  /**
   * When each key running or waiting last got a slot (a serial number): the next turn goes to the key served longest
   * ago.
   */
  private readonly served = new Map<string, number>();
  private serial = 0;

  /** An admission under `limits` (config.ts defaults for those unset), counting refusals in `refusals`. */
  constructor(
    limits: Partial<AdmissionLimits> = {},
    private readonly refusals?: LimitRefusals,
  ) {
    this.limits = { ...DEFAULT_ADMISSION, ...limits };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < (name.startsWith('queue') ? 0 : 1))
        throw new RangeError(
          `admission limit ${name} must be a whole number${name.startsWith('queue') ? '' : ' ≥ 1'}, got ${value}`,
        );
    }
  }

  /** Log queries running now. */
  get queries(): number {
    return this.running.total;
  }

  /** Log queries waiting now. */
  get queued(): number {
    return this.waiting;
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.streams.total;
  }

  /**
   * A slot for one log query of `key`: at once when its key and the process have one free, else
   * once its turn comes; throws TooManyConcurrentError when the queue is full, and rejects with
   * QueryCancelledError when `signal` aborts while it waits.
   */
  query(key: string | undefined, signal?: AbortSignal): Release | Promise<Release> {
    const k = key ?? NO_KEY;
    if (signal?.aborted) throw new QueryCancelledError();
    if (this.running.total < this.limits.queries && this.running.get(k) < this.limits.queriesPerKey)
      return this.start(k);
    const queue = this.queues.get(k);
    if ((queue?.length ?? 0) >= this.limits.queuePerKey)
      throw this.refuse('log_queries', 'log queries', 'key', this.limits.queriesPerKey);
    if (this.waiting >= this.limits.queue)
      throw this.refuse('log_queries', 'log queries', 'process', this.limits.queries);
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        waiter.detach();
        reject(new QueryCancelledError());
      };
      const waiter: Waiter = {
        admit: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject,
        detach: () => {
          const list = this.queues.get(k);
          const at = list?.indexOf(waiter) ?? -1;
          if (at === -1) return;
          list!.splice(at, 1);
          this.waiting--;
          if (list!.length === 0) this.queues.delete(k);
          if (list!.length === 0 && this.running.get(k) === 0) this.served.delete(k);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (queue === undefined) this.queues.set(k, [waiter]);
      else queue.push(waiter);
      this.waiting++;
    });
  }

  /** A slot for one stream of `key`, or TooManyConcurrentError thrown when its key's or the process's are all taken. */
  stream(key: string | undefined): Release {
    const k = key ?? NO_KEY;
    if (this.streams.get(k) >= this.limits.streamsPerKey)
      throw this.refuse('streams', 'streams', 'key', this.limits.streamsPerKey);
    if (this.streams.total >= this.limits.streams)
      throw this.refuse('streams', 'streams', 'process', this.limits.streams);
    this.streams.add(k);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.streams.remove(k);
    };
  }

  /** Rejects every waiting query with `error` (the engine is closing). */
  failAll(error: Error): void {
    for (const queue of this.queues.values()) for (const waiter of queue) waiter.reject(error);
    this.queues.clear();
    this.waiting = 0;
    this.served.clear();
  }

  /** Counts a refusal and builds its error. */
  private refuse(
    reason: 'log_queries' | 'streams',
    what: string,
    scope: string,
    limit: number,
  ): TooManyConcurrentError {
    this.refusals?.add(reason);
    return new TooManyConcurrentError(what, scope, limit, CONCURRENCY_RETRY_AFTER_MS);
  }

  /** Counts a query of `key` as running; its release frees the slot and gives it to the next in turn. */
  private start(key: string): Release {
    this.running.add(key);
    this.served.set(key, ++this.serial);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.remove(key);
      if (this.running.get(key) === 0 && !this.queues.has(key)) this.served.delete(key);
      this.next();
    };
  }

  /**
   * Admits waiting queries while slots are free, round-robin by key: each time the waiting key with a
   * free slot of its own that got one longest ago (or never).
   */
  private next(): void {
    while (this.waiting > 0 && this.running.total < this.limits.queries) {
      let pick: string | undefined;
      let oldest = Number.POSITIVE_INFINITY;
      for (const key of this.queues.keys()) {
        const at = this.served.get(key) ?? 0;
        if (at < oldest && this.running.get(key) < this.limits.queriesPerKey) {
          pick = key;
          oldest = at;
        }
      }
      if (pick === undefined) return;
      const queue = this.queues.get(pick)!;
      const waiter = queue.shift()!;
      this.waiting--;
      if (queue.length === 0) this.queues.delete(pick);
      waiter.admit(this.start(pick));
    }
  }
}

/**
 * What a log query is charged beyond its call when a rate limit is set: `blocks` over `blocksPerCall` more calls (whole
 * ones, at most the burst).
 */
export function rateCost(blocks: number, blocksPerCall: number, burst: number): number {
  if (blocksPerCall <= 0) return 0;
  return Math.min(burst, Math.floor(blocks / blocksPerCall));
}

/** How a pooled log query of one key is admitted: its rate cost charged, then its turn waited for. */
export interface LogGate {
  admission: Admission;
  /** The rate limiter charged by cost; none: no charge. */
  rateLimit?: RateLimiter;
  /** Blocks a range spans per extra call charged (rateCost); 0: none. */
  rateCostBlocks: number;
}

/**
 * The engine's admit (QueryOptions.admit) for a query of `caller`: charges the rate limit its cost
 * (refused with the rate limit's error when the key's tokens do not cover it), then waits for its turn.
 */
export function admitFor(
  gate: LogGate,
  caller: string | undefined,
): (blocks: number, signal?: AbortSignal) => Release | Promise<Release> {
  return (blocks, signal) => {
    const { rateLimit } = gate;
    if (rateLimit !== undefined && caller !== undefined) {
      const cost = rateCost(blocks, gate.rateCostBlocks, rateLimit.limit.burst);
      const refused = cost > 0 ? rateLimit.budget(caller).take(cost) : null;
      if (refused) throw refused;
    }
    return gate.admission.query(caller, signal);
  };
}
