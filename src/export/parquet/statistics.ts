/**
 * A column chunk's statistics as the export writes them: the null count of every column, and the
 * minimum and maximum of the integer columns (unsigned, their sort order) as PLAIN-encoded bytes,
 * which readers use to skip files (DuckDB prunes on block_number). Byte strings get no bounds: a
 * chunk's hashes, addresses and topics span nearly the whole range, so bounds would skip nothing
 * and cost a comparison per row.
 */
import type { ColumnData } from '../columns.js';

/** What the statistics of a chunk hold. */
export interface ChunkStatistics {
  nullCount: number;
  /** Absent when the column is not an integer one or has no non-null value. */
  min?: Uint8Array;
  max?: Uint8Array;
}

/** Whether row `i` of a column with `validity` (empty: no nulls) has a value. */
function valid(validity: Uint8Array, i: number): boolean {
  return validity.length === 0 || ((validity[i >> 3]! >> (i & 7)) & 1) === 1;
}

/** The statistics of column `c`. */
export function columnStatistics(c: ColumnData): ChunkStatistics {
  const stats: ChunkStatistics = { nullCount: c.nullCount };
  if (c.nullCount === c.length || (c.type !== 'u32' && c.type !== 'u64')) return stats;
  // A u64 is compared as its two 32-bit halves (high word first): reading a BigUint64Array allocates a bigint per
  // value.
  const words = new Uint32Array(c.values.buffer, c.values.byteOffset, c.values.byteLength >> 2);
  const width = c.type === 'u64' ? 2 : 1;
  let lo = -1;
  let hi = -1;
  for (let i = 0; i < c.length; i++) {
    if (!valid(c.validity, i)) continue;
    if (lo < 0 || compareWords(words, width, i, lo) < 0) lo = i;
    if (hi < 0 || compareWords(words, width, i, hi) > 0) hi = i;
  }
  const bytes = new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength);
  stats.min = bytes.slice(lo * 4 * width, (lo + 1) * 4 * width);
  stats.max = bytes.slice(hi * 4 * width, (hi + 1) * 4 * width);
  return stats;
}

/** Values `a` and `b` of `width` little-endian 32-bit words each, compared unsigned: negative, 0 or positive. */
function compareWords(words: Uint32Array, width: number, a: number, b: number): number {
  for (let w = width - 1; w >= 0; w--) {
    const d = words[a * width + w]! - words[b * width + w]!;
    if (d !== 0) return d;
  }
  return 0;
}
