/**
 * Candidate blocks of a segment from the bloom index: for each constrained position (the address
 * list, each topic position), OR over its alternatives of the AND of the alternative's three bloom
 * rows; then AND the positions. False positives are possible, false negatives are not.
 */
import { bloomBits } from '../chain/bloom.js';
import { headerLogsBloom } from '../store/codec.js';
import { encodeBlockKey, encodeBloomBitsKey } from '../store/keys.js';
import type { Store } from '../store/schema.js';
import { ROW_BYTES, SEGMENT_BLOCKS, segmentStart } from '../store/segments.js';

/** The bloom bits of a filter: per constrained position, per alternative, its three bit numbers. */
export type FilterBits = [number, number, number][][];

/** Computes a filter's bloom bits: the address list is one position, each non-wildcard topic position another. */
export function filterBits(addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): FilterBits {
  const positions: FilterBits = [];
  if (addresses.length > 0) positions.push(addresses.map(bloomBits));
  for (const p of topics) if (p) positions.push(p.map(bloomBits));
  return positions;
}

/**
 * The candidate bitmap of a complete segment (bit i = block start+i), or undefined when the
 * segment has no bloom rows yet (the open segment). With no constrained position every block is a candidate.
 */
export function segmentCandidates(store: Store, segment: number, bits: FilterBits): Uint8Array | undefined {
  const result = new Uint8Array(ROW_BYTES);
  if (bits.length === 0) return result.fill(0xff);
  const rows = new Map<number, Uint8Array>();
  const row = (bit: number): Uint8Array | undefined => {
    let r = rows.get(bit);
    if (r === undefined) {
      const raw = store.bloomBits.getBinary(encodeBloomBitsKey(bit, segment));
      if (raw === undefined) return undefined;
      r = raw;
      rows.set(bit, r);
    }
    return r;
  };
  result.fill(0xff);
  const alt = new Uint8Array(ROW_BYTES);
  const pos = new Uint8Array(ROW_BYTES);
  for (const alternatives of bits) {
    pos.fill(0);
    for (const [a, b, c] of alternatives) {
      const ra = row(a);
      const rb = row(b);
      const rc = row(c);
      if (!ra || !rb || !rc) return undefined;
      for (let i = 0; i < ROW_BYTES; i++) alt[i] = ra[i]! & rb[i]! & rc[i]!;
      for (let i = 0; i < ROW_BYTES; i++) pos[i]! |= alt[i]!;
    }
    for (let i = 0; i < ROW_BYTES; i++) result[i]! &= pos[i]!;
  }
  return result;
}

function bloomHas(bloom: Uint8Array, [a, b, c]: [number, number, number]): boolean {
  const has = (bit: number) => (bloom[255 - (bit >> 3)]! & (1 << (bit & 7))) !== 0;
  return has(a) && has(b) && has(c);
}

/** Whether block `number` may match, from its own logsBloom (the open segment's path). */
export function blockMayMatch(store: Store, number: number, bits: FilterBits): boolean {
  if (bits.length === 0) return true;
  const raw = store.headers.getBinaryFast(encodeBlockKey(number));
  if (raw === undefined) return false;
  const bloom = headerLogsBloom(raw);
  return bits.every((alternatives) => alternatives.some((alt) => bloomHas(bloom, alt)));
}

/** The blocks [from, to] of `segment` to read, in order: from the bloom rows, else from per-block blooms. */
export function candidateBlocks(store: Store, segment: number, from: number, to: number, bits: FilterBits): number[] {
  const start = segmentStart(segment);
  const lo = Math.max(from, start);
  const hi = Math.min(to, start + SEGMENT_BLOCKS - 1);
  const out: number[] = [];
  const bitmap = segmentCandidates(store, segment, bits);
  for (let n = lo; n <= hi; n++) {
    const i = n - start;
    if (bitmap ? (bitmap[i >> 3]! & (0x80 >> (i & 7))) !== 0 : blockMayMatch(store, n, bits)) out.push(n);
  }
  return out;
}
