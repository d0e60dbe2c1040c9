/**
 * Segments and the bit-sliced bloom index (docs/architecture.md §3): a segment is SEGMENT_BLOCKS
 * consecutive blocks; for each of the 2048 bloom bits, one row holds that bit of every block's
 * logsBloom in the segment (bit i of the row is block start+i). A query ANDs a handful of rows
 * instead of reading thousands of blooms.
 */

/** Blocks per segment: geth's bloombits section size, so a row is 512 bytes. */
export const SEGMENT_BLOCKS = 4096;

/** Bytes of one bloom-bits row. */
export const ROW_BYTES = SEGMENT_BLOCKS / 8;

/** Bits in a logsBloom. */
export const BLOOM_BITS = 2048;

/** The segment holding block `number`. */
export function segmentOf(number: number): number {
  return Math.floor(number / SEGMENT_BLOCKS);
}

/** The first block of `segment`. */
export function segmentStart(segment: number): number {
  return segment * SEGMENT_BLOCKS;
}

/**
 * Transposes a segment's blooms into 2048 rows. `bloomAt(i)` gives block start+i's logsBloom, or
 * undefined for a block the store does not hold (before its earliest block).
 */
export function buildSegmentRows(bloomAt: (i: number) => Uint8Array | undefined): Uint8Array[] {
  const rows = Array.from({ length: BLOOM_BITS }, () => new Uint8Array(ROW_BYTES));
  for (let i = 0; i < SEGMENT_BLOCKS; i++) {
    const bloom = bloomAt(i);
    if (!bloom) continue;
    const rowByte = i >> 3;
    const rowMask = 0x80 >> (i & 7);
    for (let j = 0; j < 256; j++) {
      let byte = bloom[j]!;
      if (byte === 0) continue;
      const base = (255 - j) << 3;
      while (byte) {
        const k = 31 - Math.clz32(byte & -byte);
        rows[base + k]![rowByte]! |= rowMask;
        byte &= byte - 1;
      }
    }
  }
  return rows;
}
