/**
 * Binary key codecs for the LMDB databases, as encode/decode pairs. Integers are fixed-width
 * big-endian so that byte order is numeric order.
 */

/** Bytes of a block or transaction hash (a key of blockByHash and txByHash, an entry of a txHashes value). */
export const HASH_BYTES = 32;

/** Largest u64, the base of the descending block order in storage keys. */
const U64_MAX = 0xffffffffffffffffn;

/** 2^32: a u64 is written and read as two u32 words (no BigInt on the point-lookup path). */
const TWO_32 = 0x100000000;

/**
 * Writes an integer in [0, 2^64) as a big-endian u64 at `key[offset]`; otherwise throws RangeError, as
 * writeBigUInt64BE(BigInt(value)) does.
 */
function writeU64(key: Buffer, value: number, offset: number): void {
  if (!Number.isInteger(value) || value < 0 || value >= TWO_32 * TWO_32) throw new RangeError(`not a u64: ${value}`);
  key.writeUInt32BE(Math.floor(value / TWO_32), offset);
  key.writeUInt32BE(value % TWO_32, offset + 4);
}

/** Reads a big-endian u64 at `key[offset]` as a number (rounded past 2^53, as Number(bigint) rounds). */
function readU64(key: Buffer, offset: number): number {
  return key.readUInt32BE(offset) * TWO_32 + key.readUInt32BE(offset + 4);
}

/** Writes a block number into an 8-byte key buffer (hot readers reuse one) and returns it. */
export function writeBlockKey(key: Buffer, number: number): Buffer {
  writeU64(key, number, 0);
  return key;
}

/** Encodes a block number as a u64 key. */
export function encodeBlockKey(number: number): Buffer {
  return writeBlockKey(Buffer.allocUnsafe(8), number);
}

/** Decodes a u64 block-number key. */
export function decodeBlockKey(key: Uint8Array): number {
  return readU64(Buffer.from(key.buffer, key.byteOffset, 8), 0);
}

/** Writes (block number, transaction index) into a 12-byte key buffer (hot readers reuse one) and returns it. */
export function writeTxKey(key: Buffer, number: number, index: number): Buffer {
  writeU64(key, number, 0);
  key.writeUInt32BE(index, 8);
  return key;
}

/** Encodes (block number, transaction index) as a u64 ‖ u32 key. */
export function encodeTxKey(number: number, index: number): Buffer {
  return writeTxKey(Buffer.allocUnsafe(12), number, index);
}

/** Decodes a u64 ‖ u32 transaction key. */
export function decodeTxKey(key: Uint8Array): { number: number; index: number } {
  const buf = Buffer.from(key.buffer, key.byteOffset, 12);
  return { number: readU64(buf, 0), index: buf.readUInt32BE(8) };
}

/** Length of a storage key's address ‖ slot prefix. */
export const STORAGE_PREFIX_BYTES = 52;

/** Length of a storage key: address ‖ slot ‖ inverted block number. */
export const STORAGE_KEY_BYTES = 60;

/** Encodes address20 ‖ slot32 ‖ u64(2^64−1 − number): newer blocks sort first within a slot. */
export function encodeStorageKey(address: Uint8Array, slot: Uint8Array, number: number): Buffer {
  return writeStorageKey(Buffer.allocUnsafe(STORAGE_KEY_BYTES), address, slot, number);
}

/** Writes the storage key of `address`, `slot` and block `number` (encodeStorageKey) into `key`, and returns it. */
export function writeStorageKey(key: Buffer, address: Uint8Array, slot: Uint8Array, number: number): Buffer {
  key.set(address, 0);
  key.set(slot, 20);
  writeU64(key, number, STORAGE_PREFIX_BYTES);
  for (let i = STORAGE_PREFIX_BYTES; i < STORAGE_KEY_BYTES; i++) key[i] = 255 - key[i]!;
  return key;
}

/** The last 8 bytes of block `number`'s storage keys: u64(2^64−1 − number). */
export function storageKeySuffix(number: number): Buffer {
  const suffix = Buffer.allocUnsafe(8);
  writeU64(suffix, number, 0);
  for (let i = 0; i < 8; i++) suffix[i] = 255 - suffix[i]!;
  return suffix;
}

/** Decodes a storage key into address, slot and block number. */
export function decodeStorageKey(key: Uint8Array): { address: Uint8Array; slot: Uint8Array; number: number } {
  const buf = Buffer.from(key.buffer, key.byteOffset, 60);
  return {
    address: new Uint8Array(buf.subarray(0, 20)),
    slot: new Uint8Array(buf.subarray(20, 52)),
    number: Number(U64_MAX - buf.readBigUInt64BE(52)),
  };
}

/** Encodes (bloom bit 0..2047, segment number) as a u16 ‖ u32 bloomBits key: one bit's rows are contiguous. */
export function encodeBloomBitsKey(bit: number, segment: number): Buffer {
  const key = Buffer.allocUnsafe(6);
  key.writeUInt16BE(bit, 0);
  key.writeUInt32BE(segment, 2);
  return key;
}

/** Decodes a bloomBits key. */
export function decodeBloomBitsKey(key: Uint8Array): { bit: number; segment: number } {
  const buf = Buffer.from(key.buffer, key.byteOffset, 6);
  return { bit: buf.readUInt16BE(0), segment: buf.readUInt32BE(2) };
}

/** Encodes address20 ‖ u32 segment: the key of the per-segment address index. */
export function encodeAddressSegmentKey(address: Uint8Array, segment: number): Buffer {
  const key = Buffer.allocUnsafe(24);
  key.set(address, 0);
  key.writeUInt32BE(segment, 20);
  return key;
}

/** Decodes an address-index key. */
export function decodeAddressSegmentKey(key: Uint8Array): { address: Uint8Array; segment: number } {
  const buf = Buffer.from(key.buffer, key.byteOffset, 24);
  return { address: new Uint8Array(buf.subarray(0, 20)), segment: buf.readUInt32BE(20) };
}
