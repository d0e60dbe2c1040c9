/**
 * The typed eth_getLogs filter (the fronts parse theirs into it, e.g. rpc/filterParams.ts): its
 * limits, and the filter compiled into a matcher of decoded logs (the oracle's).
 */
import type { BlockId, Log } from '../chain/types.js';
import { MAX_TOPIC_POSITIONS } from '../config.js';
import { TooManyParamsError, TooManyTopicsError } from './errors.js';

/** A filter: either a block hash or a range (tags unresolved), plus addresses and topics. */
export interface FilterSpec {
  blockHash?: Uint8Array;
  fromBlock: BlockId;
  toBlock: BlockId;
  /** Empty: any address. */
  addresses: Uint8Array[];
  /** Per position: null is a wildcard, otherwise the alternatives (OR). */
  topics: (Uint8Array[] | null)[];
}

/** Throws TooManyTopicsError when `topics` has more positions than MAX_TOPIC_POSITIONS. */
export function checkTopicPositions(topics: readonly unknown[]): void {
  if (topics.length > MAX_TOPIC_POSITIONS) throw new TooManyTopicsError(topics.length, MAX_TOPIC_POSITIONS);
}

/** Counts what docs/api.md §6 calls parameters: addresses plus topic values. */
export function countFilterParams(spec: FilterSpec): number {
  let n = spec.addresses.length;
  for (const p of spec.topics) n += p ? p.length : 0;
  return n;
}

/** Throws TooManyParamsError when the filter has more than `maxParams` parameters. */
export function checkParamCount(spec: FilterSpec, maxParams: number): void {
  const count = countFilterParams(spec);
  if (count > maxParams) throw new TooManyParamsError(count, maxParams);
}

function key(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** A filter compiled for matching: sets keyed by the bytes. */
export interface CompiledFilter {
  /** Null: any address. */
  addresses: Set<string> | null;
  /** Per position: null is a wildcard. */
  topics: (Set<string> | null)[];
}

/** Compiles a parsed filter's addresses and topics into sets. */
export function compileFilter(spec: Pick<FilterSpec, 'addresses' | 'topics'>): CompiledFilter {
  return {
    addresses: spec.addresses.length ? new Set(spec.addresses.map(key)) : null,
    topics: spec.topics.map((p) => (p ? new Set(p.map(key)) : null)),
  };
}

/** Whether `log` matches: address in the set, and every constrained topic position in its alternatives. */
export function matchLog(filter: CompiledFilter, log: Log): boolean {
  if (filter.addresses && !filter.addresses.has(key(log.address))) return false;
  if (filter.topics.length > log.topics.length) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    const alternatives = filter.topics[i];
    if (alternatives && !alternatives.has(key(log.topics[i]!))) return false;
  }
  return true;
}
