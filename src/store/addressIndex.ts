/**
 * The per-segment address index: for each address that emitted a log in a complete segment, the
 * segment's blocks where it did. Ethereum's 2048-bit blooms saturate at mainnet density (most
 * bits set), so they cannot skip a segment for an address; this exact index can, and it makes an
 * address filter read only the blocks that really hold the address.
 *
 * A value is either sorted u16 block offsets (when few) or a ROW_BYTES bitmap (bit i = block
 * start+i, the bloom rows' layout); a bitmap is exactly ROW_BYTES long, a list always shorter.
 */
import { encodeBlockKey } from './keys.js';
import { logAddressTable } from './logsRecord.js';
import type { Store } from './schema.js';
import { ROW_BYTES, SEGMENT_BLOCKS, segmentStart } from './segments.js';

/** Most offsets kept as a list: 255 offsets take 510 bytes, under a bitmap's 512. */
const MAX_LISTED = ROW_BYTES / 2 - 1;

/** Collects, for every address in a segment, the offsets of the blocks whose address table holds it. */
export function collectSegmentAddresses(tableAt: (i: number) => Uint8Array | undefined): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (let i = 0; i < SEGMENT_BLOCKS; i++) {
    const table = tableAt(i);
    if (!table) continue;
    const buf = Buffer.from(table.buffer, table.byteOffset, table.byteLength);
    for (let off = 0; off + 20 <= buf.length; off += 20) {
      const key = buf.toString('latin1', off, off + 20);
      const list = out.get(key);
      if (list) list.push(i);
      else out.set(key, [i]);
    }
  }
  return out;
}

/** collectSegmentAddresses over a segment's stored blocks: the address tables at the front of their logs records. */
export function storedSegmentAddresses(store: Store, segment: number): Map<string, number[]> {
  const start = segmentStart(segment);
  // Each table is read before the next record is: a view of lmdb's read buffer serves.
  return collectSegmentAddresses((i) => {
    const record = store.logs.getBinaryFast(encodeBlockKey(start + i));
    return record === undefined ? undefined : logAddressTable(record);
  });
}

/** Encodes a segment's offsets (ascending) for one address as a list or a bitmap. */
export function encodeSegmentBlocks(offsets: number[]): Buffer {
  if (offsets.length > MAX_LISTED) {
    const bitmap = Buffer.alloc(ROW_BYTES);
    for (const i of offsets) bitmap[i >> 3]! |= 0x80 >> (i & 7);
    return bitmap;
  }
  const list = Buffer.allocUnsafe(offsets.length * 2);
  offsets.forEach((i, k) => list.writeUInt16BE(i, k * 2));
  return list;
}

/** ORs an encoded value's blocks into `bitmap` (ROW_BYTES, bloom-row layout). */
export function orSegmentBlocks(value: Uint8Array, bitmap: Uint8Array): void {
  if (value.length === ROW_BYTES) {
    for (let k = 0; k < ROW_BYTES; k++) bitmap[k]! |= value[k]!;
    return;
  }
  for (let k = 0; k + 1 < value.length; k += 2) {
    const i = (value[k]! << 8) | value[k + 1]!;
    bitmap[i >> 3]! |= 0x80 >> (i & 7);
  }
}

/** Decodes an encoded value into ascending block offsets. */
export function decodeSegmentBlocks(value: Uint8Array): number[] {
  const bitmap = new Uint8Array(ROW_BYTES);
  orSegmentBlocks(value, bitmap);
  const out: number[] = [];
  for (let i = 0; i < SEGMENT_BLOCKS; i++) if (bitmap[i >> 3]! & (0x80 >> (i & 7))) out.push(i);
  return out;
}
