/**
 * The eth_getLogs filter object of the wire, parsed and validated in geth's order
 * (docs/architecture.md §4) into the log engine's typed FilterSpec, with geth's messages naming
 * what is wrong.
 */
import { hexToBytes } from '../chain/hex.js';
import type { BlockId } from '../chain/types.js';
import { checkParamCount, checkTopicPositions, type FilterSpec } from '../logs/filter.js';
import { InvalidParamsError } from './errors.js';
import { lowerHexPrefix, parseBlockNumber, parseHash } from './params.js';

const LATEST: BlockId = { tag: 'latest' };

function fail(reason: string): InvalidParamsError {
  return new InvalidParamsError(`invalid argument 0: ${reason}`);
}

/** The filter's fields as geth's JSON names them. */
const FILTER_FIELDS = new Set(['blockHash', 'fromBlock', 'toBlock', 'address', 'topics']);

/**
 * Go's encoding/json matches field names case-insensitively: so does this. `exact`: every key of
 * `obj` is spelled as FILTER_FIELDS spell it (what clients send), so a field not found is absent.
 */
function field(obj: Record<string, unknown>, name: string, exact: boolean): unknown {
  if (name in obj || exact) return obj[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(obj)) if (key.toLowerCase() === lower) return obj[key];
  return undefined;
}

/** Whether every key of `obj` is one of FILTER_FIELDS, spelled as there. */
function exactFields(obj: Record<string, unknown>): boolean {
  for (const key in obj) if (!FILTER_FIELDS.has(key)) return false;
  return true;
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

/**
 * Parses eth_getLogs' filter object: structure and types first, then topic positions, addresses,
 * the topic positions' limit, blockHash with a range, and the parameter limit (TooManyTopicsError,
 * TooManyParamsError; the other refusals are InvalidParamsErrors). A range's from > to needs the
 * chain: resolveRange refuses it.
 */
export function parseFilter(raw: unknown, maxParams: number): FilterSpec {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fail('filter must be an object');
  const obj = raw as Record<string, unknown>;
  const exact = exactFields(obj);
  const rawHash = field(obj, 'blockHash', exact);
  const rawFrom = field(obj, 'fromBlock', exact);
  const rawTo = field(obj, 'toBlock', exact);
  const blockHash = rawHash === undefined || rawHash === null ? undefined : parseHash(rawHash, 0, 'blockHash');
  const fromBlock = rawFrom === undefined || rawFrom === null ? LATEST : parseBlockNumber(rawFrom, 0, 'fromBlock');
  const toBlock = rawTo === undefined || rawTo === null ? LATEST : parseBlockNumber(rawTo, 0, 'toBlock');
  const topics = parseTopics(field(obj, 'topics', exact));
  const addresses = parseAddresses(field(obj, 'address', exact));
  checkTopicPositions(topics);
  if (blockHash && ((rawFrom !== undefined && rawFrom !== null) || (rawTo !== undefined && rawTo !== null))) {
    throw fail('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
  }
  const spec: FilterSpec = { fromBlock, toBlock, addresses, topics };
  if (blockHash) spec.blockHash = blockHash;
  checkParamCount(spec, maxParams);
  return spec;
}
