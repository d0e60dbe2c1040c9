/**
 * eth_subscribe / eth_unsubscribe on one WebSocket connection, as geth serves them: `newHeads`
 * (each new canonical header) and `logs` (the logs of each new canonical block that match an
 * address and topics filter; on a reorganisation the dropped blocks' matches again with
 * `removed: true`, newest block first, then the new branch's). Results are rendered once per head
 * change and shared by every subscription with the same filter (named by its digest, whatever its
 * text), on every connection of the thread.
 */
import { randomBytes } from 'node:crypto';
import { SUBSCRIPTION_OVERHEAD_BYTES } from '../config.js';
import type { ByteBudget } from '../limits/byteBudget.js';
import type { LimitRefusals } from '../limits/refusals.js';
import { renderBundleMatches, renderCanonicalMatches } from '../logs/blockLogs.js';
import { type CompiledFilter, compiledBytes, compileFilter, filterDigest } from '../logs/filter.js';
import { formatBlock } from '../render/format.js';
import { InvalidParamsError, LimitExceededError, RpcError } from '../rpc/errors.js';
import { parseFilter } from '../rpc/filterParams.js';
import type { StoreReader } from '../store/reader.js';
import type { HeadChange } from './headFeed.js';

/**
 * Subscriptions one connection may hold: enough for an indexer's contracts, few enough that one socket cannot make
 * every head change costly.
 */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 128;

/** -32000 geth's answer to eth_unsubscribe of an id the connection does not hold. */
class SubscriptionNotFoundError extends RpcError {
  /** Builds geth's message. */
  constructor() {
    super(-32000, 'subscription not found');
  }
}

/** -32601 geth's answer to a subscription name it does not serve. */
class UnknownSubscriptionError extends RpcError {
  /** Builds geth's message for `name`. */
  constructor(name: string) {
    super(-32601, `no "${name}" subscription in eth namespace`);
  }
}

/** What a subscription asked for. */
type Subscription =
  | { kind: 'newHeads'; bytes: number }
  | { kind: 'logs'; filter: CompiledFilter; key: string; bytes: number };

/** What a connection's subscriptions are charged to: a byte budget shared by every thread, under its API key. */
export interface SubscriptionCharge {
  budget: ByteBudget;
  owner: string;
  refusals?: LimitRefusals;
}

/** A range over every block number. */
const EVERY_BLOCK = [0, Number.MAX_SAFE_INTEGER] as const;

/**
 * The header fields geth's newHeads carries: a block's without its body (transactions, uncles, withdrawals), size and
 * total difficulty.
 */
const NOT_IN_HEADS = ['transactions', 'uncles', 'withdrawals', 'size', 'totalDifficulty'];

/**
 * The notifications of one head change, rendered on demand and kept for every subscription of
 * every connection: headers by block, and matching logs by filter.
 */
export class ChangeRendering {
  private readonly heads = new Map<number, string>();
  private readonly logs = new Map<string, string[]>();

  /** Renders `change` over `reader`'s store. */
  constructor(
    private readonly reader: StoreReader,
    readonly change: HeadChange,
  ) {}

  private added: string[] | undefined;

  /** The newHeads results of the change's added blocks, in order (those gone already left out). */
  newHeads(): readonly string[] {
    this.added ??= this.change.added.flatMap((n) => this.head(n) ?? []);
    return this.added;
  }

  /** The JSON of the newHeads result for canonical block `n`, or undefined when it is gone already. */
  head(n: number): string | undefined {
    let text = this.heads.get(n);
    if (text === undefined) {
      const header = this.reader.header(n);
      if (header === undefined) return undefined;
      const block = formatBlock(header, { hashes: [] }, false);
      for (const field of NOT_IN_HEADS) delete block[field];
      text = JSON.stringify(block);
      this.heads.set(n, text);
    }
    return text;
  }

  /**
   * The JSON of each log matching `filter` (its cache key `key`) in blocks numbered within `range`:
   * the removed ones newest block first, then the new blocks'.
   */
  matches(key: string, filter: CompiledFilter, [from, to]: readonly [number, number] = EVERY_BLOCK): string[] {
    let out = this.logs.get(key);
    if (out === undefined) {
      out = [];
      for (const bundle of this.change.removed) {
        if (bundle.header.number >= from && bundle.header.number <= to)
          out.push(...renderBundleMatches(bundle, filter, 'orphan'));
      }
      for (const n of this.change.added)
        if (n >= from && n <= to) out.push(...renderCanonicalMatches(this.reader, n, this.reader.logs(n), filter));
      this.logs.set(key, out);
    }
    return out;
  }
}

/** The text of a notification of subscription `id` carrying the JSON `result`. */
export function notification(id: string, result: string): string {
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${result}}}`;
}

/** A subscription id as geth makes them: 16 random bytes in hex. */
function newId(): string {
  return '0x' + randomBytes(16).toString('hex');
}

/** Parses eth_subscribe's parameters into a subscription. */
function parseSubscription(params: unknown[], maxParams: number): Subscription {
  const name = params[0];
  if (typeof name !== 'string') throw new InvalidParamsError('invalid argument 0: subscription name must be a string');
  if (name === 'newHeads') {
    if (params.length > 1) throw new InvalidParamsError('too many arguments, want at most 1');
    return { kind: 'newHeads', bytes: SUBSCRIPTION_OVERHEAD_BYTES };
  }
  if (name !== 'logs') throw new UnknownSubscriptionError(name);
  if (params.length > 2) throw new InvalidParamsError('too many arguments, want at most 2');
  const raw = params[1] ?? {};
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const fields = Object.keys(raw).map((k) => k.toLowerCase());
    if (fields.some((f) => f === 'fromblock' || f === 'toblock' || f === 'blockhash')) {
      throw new InvalidParamsError(
        'invalid argument 1: a logs subscription takes address and topics only (it follows the head)',
      );
    }
  }
  const filter = compileFilter(parseFilter(raw, maxParams));
  return {
    kind: 'logs',
    filter,
    key: filterDigest(filter),
    bytes: compiledBytes(filter) + SUBSCRIPTION_OVERHEAD_BYTES,
  };
}

/** The subscriptions of one connection. */
export class ConnectionSubscriptions {
  private readonly subs = new Map<string, Subscription>();

  /**
   * Holds no subscription yet; a logs filter may give at most `maxParams` addresses and topics; each is charged to
   * `charge` when given.
   */
  constructor(
    private readonly maxParams: number,
    private readonly charge?: SubscriptionCharge,
  ) {}

  /** How many the connection holds. */
  get size(): number {
    return this.subs.size;
  }

  /**
   * Answers eth_subscribe(params): the new subscription's id; throws an RpcError for bad parameters or past the limit.
   */
  subscribe(params: unknown[]): string {
    const sub = parseSubscription(params, this.maxParams);
    if (this.subs.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      throw new LimitExceededError(
        `too many subscriptions on this connection (at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION})`,
      );
    }
    const over = this.charge?.budget.take(this.charge.owner, sub.bytes) ?? null;
    if (over !== null) {
      this.charge!.refusals?.add('subscription_bytes');
      const { limits } = this.charge!.budget;
      const scope =
        over === 'key'
          ? `this API key's subscriptions may hold ${limits.perKey}`
          : `this server's subscriptions may hold ${limits.total}`;
      throw new LimitExceededError(
        `subscription over the byte budget: its filter takes ${sub.bytes} bytes and ${scope}; ` +
          'unsubscribe some, or use fewer addresses and topics',
      );
    }
    const id = newId();
    this.subs.set(id, sub);
    return id;
  }

  /** Answers eth_unsubscribe(params): true once removed; throws geth's error for an id the connection does not hold. */
  unsubscribe(params: unknown[]): boolean {
    const id = params[0];
    if (typeof id !== 'string') throw new InvalidParamsError('invalid argument 0: subscription id must be a string');
    const sub = this.subs.get(id);
    if (sub === undefined) throw new SubscriptionNotFoundError();
    this.subs.delete(id);
    this.charge?.budget.give(this.charge.owner, sub.bytes);
    return true;
  }

  /** Drops every subscription and gives back their bytes (the connection closed). */
  clear(): void {
    for (const sub of this.subs.values()) this.charge?.budget.give(this.charge.owner, sub.bytes);
    this.subs.clear();
  }

  /**
   * What a head change sends this connection: per subscription its id and the results (arrays the
   * rendering shares with every subscription of the same filter), in the order they are sent; a
   * notification's text is made only as it goes out (notification()).
   */
  outgoing(rendering: ChangeRendering): { id: string; results: readonly string[] }[] {
    const out: { id: string; results: readonly string[] }[] = [];
    for (const [id, sub] of this.subs) {
      const results = sub.kind === 'newHeads' ? rendering.newHeads() : rendering.matches(sub.key, sub.filter);
      if (results.length > 0) out.push({ id, results });
    }
    return out;
  }
}
