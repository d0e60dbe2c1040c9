/**
 * Parameter parsing as geth does it: hex quantities without leading zeros, fixed-length addresses
 * and hashes, block tags, EIP-1898 block objects, storage keys up to 32 bytes. Every rejection is
 * an InvalidParamsError whose message names the argument.
 */
import { hexDigitsToPadded, hexToBigInt, hexToBytes } from '../chain/hex.js';
import { isBlockTag } from '../chain/tags.js';
import type { BlockId } from '../chain/types.js';
import { InvalidParamsError } from './errors.js';

/** Largest block number geth accepts (int64); larger ones are rejected, smaller unknown ones are not found. */
const MAX_BLOCK_NUMBER = (1n << 63n) - 1n;

/** Builds the error geth gives for argument `index`, naming the parameter. */
export function argError(index: number, name: string, reason: string): InvalidParamsError {
  return new InvalidParamsError(`invalid argument ${index} (${name}): ${reason}`);
}

/**
 * geth's hexutil takes `0X` as a prefix too; the codecs of chain/hex.ts take `0x` only, so wire
 * arguments are brought to `0x` first.
 */
export function lowerHexPrefix(value: unknown): unknown {
  return typeof value === 'string' && value.startsWith('0X') ? '0x' + value.slice(2) : value;
}

function describeHexFailure(value: unknown, quantity: boolean): string {
  if (typeof value !== 'string') return `expected a hex string, got ${value === null ? 'null' : typeof value}`;
  if (value === '') return 'empty hex string';
  if (!value.startsWith('0x') && !value.startsWith('0X')) return 'hex string without 0x prefix';
  if (quantity && value.length === 2) return 'hex string "0x"';
  if (!/^0[xX][0-9a-fA-F]+$/.test(value)) return 'invalid hex string';
  if (quantity && value[2] === '0') return 'hex number with leading zero digits';
  if (!quantity) return 'hex string of odd length';
  return 'invalid hex string';
}

/** Parses a hex quantity argument into a bigint (at most `bits` wide). */
export function parseQuantity(value: unknown, index: number, name: string, bits = 64): bigint {
  const n = hexToBigInt(lowerHexPrefix(value));
  if (n === undefined) throw argError(index, name, describeHexFailure(value, true));
  if (n >= 1n << BigInt(bits)) throw argError(index, name, `hex number > ${bits} bits`);
  return n;
}

/** Parses a 0x-prefixed byte string of exactly `length` bytes (addresses, hashes). */
export function parseFixedBytes(value: unknown, length: number, index: number, name: string): Uint8Array {
  const bytes = hexToBytes(lowerHexPrefix(value), length);
  if (bytes !== undefined) return bytes;
  const any = hexToBytes(value === '' ? '0x' : lowerHexPrefix(value));
  if (any === undefined) throw argError(index, name, describeHexFailure(value, false));
  throw argError(index, name, `hex string has length ${any.length * 2}, want ${length * 2}`);
}

/** Parses a 20-byte address. */
export function parseAddress(value: unknown, index: number, name = 'address'): Uint8Array {
  return parseFixedBytes(value, 20, index, name);
}

/** Parses a 32-byte hash. */
export function parseHash(value: unknown, index: number, name = 'hash'): Uint8Array {
  return parseFixedBytes(value, 32, index, name);
}

/** Parses a block number or tag (geth's rpc.BlockNumber). */
export function parseBlockNumber(value: unknown, index: number, name = 'block parameter'): BlockId {
  if (isBlockTag(value)) return { tag: value };
  const n = hexToBigInt(lowerHexPrefix(value));
  if (n === undefined) throw argError(index, name, describeHexFailure(value, true));
  if (n >= 1n << 64n) throw argError(index, name, 'hex number > 64 bits');
  if (n > MAX_BLOCK_NUMBER) throw argError(index, name, 'block number larger than int64');
  return { number: n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n) };
}

/**
 * Parses a block number, tag, hash or EIP-1898 object (geth's rpc.BlockNumberOrHash): a 32-byte
 * hash string, `{blockHash, requireCanonical?}` or `{blockNumber}`.
 */
export function parseBlockNumberOrHash(value: unknown, index: number, name = 'block parameter'): BlockId {
  if (typeof value === 'string' && value.length === 66)
    return { hash: parseHash(value, index, name), requireCanonical: false };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const hasHash = obj.blockHash !== undefined;
    const hasNumber = obj.blockNumber !== undefined;
    if (hasHash && hasNumber)
      throw argError(index, name, 'cannot specify both BlockHash and BlockNumber, choose one or the other');
    if (hasHash) {
      const rc = obj.requireCanonical;
      if (rc !== undefined && typeof rc !== 'boolean')
        throw argError(index, name, 'requireCanonical must be a boolean');
      return { hash: parseHash(obj.blockHash, index, name), requireCanonical: rc === true };
    }
    if (hasNumber) return parseBlockNumber(obj.blockNumber, index, name);
    throw argError(index, name, 'block object needs blockHash or blockNumber');
  }
  return parseBlockNumber(value, index, name);
}

/**
 * Parses a storage position as geth's decodeHash does: optional 0x, odd length allowed,
 * at most 32 bytes, left-padded to 32.
 */
export function parseStorageKey(value: unknown, index: number, name = 'storage position'): Uint8Array {
  if (typeof value !== 'string')
    throw argError(index, name, `expected a hex string, got ${value === null ? 'null' : typeof value}`);
  const from = value.startsWith('0x') || value.startsWith('0X') ? 2 : 0;
  const word = hexDigitsToPadded(value, from, 32);
  if (word !== undefined) return word;
  if (hexDigitsToPadded(value, from, value.length) === undefined)
    throw argError(index, name, 'unable to decode storage key: hex string invalid');
  throw argError(index, name, 'unable to decode storage key: hex string too long, want at most 32 bytes');
}

/** Parses a boolean argument. */
export function parseBool(value: unknown, index: number, name: string): boolean {
  if (typeof value !== 'boolean')
    throw argError(index, name, `expected a boolean, got ${value === null ? 'null' : typeof value}`);
  return value;
}

/**
 * Checks the positional argument count as geth does: at most `max`, at least `required`
 * (trailing optional arguments may be missing or null). With `names` (one per position), a missing
 * argument's message names it as every other argument error does.
 */
export function checkArity(params: unknown[], required: number, max: number, names: readonly string[] = []): void {
  if (params.length > max) throw new InvalidParamsError(`too many arguments, want at most ${max}`);
  for (let i = 0; i < required; i++) {
    if (params[i] === undefined || params[i] === null) {
      const missing = `missing value for required argument ${i}`;
      throw names[i] === undefined ? new InvalidParamsError(missing) : argError(i, names[i]!, missing);
    }
  }
}
