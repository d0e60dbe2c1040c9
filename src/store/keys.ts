/**
 * Binary key codecs for the LMDB databases, as encode/decode pairs. Integers are fixed-width
 * big-endian so that byte order is numeric order.
 */

/** Largest u64, the base of the descending block order in storage keys. */
const U64_MAX = 0xffffffffffffffffn;

/** Encodes a block number as a u64 key. */
export function encodeBlockKey(number: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeBigUInt64BE(BigInt(number));
  return key;
}

/** Decodes a u64 block-number key. */
export function decodeBlockKey(key: Uint8Array): number {
  return Number(Buffer.from(key.buffer, key.byteOffset, 8).readBigUInt64BE(0));
}

/** Encodes (block number, transaction index) as a u64 ‖ u32 key. */
export function encodeTxKey(number: number, index: number): Buffer {
  const key = Buffer.allocUnsafe(12);
  key.writeBigUInt64BE(BigInt(number));
  key.writeUInt32BE(index, 8);
  return key;
}

/** Decodes a u64 ‖ u32 transaction key. */
export function decodeTxKey(key: Uint8Array): { number: number; index: number } {
  const buf = Buffer.from(key.buffer, key.byteOffset, 12);
  return { number: Number(buf.readBigUInt64BE(0)), index: buf.readUInt32BE(8) };
}

/** Length of a storage key's address ‖ slot prefix. */
export const STORAGE_PREFIX_BYTES = 52;

/** Encodes address20 ‖ slot32 ‖ u64(2^64−1 − number): newer blocks sort first within a slot. */
export function encodeStorageKey(address: Uint8Array, slot: Uint8Array, number: number): Buffer {
  const key = Buffer.allocUnsafe(60);
  key.set(address, 0);
  key.set(slot, 20);
  key.writeBigUInt64BE(U64_MAX - BigInt(number), 52);
  return key;
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
