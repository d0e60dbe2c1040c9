import { keccak_256 } from '@noble/hashes/sha3.js';

/** Ethereum's keccak-256 of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}
