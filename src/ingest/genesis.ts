/**
 * The storage a chain starts with: the `alloc` of a geth-style genesis.json. Block 0 has no
 * transactions, so no trace can give its storage; the genesis file does.
 */
import { hexToBytes, padLeft } from '../chain/hex.js';
import type { StorageWrite } from '../chain/types.js';
import { NodeDataError } from './errors.js';

/** Bytes of a genesis hex string: `0x` optional (geth writes alloc keys without it), odd length padded. */
function genesisHex(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string') return undefined;
  const digits = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  return hexToBytes('0x' + (digits.length % 2 ? '0' : '') + digits.toLowerCase());
}

/** The non-zero storage words of a genesis file's `alloc` (`{address: {storage: {slot: value}}}`), in file order. */
export function genesisStorage(genesis: unknown, where = 'genesis'): StorageWrite[] {
  const bad = (what: string): never => {
    throw new NodeDataError('malformed', `${where}: ${what}`);
  };
  if (typeof genesis !== 'object' || genesis === null || Array.isArray(genesis)) bad('not a JSON object');
  const alloc = (genesis as Record<string, unknown>).alloc;
  if (alloc === undefined) return [];
  if (typeof alloc !== 'object' || alloc === null || Array.isArray(alloc)) bad('alloc is not an object');
  const writes: StorageWrite[] = [];
  for (const [account, entry] of Object.entries(alloc as Record<string, unknown>)) {
    const address = genesisHex(account);
    if (address === undefined || address.length !== 20) bad(`alloc key ${account} is not a 20-byte address`);
    const storage = (entry as Record<string, unknown> | null)?.storage;
    if (storage === undefined || storage === null) continue;
    if (typeof storage !== 'object' || Array.isArray(storage)) bad(`alloc[${account}].storage is not an object`);
    for (const [slotText, valueText] of Object.entries(storage as Record<string, unknown>)) {
      const slot = genesisHex(slotText);
      const value = genesisHex(valueText);
      if (slot === undefined || slot.length > 32)
        bad(`alloc[${account}].storage key ${slotText} is not a storage slot`);
      if (value === undefined || value.length > 32) bad(`alloc[${account}].storage[${slotText}] is not a 32-byte word`);
      if (value!.every((b) => b === 0)) continue;
      writes.push({ address: address!, slot: padLeft(slot!, 32), value: padLeft(value!, 32) });
    }
  }
  return writes;
}
