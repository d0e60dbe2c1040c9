/**
 * The eth_getLogs filter object: parsed and validated in geth's order (DESIGN.md §4.1), then
 * compiled into a matcher.
 */
import { hexToBytes } from '../chain/hex.js';
import type { Log } from '../chain/types.js';
import { MAX_TOPIC_POSITIONS } from '../config.js';
import { InvalidParamsError, LimitExceededError } from '../rpc/errors.js';
import { lowerHexPrefix, parseBlockNumber, parseHash, type BlockRef } from '../rpc/params.js';

/** A parsed filter: either a block hash or a range (tags unresolved), plus addresses and topics. */
export interface FilterSpec {
  blockHash?: Uint8Array;
  fromBlock: BlockRef;
  toBlock: BlockRef;
  /** Empty: any address. */
  addresses: Uint8Array[];
  /** Per position: null is a wildcard, otherwise the alternatives (OR). */
  topics: (Uint8Array[] | null)[];
}

const LATEST: BlockRef = { tag: 'latest' };

function fail(reason: string): InvalidParamsError {
  return new InvalidParamsError(`invalid argument 0: ${reason}`);
}

/** Go's encoding/json matches field names case-insensitively: so does this. */
function field(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(obj)) if (key.toLowerCase() === lower) return obj[key];
  return undefined;
}

/** Why geth's hexutil.Decode refuses `value` (its checks in its order). */
function decodeFailure(value: string): string {
  if (value === '') return 'empty hex string';
  if (!value.startsWith('0x') && !value.startsWith('0X')) return 'hex string without 0x prefix';
  if (!/^0[xX][0-9a-fA-F]*$/.test(value)) return 'invalid hex string';
  return 'hex string of odd length';
}

function decodeAddress(value: string): Uint8Array | string {
  const bytes = hexToBytes(lowerHexPrefix(value));
  if (bytes === undefined) return decodeFailure(value);
  if (bytes.length !== 20) return `hex has invalid length ${bytes.length} after decoding; expected 20 for address`;
  return bytes;
}

function decodeTopic(value: unknown): Uint8Array {
  if (typeof value !== 'string') throw fail('invalid topic(s)');
  const bytes = hexToBytes(lowerHexPrefix(value));
  if (bytes === undefined) throw fail(`invalid topic(s): ${decodeFailure(value)}`);
  if (bytes.length !== 32) throw fail(`hex has invalid length ${bytes.length} after decoding; expected 32 for topic`);
  return bytes;
}

function parseAddresses(raw: unknown): Uint8Array[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') {
    const a = decodeAddress(raw);
    if (typeof a === 'string') throw fail(`invalid address: ${a}`);
    return [a];
  }
  if (!Array.isArray(raw)) throw fail('invalid addresses in query');
  return raw.map((item, i) => {
    if (typeof item !== 'string') throw fail(`non-string address at index ${i}`);
    const a = decodeAddress(item);
    if (typeof a === 'string') throw fail(`invalid address at index ${i}: ${a}`);
    return a;
  });
}

function parseTopics(raw: unknown): (Uint8Array[] | null)[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw fail('invalid topic(s)');
  return raw.map((position): Uint8Array[] | null => {
    if (position === null) return null;
    if (typeof position === 'string') return [decodeTopic(position)];
    if (!Array.isArray(position)) throw fail('invalid topic(s)');
    const alternatives: Uint8Array[] = [];
    for (const alt of position) {
      if (alt === null) return null;
      alternatives.push(decodeTopic(alt));
    }
    return alternatives.length === 0 ? null : alternatives;
  });
}

/** Counts what SPEC.md §8 calls parameters: addresses plus topic values. */
export function countFilterParams(spec: FilterSpec): number {
  let n = spec.addresses.length;
  for (const p of spec.topics) n += p ? p.length : 0;
  return n;
}

/**
 * Parses eth_getLogs' filter object: structure and types first, then topic positions, addresses,
 * blockHash with a range, and the parameter limit. (from > to needs the chain, see the planner.)
 */
export function parseFilter(raw: unknown, maxParams: number): FilterSpec {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fail('filter must be an object');
  const obj = raw as Record<string, unknown>;
  const rawHash = field(obj, 'blockHash');
  const rawFrom = field(obj, 'fromBlock');
  const rawTo = field(obj, 'toBlock');
  const blockHash = rawHash === undefined || rawHash === null ? undefined : parseHash(rawHash, 0, 'blockHash');
  const fromBlock = rawFrom === undefined || rawFrom === null ? LATEST : parseBlockNumber(rawFrom, 0, 'fromBlock');
  const toBlock = rawTo === undefined || rawTo === null ? LATEST : parseBlockNumber(rawTo, 0, 'toBlock');
  const topics = parseTopics(field(obj, 'topics'));
  const addresses = parseAddresses(field(obj, 'address'));
  if (topics.length > MAX_TOPIC_POSITIONS) throw new InvalidParamsError('exceed max topics');
  if (blockHash && ((rawFrom !== undefined && rawFrom !== null) || (rawTo !== undefined && rawTo !== null))) {
    throw fail('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
  }
  const spec: FilterSpec = { fromBlock, toBlock, addresses, topics };
  if (blockHash) spec.blockHash = blockHash;
  if (countFilterParams(spec) > maxParams) throw new LimitExceededError(`query exceeds ${maxParams} parameters`);
  return spec;
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
