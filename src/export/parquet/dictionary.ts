/**
 * The values of a dictionary-encoded data page (Parquet's RLE_DICTIONARY): one byte giving the bit
 * width of an index, then the indices of the page's non-null rows in the RLE / bit-packing hybrid.
 * The export's dictionary columns hold a block's or a transaction's value over its consecutive
 * rows, so the indices come in runs: each is written as an RLE run (a varint header `length << 1`,
 * then the index in ceil(width / 8) little-endian bytes), which every reader decodes.
 */
import type { ByteWriter } from './byteWriter.js';

/** The narrowest bit width readers take for an index: a dictionary of one entry needs 0 bits, which some readers refuse. */
const MIN_BIT_WIDTH = 1;

/** Bits of an index into a dictionary of `entries` entries. */
export function indexBitWidth(entries: number): number {
  return Math.max(MIN_BIT_WIDTH, 32 - Math.clz32(Math.max(entries - 1, 0)));
}

/** Appends the RLE_DICTIONARY values of rows [start, start + count) of a column with `indices` and `validity` (empty: no nulls), indices below 2^`bitWidth`. */
export function writeDictionaryIndices(out: ByteWriter, indices: Uint32Array, validity: Uint8Array, start: number, count: number, bitWidth: number): void {
  const valueBytes = (bitWidth + 7) >> 3;
  out.byte(bitWidth);
  const end = start + count;
  if (validity.length === 0) {
    for (let i = start; i < end; ) {
      const index = indices[i]!;
      const from = i;
      while (++i < end && indices[i] === index);
      writeRun(out, index, i - from, valueBytes);
    }
    return;
  }
  let i = start;
  const valid = (row: number) => ((validity[row >> 3]! >> (row & 7)) & 1) === 1;
  while (i < end && !valid(i)) i++;
  while (i < end) {
    const index = indices[i]!;
    let run = 1;
    for (i++; i < end; i++) {
      if (!valid(i)) continue;
      if (indices[i] !== index) break;
      run++;
    }
    writeRun(out, index, run, valueBytes);
    while (i < end && !valid(i)) i++;
  }
}

/** Appends an RLE run: `length` copies of `index`, in `valueBytes` bytes. */
function writeRun(out: ByteWriter, index: number, length: number, valueBytes: number): void {
  out.varint(length * 2);
  for (let b = 0; b < valueBytes; b++) out.byte((index >>> (8 * b)) & 0xff);
}
