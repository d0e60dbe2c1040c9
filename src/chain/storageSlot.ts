/**
 * Solidity's storage layout for mappings: the value of `mapping[key]` declared at slot `p` lives at
 * keccak256(pad32(key) ‖ pad32(p)); a nested mapping applies the rule again with the outer slot.
 */
import { keccak256 } from './keccak.js';

/** A slot number as the 32-byte big-endian word the EVM uses as a storage key. */
export function slotWord(slot: bigint): Uint8Array {
  if (slot < 0n || slot >= 1n << 256n) throw new RangeError('a storage slot is a 256-bit unsigned integer');
  const out = new Uint8Array(32);
  let v = slot;
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

/** The storage slot of `mapping[key]` for a mapping declared at `slot` (key left-padded to 32 bytes). */
export function mappingSlot(key: Uint8Array, slot: bigint): Uint8Array {
  return mappingSlotAt(key, slotWord(slot));
}

/** The storage slot of `mapping[key]` for a mapping whose own slot is the 32-byte word `slot` (nested mappings). */
export function mappingSlotAt(key: Uint8Array, slot: Uint8Array): Uint8Array {
  if (key.length > 32 || slot.length !== 32)
    throw new RangeError('mapping keys are at most 32 bytes, slots exactly 32');
  const preimage = new Uint8Array(64);
  preimage.set(key, 32 - key.length);
  preimage.set(slot, 32);
  return keccak256(preimage);
}
