/**
 * One step of a merge of frozen runs (freezer.ts): the inputs' entries, read in key order through
 * one cursor per run, written in key order into the merged run by a RunWriter, transaction-hash
 * entries first, then storage entries. A step resumes after the last entry an earlier step wrote
 * (each cursor seeks the chunk that can hold it) and stops, once it has written its budget, where
 * the chunk rule cuts anyway, so the merged run's chunks do not depend on how the steps fell.
 */
import { STORAGE_KEY_BYTES, sharedKeyBytes } from './runChunks.js';
import type { StorageRunCursor, TxRunCursor } from './runs.js';
import type { RunWriter } from './runWriter.js';

/** What a step did to one part of a merge: entries written, and whether the part is whole. */
export interface StepResult {
  written: number;
  done: boolean;
}

/** A run's cursor as a merge reads it: done once every entry is read. */
interface Cursor {
  done: boolean;
}

/** The cursors not done, sorted by their heads. */
function sortedLive<C extends Cursor>(cursors: C[], before: (a: C, b: C) => boolean): C[] {
  return cursors.filter((c) => !c.done).sort((a, b) => (before(a, b) ? -1 : 1));
}

/**
 * Puts live[0], just moved to its next entry, back in its place among the rest (sorted by their heads) by binary
 * search: five comparisons for MERGE_FAN_IN (32) runs, where a linear pick of the least makes 31.
 */
function resort<C extends Cursor>(live: C[], before: (a: C, b: C) => boolean): void {
  const cursor = live[0]!;
  if (cursor.done) {
    live.shift();
    return;
  }
  let low = 1;
  let high = live.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(live[middle]!, cursor)) low = middle + 1;
    else high = middle;
  }
  for (let i = 0; i < low - 1; i++) live[i] = live[i + 1]!;
  live[low - 1] = cursor;
}

/** Whether cursor a's entry orders before b's. */
function txBefore(a: TxRunCursor, b: TxRunCursor): boolean {
  if (a.k0 !== b.k0) return a.k0 < b.k0;
  if (a.k1 !== b.k1) return a.k1 < b.k1;
  if (a.k2 !== b.k2) return a.k2 < b.k2;
  return a.k3 < b.k3;
}

/**
 * Merges runs' transaction entries into `writer` in key order, the cursor of the least head next, until they are all
 * read (the last chunk written) or `budget` entries are written and the next would open a chunk (the open one
 * written).
 */
export function mergeTxStep(cursors: TxRunCursor[], writer: RunWriter, budget: number): StepResult {
  const live = sortedLive(cursors, txBefore);
  let written = 0;
  while (live.length > 0) {
    const cursor = live[0]!;
    if (written >= budget && writer.txCutsBefore(cursor.bytes, cursor.at)) {
      writer.flushTx();
      return { written, done: false };
    }
    writer.addTx(cursor.bytes, cursor.at);
    written++;
    cursor.next();
    resort(live, txBefore);
  }
  writer.flushTx();
  return { written, done: true };
}

/** Whether cursor a's key orders before b's (keys of different runs differ: their blocks do). */
function storageBefore(a: StorageRunCursor, b: StorageRunCursor): boolean {
  if (a.k0 !== b.k0) return a.k0 < b.k0;
  const x = a.reader!;
  const y = b.reader!;
  // Keys of one contract share 20 bytes, of one slot 52: equal words are skipped four bytes at a time.
  const shared = sharedKeyBytes(x.key, x.keyWords, y.key, y.keyWords);
  return shared < STORAGE_KEY_BYTES && x.key[shared]! < y.key[shared]!;
}

/** Merges runs' storage entries into `writer` in key order, as mergeTxStep. */
export function mergeStorageStep(cursors: StorageRunCursor[], writer: RunWriter, budget: number): StepResult {
  const live = sortedLive(cursors, storageBefore);
  let written = 0;
  while (live.length > 0) {
    const cursor = live[0]!;
    const reader = cursor.reader!;
    const length = reader.valueEnd - reader.valueStart;
    if (written >= budget && writer.storageCutsBefore(reader.key, length)) {
      writer.flushStorage();
      return { written, done: false };
    }
    writer.addStorageParts(reader.key, reader.chunk, reader.valueStart, length, reader.keyWords);
    written++;
    cursor.next();
    resort(live, storageBefore);
  }
  writer.flushStorage();
  return { written, done: true };
}
