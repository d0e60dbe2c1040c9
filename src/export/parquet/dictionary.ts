/**
 * The values of a dictionary-encoded data page (Parquet's RLE_DICTIONARY): one byte giving the bit
 * width of an index, then the indices of the page's non-null rows in the RLE / bit-packing hybrid.
 * A run of at least MIN_RLE_RUN equal indices (a block's value over its logs) is written as an RLE
 * run (a varint header `length << 1`, then the index in ceil(width / 8) little-endian bytes); the
 * indices between such runs (an address's or a topic's, which change from log to log) as
 * bit-packed runs (a varint header `groups << 1 | 1`, then groups of 8 indices packed least
 * significant bit first, `width` bytes a group). Every reader decodes both.
 */
import type { ByteWriter } from './byteWriter.js';

/**
 * The narrowest bit width readers take for an index: a dictionary of one entry needs 0 bits, which some readers refuse.
 */
const MIN_BIT_WIDTH = 1;

/**
 * The shortest run of one index written as an RLE run: a bit-packed group holds 8 indices, so a
 * shorter run inside a group costs no more there, and ending a bit-packed run for it costs a header.
 */
const MIN_RLE_RUN = 8;

/** Indices in a bit-packed group. */
const GROUP = 8;

/** Bits of an index into a dictionary of `entries` entries. */
export function indexBitWidth(entries: number): number {
  return Math.max(MIN_BIT_WIDTH, 32 - Math.clz32(Math.max(entries - 1, 0)));
}

/** The non-null rows' indices of a page with nulls, gathered (one per thread, grown as a page needs). */
let gathered = new Uint32Array(1 << 16);

/**
 * Appends the RLE_DICTIONARY values of rows [start, start + count) of a column with `indices` and `validity` (empty: no
 * nulls), indices below 2^`bitWidth`.
 */
export function writeDictionaryIndices(
  out: ByteWriter,
  indices: Uint32Array,
  validity: Uint8Array,
  start: number,
  count: number,
  bitWidth: number,
): void {
  out.byte(bitWidth);
  if (validity.length === 0) {
    writeHybrid(out, indices, start, start + count, bitWidth);
    return;
  }
  if (gathered.length < count) gathered = new Uint32Array(count);
  let n = 0;
  for (let i = start, end = start + count; i < end; i++)
    if ((validity[i >> 3]! >> (i & 7)) & 1) gathered[n++] = indices[i]!;
  writeHybrid(out, gathered, 0, n, bitWidth);
}

/** The length of the run of equal values of `values` starting at `i`, counted up to `end`. */
function runLength(values: Uint32Array, i: number, end: number): number {
  const value = values[i]!;
  let j = i + 1;
  while (j < end && values[j] === value) j++;
  return j - i;
}

/** Whether at least MIN_RLE_RUN values of `values` from `i` (before `end`) are equal. */
function runStarts(values: Uint32Array, i: number, end: number): boolean {
  if (end - i < MIN_RLE_RUN) return false;
  const value = values[i]!;
  for (let j = i + 1; j < i + MIN_RLE_RUN; j++) if (values[j] !== value) return false;
  return true;
}

/**
 * Appends values [start, end) of `values` as hybrid runs of `bitWidth`-bit values: RLE where MIN_RLE_RUN or more
 * repeat, bit-packed groups between.
 */
function writeHybrid(out: ByteWriter, values: Uint32Array, start: number, end: number, bitWidth: number): void {
  const valueBytes = (bitWidth + 7) >> 3;
  let i = start;
  while (i < end) {
    if (runStarts(values, i, end)) {
      const length = runLength(values, i, end);
      out.varint(length * 2);
      const index = values[i]!;
      for (let b = 0; b < valueBytes; b++) out.byte((index >>> (8 * b)) & 0xff);
      i += length;
      continue;
    }
    // Groups of 8 until a long run starts at a group's boundary; the page's last group is padded with zeros, which
    // readers drop (they read as many values as the page has).
    let groupsEnd = i + GROUP;
    while (groupsEnd < end && !runStarts(values, groupsEnd, end)) groupsEnd += GROUP;
    const groups = (groupsEnd - i) / GROUP;
    out.varint(groups * 2 + 1);
    packGroups(out, values, i, Math.min(groupsEnd, end), groups * GROUP, bitWidth);
    i = groupsEnd;
  }
}

/** 2^k for k in [0, 8): where a value's bits start in the byte being filled. */
const SHIFT = [1, 2, 4, 8, 16, 32, 64, 128];

/**
 * Appends `slots` values of `bitWidth` bits, least significant bit first: values [start, end) of `values`, then zeros.
 */
function packGroups(
  out: ByteWriter,
  values: Uint32Array,
  start: number,
  end: number,
  slots: number,
  bitWidth: number,
): void {
  out.reserve((slots * bitWidth) >> 3);
  const dst = out.bytes;
  let p = out.length;
  // The bits not yet written (fewer than 8 before a value is added, so at most 40: exact in a double).
  let acc = 0;
  let bits = 0;
  for (let i = start; i < start + slots; i++) {
    acc += (i < end ? values[i]! : 0) * SHIFT[bits]!;
    bits += bitWidth;
    while (bits >= 8) {
      const low = acc % 256;
      dst[p++] = low;
      acc = (acc - low) / 256;
      bits -= 8;
    }
  }
  out.length = p;
}
