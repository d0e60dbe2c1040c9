/**
 * The typed eth_getLogs filter (the fronts parse theirs into it, e.g. rpc/filterParams.ts): its
 * limits, and the filter compiled into a matcher of decoded logs (the oracle's).
 */
import { createHash } from 'node:crypto';
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

/**
 * Equal-width byte strings (addresses or topics) packed sorted and without repeats in one
 * Uint8Array, searched by bisection: a filter of 5,000 parameters keeps ~130 KB, where a Uint8Array
 * and a Set entry per parameter kept about ten times that.
 */
export class PackedSet {
  /** The values, `width` bytes each, in byte order. */
  readonly bytes: Uint8Array;
  /** Values held. */
  readonly size: number;
  /** The bytes as a Buffer, for its native compare. */
  private readonly view: Buffer;

  /** Packs `values`, each `width` bytes long. */
  constructor(
    values: readonly Uint8Array[],
    readonly width: number,
  ) {
    const sorted = [...values].sort((x, y) => Buffer.compare(x, y));
    const unique = sorted.filter((v, i) => i === 0 || Buffer.compare(v, sorted[i - 1]!) !== 0);
    this.bytes = new Uint8Array(unique.length * width);
    unique.forEach((v, i) => this.bytes.set(v, i * width));
    this.size = unique.length;
    this.view = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
  }

  /** Whether `value` is one of the values. */
  has(value: Uint8Array): boolean {
    if (value.length !== this.width) return false;
    const buf = this.view;
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = buf.compare(value, 0, this.width, mid * this.width, (mid + 1) * this.width);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** The values as views into the packed bytes, in byte order. */
  values(): Uint8Array[] {
    return Array.from({ length: this.size }, (_, i) => this.bytes.subarray(i * this.width, (i + 1) * this.width));
  }
}

/** Bytes of an address and a topic. */
const ADDRESS_BYTES = 20;
const TOPIC_BYTES = 32;

/**
 * Bytes a compiled filter costs beyond its packed values: the objects around them (the filter, a
 * PackedSet and its array per position), rounded up.
 */
const COMPILED_OVERHEAD_BYTES = 512;

/** A filter compiled for matching: its values packed (PackedSet), one shared matcher however many keep it. */
export interface CompiledFilter {
  /** Null: any address. */
  addresses: PackedSet | null;
  /** Per position: null is a wildcard. */
  topics: (PackedSet | null)[];
}

/** Compiles a parsed filter's addresses and topics into packed sets. */
export function compileFilter(spec: Pick<FilterSpec, 'addresses' | 'topics'>): CompiledFilter {
  return {
    addresses: spec.addresses.length ? new PackedSet(spec.addresses, ADDRESS_BYTES) : null,
    topics: spec.topics.map((p) => (p ? new PackedSet(p, TOPIC_BYTES) : null)),
  };
}

/** The bytes `filter` keeps in memory, what a byte budget charges it (its packed values and a fixed overhead). */
export function compiledBytes(filter: CompiledFilter): number {
  let bytes = COMPILED_OVERHEAD_BYTES + (filter.addresses?.bytes.byteLength ?? 0);
  for (const p of filter.topics) bytes += p?.bytes.byteLength ?? 0;
  return bytes;
}

/**
 * The addresses and topics of `filter` again (views into its packed values, sorted, without repeats): the same matches.
 */
export function filterValues(filter: CompiledFilter): Pick<FilterSpec, 'addresses' | 'topics'> {
  return { addresses: filter.addresses?.values() ?? [], topics: filter.topics.map((p) => p?.values() ?? null) };
}

/** A digest naming the filter's matches: two filters with the same digest match the same logs (a cache key). */
export function filterDigest(filter: CompiledFilter): string {
  const h = createHash('sha256');
  h.update(filter.addresses === null ? 'any' : filter.addresses.bytes);
  for (const p of filter.topics) {
    h.update('|');
    h.update(p === null ? 'any' : p.bytes);
  }
  return h.digest('base64');
}

/** Whether `log` matches: address in the set, and every constrained topic position in its alternatives. */
export function matchLog(filter: CompiledFilter, log: Log): boolean {
  if (filter.addresses && !filter.addresses.has(log.address)) return false;
  if (filter.topics.length > log.topics.length) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    const alternatives = filter.topics[i];
    if (alternatives && !alternatives.has(log.topics[i]!)) return false;
  }
  return true;
}
