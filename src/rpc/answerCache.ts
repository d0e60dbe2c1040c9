/**
 * Results remembered while the store's snapshot stays: the JSON result of a call to a method that
 * answers from the canonical chain alone is kept, keyed by method and params, until the store's
 * markers move (StoreReader.tickMarks: a block appended or rolled back, safe or finalized moved), so
 * a hot block's logs, header, transaction or storage word is read and rendered once per head instead
 * of once per request: realtime indexers ask `eth_getLogs({blockHash})` of the newest block, and load
 * tests repeat a set of calls. Bounded in bytes; the oldest answers go first.
 */

import type { StoreReader } from '../store/reader.js';
import type { FlatBody } from './handler.js';

/**
 * The methods whose result, when it is rendered from stored records (RawJson) or is a storage word
 * (a string), depends only on the canonical chain and its markers. Not the filters (per client), not
 * eth_syncing (the node's head), not the chain constants (cheaper to answer than to look up).
 */
const CACHED_METHODS: ReadonlySet<string> = new Set([
  'eth_getLogs',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getStorageAt',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
]);

/**
 * Largest answer kept: the size under which an answer is written whole in one call (respond.ts's
 * STREAM_THRESHOLD_CHARS); larger answers cost more to send than to find, and would crowd out the
 * small ones the cache is for.
 */
export const MAX_CACHED_ANSWER_BYTES = 64 * 1024;

/**
 * Longest params text a key is made of: a filter with hundreds of addresses is not worth a key as long as its answer.
 */
const MAX_KEY_CHARS = 2048;

/** Default budget of one front's cache (each HTTP thread has its own): thousands of small answers. */
export const DEFAULT_ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

/** A call's pending tag, whose block the markers do not follow: such calls are never kept. */
const PENDING_TAG = '"pending"';

/**
 * `params` as JSON text, or undefined when it cannot be written: JSON.parse reads nesting of any
 * depth, JSON.stringify recurses and runs out of stack on deep enough params (which no method takes:
 * they answer an error, afresh).
 */
function paramsText(params: unknown[]): string | undefined {
  try {
    return JSON.stringify(params);
  } catch {
    return undefined;
  }
}

/**
 * Most call texts remembered (AnswerCache.callOf): a load test's or an indexer's distinct calls over
 * a few heads; past it they are forgotten all at once, and learned again as they come.
 */
const MAX_KNOWN_CALLS = 16_384;

/** A call known by its text (rpc/canonicalCall.ts): its method, and its key here. */
export interface KnownCall {
  method: string;
  key: string;
}

/** What a cache has done since it was made, for /metrics. */
export interface AnswerCacheCounts {
  hits: number;
  misses: number;
}

/** The results of one front's calls, valid for the markers they were answered under. */
export class AnswerCache {
  private readonly answers = new Map<string, FlatBody>();
  /** Call texts after their id (canonicalCall.ts) → the call, or null for a text that is not canonical. */
  private readonly calls = new Map<string, KnownCall | null>();
  private bytes = 0;
  /** The markers the kept answers were answered under. */
  private marks: string | undefined;
  /** Hits and misses so far. */
  readonly counts: AnswerCacheCounts = { hits: 0, misses: 0 };

  /**
   * Keeps up to `budgetBytes` of answers read through `reader`, which must read its markers per tick
   * (StoreReader.tickMarks).
   */
  constructor(
    private readonly reader: StoreReader,
    private readonly budgetBytes: number = DEFAULT_ANSWER_CACHE_BYTES,
  ) {}

  /**
   * The key of a call whose answer may be kept, or undefined when it may not (another method, a pending tag, params too
   * long).
   */
  keyOf(method: string, params: unknown[] | undefined): string | undefined {
    if (!CACHED_METHODS.has(method)) return undefined;
    const text = params === undefined ? '[]' : paramsText(params);
    if (text === undefined || text.length > MAX_KEY_CHARS || text.includes(PENDING_TAG)) return undefined;
    return method + text;
  }

  /**
   * The call named by `rest`, the text after the id of a canonical call, once told by rememberCall;
   * null when that text was found not canonical; undefined when it was never told.
   */
  callOf(rest: string): KnownCall | null | undefined {
    return this.calls.get(rest);
  }

  /** Remembers what the call text `rest` names (null: a text that is not canonical, so not checked again). */
  rememberCall(rest: string, call: KnownCall | null): void {
    if (this.calls.size >= MAX_KNOWN_CALLS) this.calls.clear();
    this.calls.set(rest, call);
  }

  /**
   * The kept result of the call `key` names, when it was answered under this tick's markers (a change
   * of markers empties the cache). A miss is counted unless `countMiss` is false: the caller looks
   * again, and counts it then.
   */
  get(key: string, countMiss = true): FlatBody | undefined {
    const marks = this.reader.tickMarks();
    if (marks !== this.marks) {
      this.answers.clear();
      this.bytes = 0;
      this.marks = marks;
    }
    const answer = marks === undefined ? undefined : this.answers.get(key);
    if (answer !== undefined) this.counts.hits++;
    else if (countMiss) this.counts.misses++;
    return answer;
  }

  /**
   * Keeps `json`, the result of the call `key` names, answered in the tick of the get() that missed
   * it; the oldest answers are dropped to stay within the budget. Returns whether it is kept.
   */
  put(key: string, json: FlatBody): boolean {
    const size = json.length + key.length;
    if (
      this.marks === undefined ||
      json.length > MAX_CACHED_ANSWER_BYTES ||
      size > this.budgetBytes ||
      this.answers.has(key)
    )
      return false;
    for (const [oldKey, old] of this.answers) {
      if (this.bytes + size <= this.budgetBytes) break;
      this.answers.delete(oldKey);
      this.bytes -= old.length + oldKey.length;
    }
    this.answers.set(key, json);
    this.bytes += size;
    return true;
  }
}
