/**
 * The block tags and the canonical block each names among the chain markers (docs/api.md §3):
 * earliest = first stored block, safe and finalized = their stored markers, latest (and pending,
 * where no pending block is asked for) = head.
 */
import type { BlockTag, ChainMeta } from './types.js';

/** Every block tag, in the order the docs list them. */
export const BLOCK_TAGS: readonly BlockTag[] = ['latest', 'earliest', 'pending', 'safe', 'finalized'];

/** Whether `value` is a block tag. */
export function isBlockTag(value: unknown): value is BlockTag {
  return typeof value === 'string' && (BLOCK_TAGS as readonly string[]).includes(value);
}

/** The canonical number a tag names (pending maps to latest here). */
export function tagNumber(tag: BlockTag, meta: ChainMeta): number {
  switch (tag) {
    case 'earliest':
      return meta.earliest;
    case 'safe':
      return meta.safe;
    case 'finalized':
      return meta.finalized;
    default:
      return meta.head;
  }
}
