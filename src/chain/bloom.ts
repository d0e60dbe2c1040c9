import { keccak256 } from './keccak.js';

/** Size of Ethereum's logsBloom in bytes (2048 bits). */
export const BLOOM_BYTES = 256;

/** The three bloom bit positions (0..2047, Ethereum numbering) that `value` sets. */
export function bloomBits(value: Uint8Array): [number, number, number] {
  const h = keccak256(value);
  return [((h[0]! << 8) | h[1]!) & 2047, ((h[2]! << 8) | h[3]!) & 2047, ((h[4]! << 8) | h[5]!) & 2047];
}

/** Sets bit `b` (Ethereum numbering) in a 256-byte bloom: bit (b & 7) of byte 255 − (b >> 3). */
export function setBloomBit(bloom: Uint8Array, b: number): void {
  bloom[255 - (b >> 3)]! |= 1 << (b & 7);
}

/** Tests bit `b` (Ethereum numbering) of a 256-byte bloom. */
export function testBloomBit(bloom: Uint8Array, b: number): boolean {
  return (bloom[255 - (b >> 3)]! & (1 << (b & 7))) !== 0;
}

/** Adds `value` (an address or a topic) to `bloom`. */
export function bloomAdd(bloom: Uint8Array, value: Uint8Array): void {
  for (const b of bloomBits(value)) setBloomBit(bloom, b);
}

/** Whether `bloom` may contain `value` (false positives possible, no false negatives). */
export function bloomMayContain(bloom: Uint8Array, value: Uint8Array): boolean {
  for (const b of bloomBits(value)) if (!testBloomBit(bloom, b)) return false;
  return true;
}

/** The logsBloom of a list of logs: the OR over each log's address and topics. */
export function logsBloom(logs: Iterable<{ address: Uint8Array; topics: Uint8Array[] }>): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address);
    for (const topic of log.topics) bloomAdd(bloom, topic);
  }
  return bloom;
}
