/**
 * Turns the library API's arguments (numbers, bigints, bytes, hex, tags) into the store's query
 * types through the JSON-RPC parsers, so a library call is validated exactly as the same request
 * over HTTP (the same InvalidParamsError messages).
 */
import { bytesToHex, quantityToHex } from '../chain/hex.js';
import type { BlockId } from '../chain/types.js';
import type { FilterSpec } from '../logs/filter.js';
import { InvalidParamsError } from '../rpc/errors.js';
import { parseFilter } from '../rpc/filterParams.js';
import { parseAddress, parseBlockNumberOrHash, parseHash, parseStorageKey } from '../rpc/params.js';
import type { BlockSelector, BytesLike, LogFilter } from './types.js';

/** A number or bigint as a JSON-RPC quantity; anything else passes through for the parser to judge. */
function quantity(value: unknown, name: string): unknown {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new InvalidParamsError(`${name}: ${value} is not a non-negative integer`);
    return quantityToHex(value);
  }
  if (typeof value === 'bigint') {
    if (value < 0n) throw new InvalidParamsError(`${name}: ${value} is negative`);
    return quantityToHex(value);
  }
  return value;
}

/** Bytes as 0x-hex; strings pass through. */
function hex(value: BytesLike | unknown): unknown {
  return value instanceof Uint8Array ? bytesToHex(value) : value;
}

/** Resolves a block selector as eth_getStorageAt's block argument (number, tag or hash). */
export function blockId(selector: BlockSelector): BlockId {
  return parseBlockNumberOrHash(hex(quantity(selector, 'block')), 0, 'block');
}

/** A 32-byte hash argument. */
export function hashArg(value: BytesLike, name: string): Uint8Array {
  return parseHash(hex(value), 0, name);
}

/** A 20-byte address argument. */
export function addressArg(value: BytesLike): Uint8Array {
  return parseAddress(hex(value), 0, 'address');
}

/** A storage slot argument: up to 32 bytes, left-padded (bytes, hex, or a number/bigint slot index). */
export function slotArg(value: BytesLike | number | bigint): Uint8Array {
  const raw = typeof value === 'number' || typeof value === 'bigint' ? quantity(value, 'slot') : hex(value);
  return parseStorageKey(raw, 1, 'storage position');
}

/** Parses a library filter with eth_getLogs's rules and limit on parameters. */
export function filterSpec(filter: LogFilter, maxParams: number): FilterSpec {
  const raw: Record<string, unknown> = {};
  if (filter.fromBlock !== undefined) raw.fromBlock = quantity(filter.fromBlock, 'fromBlock');
  if (filter.toBlock !== undefined) raw.toBlock = quantity(filter.toBlock, 'toBlock');
  if (filter.blockHash !== undefined) raw.blockHash = hex(filter.blockHash);
  if (filter.address !== undefined)
    raw.address = Array.isArray(filter.address) ? filter.address.map(hex) : hex(filter.address);
  if (filter.topics !== undefined) {
    raw.topics = filter.topics.map((position) => (Array.isArray(position) ? position.map(hex) : hex(position)));
  }
  return parseFilter(raw, maxParams);
}
