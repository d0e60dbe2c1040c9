/**
 * Ethereum's recursive length prefix (RLP) encoding. An item is encoded into one buffer of its
 * exact length (lengths first, then the bytes), so encoding a transaction or a header allocates once.
 */

import { bigIntToBytes } from './hex.js';

/** An RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];

function lengthOfLength(length: number): number {
  let n = 0;
  for (let l = length; l > 0; l = Math.floor(l / 256)) n++;
  return n;
}

/** Bytes of the prefix that RLP puts before a string or list body of `length` bytes. */
export function rlpPrefixLength(length: number): number {
  return length < 56 ? 1 : 1 + lengthOfLength(length);
}

/** Encoded length of a byte string (a single byte below 0x80 encodes as itself). */
export function rlpStringLength(bytes: Uint8Array): number {
  if (bytes.length === 1 && bytes[0]! < 0x80) return 1;
  return rlpPrefixLength(bytes.length) + bytes.length;
}

/** Encoded length of an item, without encoding it. */
export function rlpEncodedLength(item: RlpItem): number {
  if (item instanceof Uint8Array) return rlpStringLength(item);
  let body = 0;
  for (const child of item) body += rlpEncodedLength(child);
  return rlpPrefixLength(body) + body;
}

function writePrefix(out: Uint8Array, pos: number, length: number, offset: number): number {
  if (length < 56) {
    out[pos] = offset + length;
    return pos + 1;
  }
  const n = lengthOfLength(length);
  out[pos] = offset + 55 + n;
  for (let i = n, l = length; i >= 1; i--, l = Math.floor(l / 256)) out[pos + i] = l % 256;
  return pos + 1 + n;
}

function writeItem(item: RlpItem, out: Uint8Array, pos: number): number {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[pos] = item[0]!;
      return pos + 1;
    }
    pos = writePrefix(out, pos, item.length, 0x80);
    out.set(item, pos);
    return pos + item.length;
  }
  let body = 0;
  for (const child of item) body += rlpEncodedLength(child);
  pos = writePrefix(out, pos, body, 0xc0);
  for (const child of item) pos = writeItem(child, out, pos);
  return pos;
}

/** Encodes an RLP item (Ethereum's recursive length prefix). */
export function rlpEncode(item: RlpItem): Uint8Array {
  const out = new Uint8Array(rlpEncodedLength(item));
  writeItem(item, out, 0);
  return out;
}

/** Encodes `item` after the bytes of `lead` in one buffer (lead ‖ rlp(item), as typed transaction envelopes are). */
export function rlpEncodeAfter(lead: Uint8Array, item: RlpItem): Uint8Array {
  const out = new Uint8Array(lead.length + rlpEncodedLength(item));
  out.set(lead, 0);
  writeItem(item, out, lead.length);
  return out;
}

/** Builds an RLP list from items that are already RLP-encoded (their bytes are copied as they are). */
export function rlpListFromEncoded(parts: Uint8Array[]): Uint8Array {
  let body = 0;
  for (const p of parts) body += p.length;
  const out = new Uint8Array(rlpPrefixLength(body) + body);
  let pos = writePrefix(out, 0, body, 0xc0);
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

const EMPTY = new Uint8Array(0);
const SMALL: Uint8Array[] = Array.from({ length: 256 }, (_, i) => (i === 0 ? EMPTY : Uint8Array.of(i)));

/**
 * A non-negative integer as RLP wants it: minimal big-endian bytes, empty for zero (values below 256 share cached
 * arrays: do not mutate).
 */
export function rlpUint(value: number | bigint): Uint8Array {
  if (typeof value === 'bigint') {
    if (value < 0n) throw new RangeError('RLP integers are non-negative');
    if (value <= 0x1fffffffffffffn) return rlpUint(Number(value));
    return bigIntToBytes(value);
  }
  if (value < 256) return SMALL[value]!;
  const n = lengthOfLength(value);
  const out = new Uint8Array(n);
  for (let i = n - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}
