/**
 * Resolves a block parameter (tag, number, hash) against the store's markers, as docs/api.md §3
 * defines the tags: latest = head, earliest = first stored block, safe/finalized = stored
 * markers, pending = the stored pending block, else latest.
 */
import { tagNumber } from '../chain/tags.js';
import type { BlockBundle, BlockId } from '../chain/types.js';
import type { StoreReader } from '../store/reader.js';

/** A resolved block: a canonical number, the pending block, or nothing. */
export type ResolvedBlock = { number: number } | { pending: BlockBundle } | null;

/**
 * Resolves `ref` to a stored canonical block or the pending block; null when there is none. Reads
 * only the markers it needs (the head; earliest for a number; all of them for safe and finalized).
 */
export function resolveBlock(ref: BlockId, reader: StoreReader): ResolvedBlock {
  const head = reader.head();
  if (head === undefined) return null;
  if ('tag' in ref) {
    if (ref.tag === 'pending') {
      const pending = reader.pending();
      if (pending) return { pending };
    }
    return { number: ref.tag === 'latest' || ref.tag === 'pending' ? head : tagNumber(ref.tag, reader.meta()!) };
  }
  if ('hash' in ref) {
    const number = reader.numberByHash(ref.hash);
    return number === undefined ? null : { number };
  }
  if (ref.number > head || ref.number < reader.earliest()) return null;
  return { number: ref.number };
}
