/**
 * Resolves an eth_getLogs filter's block selection once, at the start of a query (a consistent
 * snapshot: the head does not move mid-query), refusing the ranges geth refuses (errors.ts).
 */
import { tagNumber } from '../chain/tags.js';
import type { BlockBundle, BlockId } from '../chain/types.js';
import type { StoreReader } from '../store/reader.js';
import { RangeBeyondHeadError, RangeInvertedError } from './errors.js';
import type { FilterSpec } from './filter.js';

/**
 * What a query scans: canonical blocks [from, to] (empty when from > to), and maybe the pending block or one orphan.
 */
export interface ResolvedRange {
  from: number;
  to: number;
  /** The pending block's logs follow the range (toBlock `pending` with a stored pending block). */
  pending?: BlockBundle;
  /** A reorganised-out block selected by blockHash: its logs answer with removed: true. */
  orphan?: BlockBundle;
  /** The head the range was resolved against, when it was read (not for a block hash). */
  head?: number;
}

const EMPTY: ResolvedRange = { from: 1, to: 0 };

/**
 * The block a range endpoint names: a number as given, a tag read from the store's markers (pending is `head + 1` when
 * a pending block is stored).
 */
function endpoint(ref: BlockId, head: number, reader: StoreReader, hasPending: boolean): number {
  if (!('tag' in ref)) return (ref as { number: number }).number;
  switch (ref.tag) {
    case 'latest':
      return head;
    case 'pending':
      return hasPending ? head + 1 : head;
    case 'earliest':
      return reader.earliest();
    default:
      return tagNumber(ref.tag, reader.meta()!);
  }
}

/**
 * Resolves the filter's blocks against the store's current markers, reading only those it needs
 * (a block hash reads no marker; a range the head and the earliest block).
 */
export function resolveRange(spec: FilterSpec, reader: StoreReader): ResolvedRange {
  if (spec.blockHash) {
    const number = reader.numberByHash(spec.blockHash);
    if (number !== undefined) return { from: number, to: number };
    const orphan = reader.orphan(spec.blockHash);
    return orphan ? { ...EMPTY, orphan } : EMPTY;
  }
  const head = reader.head();
  if (head === undefined) return EMPTY;
  const namesPending = [spec.fromBlock, spec.toBlock].some((ref) => 'tag' in ref && ref.tag === 'pending');
  const hasPending = namesPending && reader.hasPending();
  const from = endpoint(spec.fromBlock, head, reader, hasPending);
  const to = endpoint(spec.toBlock, head, reader, hasPending);
  const toIsPending = 'tag' in spec.toBlock && spec.toBlock.tag === 'pending' && hasPending;
  if ('number' in spec.toBlock && spec.toBlock.number > head) {
    throw new RangeBeyondHeadError(spec.toBlock.number, head);
  }
  if (from > to) throw new RangeInvertedError(from, to);
  const range: ResolvedRange = { from: Math.max(from, reader.earliest()), to: Math.min(to, head), head };
  if (toIsPending) range.pending = reader.pending();
  return range;
}
