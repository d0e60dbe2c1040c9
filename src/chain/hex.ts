/**
 * The one module that converts between wire types (0x-prefixed hex strings) and stored types
 * (bytes, numbers, bigints). Parsers return `undefined` on malformed input so callers can name
 * the parameter in their error; formatters never fail.
 */

const HEX_QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const NODE_QUANTITY = /^0x[0-9a-fA-F]*$/;

/** Renders bytes as lower-case 0x-prefixed hex data. */
export function bytesToHex(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Renders a non-negative integer as a hex quantity without leading zeros (`0x0` for zero). */
export function quantityToHex(value: number | bigint): string {
  return '0x' + value.toString(16);
}

/** Renders minimal big-endian bytes (as stored) as a hex quantity. */
export function bytesQuantityToHex(bytes: Uint8Array): string {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return '0x0';
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset + i, bytes.byteLength - i).toString('hex');
  return hex[0] === '0' ? '0x' + hex.slice(1) : '0x' + hex;
}

/** The value of each ASCII hex digit (either case), -1 for every other character code below 128. */
const HEX_DIGIT_VALUES = (() => {
  const values = new Int8Array(128).fill(-1);
  for (let d = 0; d < 16; d++) {
    const digit = d.toString(16);
    values[digit.charCodeAt(0)] = d;
    values[digit.toUpperCase().charCodeAt(0)] = d;
  }
  return values;
})();

/** The value of the hex digit at `i` of `text`, -1 when it is not one. */
function hexDigitAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 128 ? HEX_DIGIT_VALUES[code]! : -1;
}

/**
 * Parses 0x-prefixed hex data of even length; with `length`, requires exactly that many bytes. One
 * pass over a digit table: request parameters (hashes, addresses, topics) are parsed on every call,
 * where a pattern test and a Buffer cost several times as much.
 */
export function hexToBytes(hex: unknown, length?: number): Uint8Array | undefined {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !hex.startsWith('0x')) return undefined;
  if (length !== undefined && hex.length !== 2 + 2 * length) return undefined;
  const out = new Uint8Array((hex.length - 2) / 2);
  for (let i = 2, j = 0; i < hex.length; i += 2, j++) {
    const high = hexDigitAt(hex, i);
    const low = hexDigitAt(hex, i + 1);
    if ((high | low) < 0) return undefined;
    out[j] = (high << 4) | low;
  }
  return out;
}

/**
 * Parses `length` bytes or fewer of hex digits (no prefix, either case, odd count allowed) into
 * `length` bytes, left-padded with zeros; undefined when a character is not a hex digit, or when
 * there are more digits than `length` bytes hold (checked in that order).
 */
export function hexDigitsToPadded(digits: string, from: number, length: number): Uint8Array | undefined {
  for (let i = from; i < digits.length; i++) if (hexDigitAt(digits, i) < 0) return undefined;
  const count = digits.length - from;
  if (count > 2 * length) return undefined;
  const out = new Uint8Array(length);
  // From the last digit back: a byte takes two digits, the first byte of an odd count one.
  for (let i = digits.length - 1, j = length - 1; i >= from; i -= 2, j--) {
    const low = hexDigitAt(digits, i);
    const high = i - 1 >= from ? hexDigitAt(digits, i - 1) : 0;
    out[j] = (high << 4) | low;
  }
  return out;
}

/** Parses a geth-style hex quantity (`0x0`, `0x1a`; no `0x`, no leading zeros) into a bigint. */
export function hexToBigInt(hex: unknown): bigint | undefined {
  if (typeof hex !== 'string' || !HEX_QUANTITY.test(hex)) return undefined;
  return BigInt(hex);
}

/**
 * Parses a hex quantity as upstream nodes write it: `0x` and leading zeros tolerated (some clients
 * pad quantities), anything else malformed. For ingest, never for request parameters.
 */
export function nodeQuantityToBigInt(hex: unknown): bigint | undefined {
  if (typeof hex !== 'string' || !NODE_QUANTITY.test(hex)) return undefined;
  return hex.length === 2 ? 0n : BigInt(hex);
}

/** Parses a hex quantity that must fit in a safe integer (block numbers, indexes). */
export function hexToNumber(hex: unknown): number | undefined {
  const value = hexToBigInt(hex);
  if (value === undefined || value > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(value);
}

/** The buffer uintBytesView writes into, its end aligned to 64-bit limbs; grown when a value needs more. */
let uintScratch = new Uint8Array(32);
let uintScratchView = new DataView(uintScratch.buffer);

/**
 * The minimal big-endian bytes of a non-negative bigint (empty for zero), as a view of one buffer
 * every call shares: copy them before the next call. Written 64 bits at a time (a third faster for
 * a 256-bit signature word than its hex text, and no string); the one codec of the integer fields
 * the store, RLP and bigIntToBytes write.
 */
export function uintBytesView(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('a negative integer has no unsigned bytes');
  let end = uintScratch.length;
  for (let v = value; v > 0n; v >>= 64n) {
    if (end === 0) {
      const grown = new Uint8Array(uintScratch.length * 2);
      grown.set(uintScratch, uintScratch.length);
      end = uintScratch.length;
      uintScratch = grown;
      uintScratchView = new DataView(grown.buffer);
    }
    end -= 8;
    uintScratchView.setBigUint64(end, BigInt.asUintN(64, v));
  }
  while (end < uintScratch.length && uintScratch[end] === 0) end++;
  return uintScratch.subarray(end);
}

/** Encodes a non-negative bigint as minimal big-endian bytes (empty for zero), the stored form. */
export function bigIntToBytes(value: bigint): Uint8Array {
  return new Uint8Array(uintBytesView(value));
}

/** Decodes big-endian bytes into a bigint. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  return BigInt(bytesToHex(bytes));
}

/** Left-pads bytes with zeros to `length` (used for storage slots and 32-byte values). */
export function padLeft(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.length >= length) return bytes;
  const out = new Uint8Array(length);
  out.set(bytes, length - bytes.length);
  return out;
}

/** The bytes after any leading zero bytes, as a view of `bytes` (padLeft's inverse for a value's width). */
export function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

/**
 * Orders two byte arrays as Buffer.compare does (bytewise, then the shorter first): −1, 0 or 1, without a native call
 * (cheaper for addresses and topics).
 */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Compares two byte arrays for equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}
