/**
 * Parquet's PLAIN encoding of a page of a finished export column: the values of its non-null rows
 * only (nulls are in the definition levels), integers and doubles as little-endian bytes, booleans
 * bit-packed least significant bit first, byte strings each as a 4-byte little-endian length then
 * its bytes (the layout byte columns are built in, so a copy of a range).
 */
import { endianness } from 'node:os';
import type { ColumnData } from '../columns.js';
import type { ByteWriter } from './byteWriter.js';

// Integer and double columns are copied as their typed arrays' bytes, which are PLAIN's little-endian ones only on a
// little-endian machine.
if (endianness() !== 'LE') throw new Error('the Parquet writer needs a little-endian machine');

/** Whether row `i` of a column with `validity` (empty: no nulls) has a value. */
function valid(validity: Uint8Array, i: number): boolean {
  return validity.length === 0 || ((validity[i >> 3]! >> (i & 7)) & 1) === 1;
}

/** Appends the PLAIN values of rows [start, start + count) of `c` (`start` a multiple of 8). */
export function writePlain(out: ByteWriter, c: ColumnData, start: number, count: number): void {
  const end = start + count;
  switch (c.type) {
    case 'u32':
    case 'u64':
    case 'f64':
      return writeFixed(out, c, start, end);
    case 'bool':
      return writeBools(out, c, start, count);
    case 'binary':
    case 'string':
      return writeByteArrays(out, c, start, end);
  }
}

/** Fixed-width values: the typed array's bytes, whole when no row is null, else row by row. */
function writeFixed(out: ByteWriter, c: ColumnData, start: number, end: number): void {
  const values = c.values as Uint32Array | BigUint64Array | Float64Array;
  const width = values.BYTES_PER_ELEMENT;
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  if (c.nullCount === 0) {
    out.append(bytes, start * width, end * width);
    return;
  }
  out.reserve((end - start) * width);
  const dst = out.bytes;
  let p = out.length;
  for (let i = start; i < end; i++) {
    if (!valid(c.validity, i)) continue;
    for (let b = i * width, e = b + width; b < e; b++) dst[p++] = bytes[b]!;
  }
  out.length = p;
}

/** Booleans: the column's bit-packed bytes when no row is null, else the values of the non-null rows packed again. */
function writeBools(out: ByteWriter, c: ColumnData, start: number, count: number): void {
  const bits = c.values as Uint8Array;
  if (c.nullCount === 0) {
    const from = start >> 3;
    const bytes = (count + 7) >> 3;
    out.append(bits, from, from + bytes);
    // Bits past the page's last row belong to the next page: zeros here.
    if ((count & 7) !== 0) out.bytes[out.length - 1]! &= (1 << (count & 7)) - 1;
    return;
  }
  out.reserve((count + 7) >> 3);
  const dst = out.bytes;
  let p = out.length;
  let n = 0;
  for (let i = start; i < start + count; i++) {
    if (!valid(c.validity, i)) continue;
    if ((n & 7) === 0) dst[p++] = 0;
    if ((bits[i >> 3]! >> (i & 7)) & 1) dst[p - 1]! |= 1 << (n & 7);
    n++;
  }
  out.length = p;
}

/**
 * Byte strings: the column's bytes of the page's rows, already PLAIN's length-prefixed entries (a null row has none).
 */
function writeByteArrays(out: ByteWriter, c: ColumnData, start: number, end: number): void {
  out.append(c.values as Uint8Array, c.offsets![start]!, c.offsets![end]!);
}
