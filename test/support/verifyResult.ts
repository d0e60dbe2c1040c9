/**
 * The part of a verify result a whole-store assertion compares: the block count and the problems (the mark and the
 * first block checked vary with the store).
 */
import type { VerifyResult } from '#src/store/verify.js';

/** `result`'s block count and problems. */
export function pick(result: VerifyResult): { blocks: number; problems: string[] } {
  return { blocks: result.blocks, problems: result.problems };
}
