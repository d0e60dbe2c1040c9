/**
 * Definition levels of a flat nullable column (0 null, 1 a value) in Parquet's RLE / bit-packing
 * hybrid at bit width 1, as a data page v1 holds them (a 4-byte little-endian length, then the
 * runs). With bit width 1 a bit-packed group of 8 levels is one byte, least significant bit first:
 * exactly a byte of the column's validity bitmap, so a page with nulls is one bit-packed run copied
 * from the bitmap, and a page without is one RLE run of 1s.
 */
import type { ByteWriter } from './byteWriter.js';

/**
 * Writes the definition levels of rows [start, start + count) of a column with `validity` (Arrow's bitmap; empty: no
 * nulls); `start` is a multiple of 8.
 */
export function writeDefinitionLevels(out: ByteWriter, validity: Uint8Array, start: number, count: number): void {
  const lengthAt = out.length;
  out.u32le(0);
  if (validity.length === 0) {
    // RLE run: header (count << 1), then the repeated value in one byte.
    out.varint(count * 2);
    out.byte(1);
  } else {
    const groups = (count + 7) >> 3;
    out.varint(groups * 2 + 1);
    const from = start >> 3;
    out.append(validity, from, from + groups);
    const tail = count & 7;
    // Levels past the page's last row are padding: zeros, whatever the bitmap holds there.
    if (tail !== 0) out.bytes[out.length - 1]! &= (1 << tail) - 1;
  }
  out.setU32le(lengthAt, out.length - lengthAt - 4);
}

/** Bits set in each byte value. */
const POPCOUNT = Uint8Array.from({ length: 256 }, (_, b) => {
  let n = 0;
  for (let v = b; v !== 0; v >>= 1) n += v & 1;
  return n;
});

/** Rows of [start, start + count) that have a value (`start` a multiple of 8; empty validity: all of them). */
export function valuesIn(validity: Uint8Array, start: number, count: number): number {
  if (validity.length === 0) return count;
  let n = 0;
  const from = start >> 3;
  const whole = count >> 3;
  for (let i = 0; i < whole; i++) n += POPCOUNT[validity[from + i]!]!;
  const tail = count & 7;
  if (tail !== 0) n += POPCOUNT[validity[from + whole]! & ((1 << tail) - 1)]!;
  return n;
}
