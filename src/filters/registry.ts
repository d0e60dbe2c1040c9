/**
 * Polling filters (eth_newFilter, eth_newBlockFilter, eth_getFilterChanges, eth_getFilterLogs,
 * eth_uninstallFilter) as geth keeps them: per server process, in memory, each gathering what the
 * head brought since its last poll (new block hashes; new logs that match, and on a
 * reorganisation the dropped blocks' matching logs again with `removed: true`), and dropped after
 * FILTER_IDLE_MS without a poll. One registry lives on the main thread; HTTP threads reach it over
 * their port (http/threads.ts), so a filter installed on one connection is polled on any other.
 */
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '../chain/hex.js';
import { DEFAULT_FILTER_BYTES, DEFAULT_FILTER_BYTES_PER_KEY, SUBSCRIPTION_OVERHEAD_BYTES } from '../config.js';
import { ByteBudget, type ByteLimits } from '../limits/byteBudget.js';
import type { LimitRefusals } from '../limits/refusals.js';
import {
  type CompiledFilter,
  compiledBytes,
  compileFilter,
  type FilterSpec,
  filterDigest,
  filterValues,
} from '../logs/filter.js';
import { FilterNotFoundError, LimitExceededError } from '../rpc/errors.js';
import type { StoreReader } from '../store/reader.js';
import { type HeadChange, HeadFeed } from '../ws/headFeed.js';
import { ChangeRendering } from '../ws/subscriptions.js';

/** How long a filter lives without a poll: geth's deadline. */
export const FILTER_IDLE_MS = 5 * 60 * 1000;

/** Filters one process keeps: far above what indexers install, low enough that forgotten ones cannot exhaust memory. */
export const MAX_FILTERS = 10_000;

/** Filters one API key may hold: a tenth of the process's, so one client cannot take them all. */
export const MAX_FILTERS_PER_KEY = 1_000;

/**
 * Changes a filter gathers between polls: past it the filter is dropped (its client gets "filter not found" and
 * installs a new one, as after expiry).
 */
export const MAX_FILTER_PENDING = 10_000;

/** How often idle filters are looked for. */
const SWEEP_MS = 30_000;

/** What a polling-filter front can do: the main thread's registry, or an HTTP thread's messenger to it. */
export interface FilterService {
  /** Installs a log filter over `spec`; returns its id. */
  newLogFilter(spec: FilterSpec, owner?: string): string | Promise<string>;
  /** Installs a filter of new block hashes; returns its id. */
  newBlockFilter(owner?: string): string | Promise<string>;
  /**
   * What filter `id` gathered since its last poll, as JSON texts (logs or block hashes); throws FilterNotFoundError.
   */
  changes(id: string): string[] | Promise<string[]>;
  /** The criteria of log filter `id` (for eth_getFilterLogs); throws FilterNotFoundError, also for a block filter. */
  criteria(id: string): FilterSpec | Promise<FilterSpec>;
  /** Removes filter `id`; false when there was none. */
  uninstall(id: string): boolean | Promise<boolean>;
}

/** One installed filter. */
interface Installed {
  kind: 'logs' | 'blocks';
  /** A log filter's block range as given (tags unresolved). */
  blocks?: Pick<FilterSpec, 'fromBlock' | 'toBlock'>;
  /** A log filter's addresses and topics, packed (logs/filter.ts): its criteria are read back from them. */
  compiled?: CompiledFilter;
  /** The numeric block bounds of a log filter's range (tags: unbounded). */
  range: [number, number];
  /** Cache key of its matches within one head change: filters matching alike share them. */
  key: string;
  pending: string[];
  lastPoll: number;
  /**
   * The API key that installed it (counted against MAX_FILTERS_PER_KEY and the byte budgets); undefined for the
   * library's own.
   */
  owner?: string;
  /** Bytes charged to the owner's budget: the packed criteria, the overhead and the pending changes. */
  bytes: number;
}

/** The budget key of filters installed without an API key (the library's). */
const NO_OWNER = '';

/** The bytes a gathered change costs: its JSON text and the array slot holding it. */
function pendingBytes(texts: readonly string[]): number {
  let bytes = 0;
  for (const t of texts) bytes += t.length + 8;
  return bytes;
}

/** A bound of a filter's range: its number, or the open end for a tag. */
function bound(ref: FilterSpec['fromBlock'], open: number): number {
  return 'number' in ref ? ref.number : open;
}

/** The polling filters of this process, fed by the store's head. */
export class FilterRegistry implements FilterService {
  private readonly filters = new Map<string, Installed>();
  private readonly feed: HeadFeed;
  private unlisten: (() => void) | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  private readonly budget: ByteBudget;
  private readonly refusals: LimitRefusals | undefined;

  /**
   * Keeps filters over `reader`'s store; a failure to follow the head goes to `onError`, idle time is
   * judged by `now`; filters and their pending changes are charged to `budget` (bytes per key and in
   * all; config.ts defaults), refusals counted in `refusals`.
   */
  constructor(
    private readonly reader: StoreReader,
    options: {
      pollMs?: number;
      onError?: (error: unknown) => void;
      now?: () => number;
      budget?: Partial<ByteLimits>;
      refusals?: LimitRefusals;
    } = {},
  ) {
    this.feed = new HeadFeed(reader, options.pollMs, options.onError);
    this.now = options.now ?? Date.now;
    this.budget = new ByteBudget({
      perKey: DEFAULT_FILTER_BYTES_PER_KEY,
      total: DEFAULT_FILTER_BYTES,
      ...options.budget,
    });
    this.refusals = options.refusals;
  }

  /** Bytes the filters hold now, criteria and pending changes. */
  get bytes(): number {
    return this.budget.total;
  }

  /** Installs a log filter over `spec` for API key `owner`; returns its id. */
  newLogFilter(spec: FilterSpec, owner?: string): string {
    const range: [number, number] = [bound(spec.fromBlock, 0), bound(spec.toBlock, Number.MAX_SAFE_INTEGER)];
    const compiled = compileFilter(spec);
    const blocks = { fromBlock: spec.fromBlock, toBlock: spec.toBlock };
    const key = `${filterDigest(compiled)}:${range[0]}:${range[1]}`;
    return this.install({
      kind: 'logs',
      blocks,
      compiled,
      range,
      key,
      pending: [],
      lastPoll: this.now(),
      owner,
      bytes: compiledBytes(compiled) + SUBSCRIPTION_OVERHEAD_BYTES,
    });
  }

  /** Installs a filter of new block hashes for API key `owner`; returns its id. */
  newBlockFilter(owner?: string): string {
    return this.install({
      kind: 'blocks',
      range: [0, Number.MAX_SAFE_INTEGER],
      key: '',
      pending: [],
      lastPoll: this.now(),
      owner,
      bytes: SUBSCRIPTION_OVERHEAD_BYTES,
    });
  }

  /** What filter `id` gathered since its last poll. */
  changes(id: string): string[] {
    const filter = this.touch(id);
    const out = filter.pending;
    filter.pending = [];
    const gathered = pendingBytes(out);
    this.budget.give(filter.owner ?? NO_OWNER, gathered);
    filter.bytes -= gathered;
    return out;
  }

  /** The criteria of log filter `id`. */
  criteria(id: string): FilterSpec {
    const filter = this.touch(id);
    if (filter.compiled === undefined || filter.blocks === undefined) throw new FilterNotFoundError();
    return { ...filter.blocks, ...filterValues(filter.compiled) };
  }

  /** Removes filter `id`; false when there was none. */
  uninstall(id: string): boolean {
    const filter = this.filters.get(id);
    if (filter === undefined) return false;
    this.drop(id, filter);
    this.installedChanged();
    return true;
  }

  /** Filters installed now. */
  get size(): number {
    return this.filters.size;
  }

  /** Stops following the head and forgets every filter. */
  close(): void {
    for (const [id, filter] of this.filters) this.drop(id, filter);
    this.installedChanged();
    this.feed.close();
  }

  /** Drops the filters not polled within FILTER_IDLE_MS. */
  sweep(): void {
    const oldest = this.now() - FILTER_IDLE_MS;
    for (const [id, filter] of this.filters) if (filter.lastPoll < oldest) this.drop(id, filter);
    this.installedChanged();
  }

  private install(filter: Installed): string {
    if (this.filters.size >= MAX_FILTERS)
      throw new LimitExceededError(`too many filters installed on this server (at most ${MAX_FILTERS})`);
    if (filter.owner !== undefined) {
      let held = 0;
      for (const other of this.filters.values()) if (other.owner === filter.owner) held++;
      if (held >= MAX_FILTERS_PER_KEY)
        throw new LimitExceededError(
          `too many filters installed for this API key (at most ${MAX_FILTERS_PER_KEY}): ` +
            'uninstall some, or let them expire',
        );
    }
    const over = this.budget.take(filter.owner ?? NO_OWNER, filter.bytes);
    if (over !== null) {
      this.refusals?.add('filter_bytes');
      const limit = over === 'key' ? this.budget.limits.perKey : this.budget.limits.total;
      throw new LimitExceededError(
        `filter over the byte budget: a filter of ${filter.bytes} bytes passes the ${limit} bytes the filters ` +
          `${over === 'key' ? 'of this API key' : 'of this server'} may hold; ` +
          'uninstall some, or use fewer addresses and topics',
      );
    }
    // The head's moves before this install go to the filters installed before it, not to this one.
    if (this.unlisten !== undefined) this.feed.poll();
    const id = '0x' + randomBytes(16).toString('hex');
    if (filter.kind === 'blocks') filter.key = id;
    this.filters.set(id, filter);
    this.installedChanged();
    return id;
  }

  /** Removes filter `id` and gives back its bytes. */
  private drop(id: string, filter: Installed): void {
    this.filters.delete(id);
    this.budget.give(filter.owner ?? NO_OWNER, filter.bytes);
  }

  /** Filter `id`, its idle time reset; throws FilterNotFoundError. */
  private touch(id: string): Installed {
    const filter = this.filters.get(id);
    if (filter === undefined) throw new FilterNotFoundError();
    filter.lastPoll = this.now();
    return filter;
  }

  /** Follows the head and sweeps only while filters are installed. */
  private installedChanged(): void {
    if (this.filters.size > 0 && this.unlisten === undefined) {
      this.unlisten = this.feed.listen((change) => this.gather(change));
      this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
      this.sweeper.unref();
    } else if (this.filters.size === 0 && this.unlisten !== undefined) {
      this.unlisten();
      this.unlisten = undefined;
      clearInterval(this.sweeper);
    }
  }

  /** Adds what `change` brings to every filter. */
  private gather(change: HeadChange): void {
    const rendering = new ChangeRendering(this.reader, change);
    let hashes: string[] | undefined;
    for (const [id, filter] of this.filters) {
      let more: string[];
      if (filter.kind === 'blocks') {
        hashes ??= change.added.flatMap((n) => {
          const header = this.reader.header(n);
          return header === undefined ? [] : [JSON.stringify(bytesToHex(header.hash))];
        });
        more = hashes;
      } else {
        more = rendering.matches(filter.key, filter.compiled!, filter.range);
      }
      const bytes = pendingBytes(more);
      // Past its count or its owner's budget a filter is dropped: its client installs a new one, as after expiry.
      if (
        filter.pending.length + more.length > MAX_FILTER_PENDING ||
        (bytes > 0 && this.budget.take(filter.owner ?? NO_OWNER, bytes) !== null)
      ) {
        if (filter.pending.length + more.length <= MAX_FILTER_PENDING) this.refusals?.add('filter_bytes');
        this.drop(id, filter);
        continue;
      }
      filter.bytes += bytes;
      filter.pending.push(...more);
    }
    this.installedChanged();
  }
}
