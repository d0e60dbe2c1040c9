/**
 * Freezes blocks into sorted runs and merges the runs (runs.ts), within the writer's transaction:
 * once a unit of FREEZE_BLOCKS blocks lies FREEZE_LAG blocks behind the head, its transaction
 * hashes and storage writes leave the random-key B-trees (or never enter them, when they come in
 * the same batch) and become one level-0 run, written in key order; whenever a level holds
 * MERGE_FAN_IN runs they are merged into one run of the next level, the merged run written and its
 * inputs removed in the same transaction. A lookup so reads O(levels · fan-in) runs at most, most
 * of them ruled out by their filters, and every entry is written once per level (about log8 of the
 * chain's units) instead of costing a random B-tree insert.
 */

import { keyOrder, packedKeyOrder } from './keyOrder.js';
import { encodeBlockKey, STORAGE_PREFIX_BYTES, storageKeySuffix } from './keys.js';
import {
  CHUNK_BYTES,
  encodeRunChunkKey,
  encodeRunFilterKey,
  RunKind,
  runStartKey,
  STORAGE_KEY_BYTES,
  StorageChunkWriter,
  TX_ENTRY_BYTES,
  TX_PREFIX_BYTES,
  txEntryNumber,
  writeTxEntry,
} from './runChunks.js';
import { filterAdd, filterAddTxEntry, filterBytes, storageKeyHash } from './runFilter.js';
import {
  type RunInfo,
  type RunManifest,
  readManifest,
  StorageRunCursor,
  storageKeyNumber,
  TxRunCursor,
  writeManifest,
} from './runs.js';
import type { Store } from './schema.js';

/**
 * Blocks a level-0 run covers: a unit starts at a multiple of it, so a chain's runs depend only on
 * its head, not on how its batches fell (a store generated in pieces equals one generated at once).
 * Small enough that the recent B-trees stay a few hundred blocks (cache-sized, so their inserts
 * stay cheap), large enough that a run is worth its chunk keys and filter.
 */
export const FREEZE_BLOCKS = 256;

/**
 * Blocks behind the head a unit must be to freeze when no later block is finalized: four epochs,
 * twice mainnet's finality (64 blocks), so reorganisations (one or two blocks, almost all) touch only
 * the recent B-trees. A finalized block cannot reorganise, so a unit at or below it freezes at once
 * (a bulk copy far behind the node's head freezes its batches straight into runs). A deeper rollback
 * (ingest follows up to MAX_REORG_DEPTH, 4,096) is still exact: runs past its block are dropped and
 * the one holding it is cut short (`to` lowered; its later entries ignored until a merge drops them).
 */
export const FREEZE_LAG = 128;

/**
 * Runs of one level merged into one of the next: the levels (and runs a lookup may read) grow with log8 of the chain.
 */
export const MERGE_FAN_IN = 8;

/** Transaction-run entries a chunk holds (16 bytes each, within one page). */
const TX_CHUNK_ENTRIES = Math.floor(CHUNK_BYTES / TX_ENTRY_BYTES);

/**
 * Transaction-run entries side by side in one growing buffer (entry i at i · TX_ENTRY_BYTES): a unit holds about
 * 67,000 at mainnet density, and an object each cost more than ordering them.
 */
export class TxEntryList {
  bytes = Buffer.allocUnsafe(64 * TX_ENTRY_BYTES);
  count = 0;

  /** Appends the entry of transaction `index` of block `number`, of hash `hash`. */
  add(hash: Uint8Array, number: number, index: number): void {
    this.reserve(1);
    writeTxEntry(this.bytes, this.count * TX_ENTRY_BYTES, hash, number, index);
    this.count++;
  }

  /** Appends entries [from, to) of `other`. */
  addRange(other: TxEntryList, from: number, to: number): void {
    this.reserve(to - from);
    other.bytes.copy(this.bytes, this.count * TX_ENTRY_BYTES, from * TX_ENTRY_BYTES, to * TX_ENTRY_BYTES);
    this.count += to - from;
  }

  /** The block number of entry i. */
  numberAt(i: number): number {
    return txEntryNumber(this.bytes, i * TX_ENTRY_BYTES);
  }

  private reserve(more: number): void {
    const needed = (this.count + more) * TX_ENTRY_BYTES;
    if (needed <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2));
    this.bytes.copy(grown, 0, 0, this.count * TX_ENTRY_BYTES);
    this.bytes = grown;
  }
}

/** The entries of blocks frozen in the batch that brings them: kept from the B-trees, put straight into their run. */
export class FrozenBatch {
  readonly txEntries = new TxEntryList();
  readonly storageKeys: Buffer[] = [];
  readonly storageValues: Buffer[] = [];
  /** The blocks whose entries are here, in order. */
  readonly blocks: number[] = [];

  addTx(hash: Uint8Array, number: number, index: number): void {
    this.txEntries.add(hash, number, index);
  }

  addStorage(key: Buffer, value: Buffer): void {
    this.storageKeys.push(key);
    this.storageValues.push(value);
  }
}

/**
 * The last block of the units that may freeze at head `head` with block `finalized` final (−1 when none): those at or
 * below the finalized block or FREEZE_LAG behind the head, whichever reaches further.
 */
export function freezeTarget(head: number, finalized = -1): number {
  return Math.floor((freezePoint(head, finalized) + 1) / FREEZE_BLOCKS) * FREEZE_BLOCKS - 1;
}

/** The last block that may freeze at head `head` with block `finalized` final, before rounding down to whole units. */
function freezePoint(head: number, finalized: number): number {
  return Math.max(head - FREEZE_LAG, Math.min(finalized, head));
}

/**
 * Whether a batch ending at `head` with block `finalized` final freezes every block it may: its freeze point ends a
 * unit, so none of the batch's blocks at or below it waits in the recent B-trees for the next batch.
 */
export function freezesWholeUnits(head: number, finalized = -1): boolean {
  return freezeTarget(head, finalized) === freezePoint(head, finalized);
}

/** Writes one run's chunks (in key order, appended) and its filter. */
class RunWriter {
  /** The open transaction chunk's entries (grown past TX_CHUNK_ENTRIES only for entries sharing one prefix). */
  private txChunk = Buffer.allocUnsafe(TX_CHUNK_ENTRIES * TX_ENTRY_BYTES);
  private txInChunk = 0;
  private readonly storageChunk = new StorageChunkWriter();
  private readonly txFilter: Uint8Array;
  private readonly storageFilter: Uint8Array;
  txs = 0;
  storage = 0;

  constructor(
    private readonly store: Store,
    readonly id: number,
    txKeys: number,
    storageKeys: number,
  ) {
    this.txFilter = new Uint8Array(filterBytes(txKeys));
    this.storageFilter = new Uint8Array(filterBytes(storageKeys));
  }

  /**
   * Adds the transaction-hash entry at `bytes[offset]` (ascending). Entries of one prefix stay in one chunk, so the
   * chunk a seek finds holds them all.
   */
  addTx(bytes: Uint8Array, offset: number): void {
    if (
      this.txInChunk >= TX_CHUNK_ENTRIES &&
      !samePrefix(this.txChunk, (this.txInChunk - 1) * TX_ENTRY_BYTES, bytes, offset)
    )
      this.flushTx();
    let chunk = this.txChunk;
    const at = this.txInChunk * TX_ENTRY_BYTES;
    if (at + TX_ENTRY_BYTES > chunk.length) {
      const grown = Buffer.allocUnsafe(chunk.length * 2);
      chunk.copy(grown, 0, 0, at);
      this.txChunk = chunk = grown;
    }
    for (let i = 0; i < TX_ENTRY_BYTES; i++) chunk[at + i] = bytes[offset + i]!;
    this.txInChunk++;
    filterAddTxEntry(this.txFilter, bytes, offset);
    this.txs++;
  }

  private flushTx(): void {
    if (this.txInChunk === 0) return;
    const end = this.txInChunk * TX_ENTRY_BYTES;
    const last = this.txChunk.subarray(end - TX_ENTRY_BYTES, end - TX_ENTRY_BYTES + TX_PREFIX_BYTES);
    append(this.store.txRuns, encodeRunChunkKey(this.id, last), Buffer.from(this.txChunk.subarray(0, end)));
    this.txInChunk = 0;
  }

  /** Adds a storage entry (ascending keys). */
  addStorage(key: Uint8Array, value: Uint8Array): void {
    this.addStorageParts(key, value, 0, value.length);
  }

  /** addStorage with the value as `length` bytes of `source` from `start`. */
  addStorageParts(key: Uint8Array, source: Uint8Array, start: number, length: number): void {
    if (!this.storageChunk.addParts(key, source, start, length)) {
      this.flushStorage();
      this.storageChunk.addParts(key, source, start, length);
    }
    filterAdd(this.storageFilter, storageKeyHash(key));
    this.storage++;
  }

  private flushStorage(): void {
    const chunk = this.storageChunk.take();
    if (chunk) append(this.store.storageRuns, encodeRunChunkKey(this.id, chunk.last), chunk.value);
  }

  /** Writes what is left and the filters. */
  finish(): void {
    this.flushTx();
    this.flushStorage();
    if (this.txs > 0) this.store.runFilters.put(encodeRunFilterKey(RunKind.Tx, this.id), Buffer.from(this.txFilter));
    if (this.storage > 0)
      this.store.runFilters.put(encodeRunFilterKey(RunKind.Storage, this.id), Buffer.from(this.storageFilter));
  }
}

/** Whether the transaction-run entries at `a[aAt]` and `b[bAt]` share their hash prefix. */
function samePrefix(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): boolean {
  for (let i = 0; i < TX_PREFIX_BYTES; i++) if (a[aAt + i] !== b[bAt + i]) return false;
  return true;
}

/** Puts an entry after the database's last (MDB_APPEND), or where it belongs should a larger key exist. */
function append(db: Store['txRuns'], key: Buffer, value: Buffer): void {
  const appended = db.putSync(key, value, { append: true }) as unknown as boolean;
  if (!appended) db.put(key, value);
}

/** Freezes, cuts and merges runs of one store; every method runs within the writer's write transaction. */
export class Freezer {
  constructor(private readonly store: Store) {}

  /** The manifest, or a fresh one whose freeze point is just before `earliest`. */
  private manifest(earliest: number): RunManifest {
    return readManifest(this.store) ?? { frozenTo: earliest - 1, nextId: 0, runs: [] };
  }

  /** The last frozen block (−1 while nothing is frozen). */
  frozenTo(): number {
    return readManifest(this.store)?.frozenTo ?? -1;
  }

  /**
   * Freezes every unit of blocks up to `target` not frozen yet: the entries of blocks before
   * `batchStart` are taken out of the recent B-trees, those of the batch's come from `batch`. Then
   * merges full levels.
   */
  freeze(earliest: number, target: number, batchStart: number, batch: FrozenBatch): void {
    const manifest = this.manifest(earliest);
    if (manifest.frozenTo >= target) return;
    let txAt = 0;
    let storageAt = 0;
    const batchTx = batch.txEntries;
    const batchKeys = batch.storageKeys;
    while (manifest.frozenTo < target) {
      const from = manifest.frozenTo + 1;
      const to = Math.min(target, (Math.floor(from / FREEZE_BLOCKS) + 1) * FREEZE_BLOCKS - 1);
      const tx = new TxEntryList();
      const keys: Buffer[] = [];
      const values: Buffer[] = [];
      for (let n = from; n <= Math.min(to, batchStart - 1); n++) this.takeRecent(n, tx, keys, values);
      const txFrom = txAt;
      while (txAt < batchTx.count && batchTx.numberAt(txAt) <= to) txAt++;
      tx.addRange(batchTx, txFrom, txAt);
      while (storageAt < batchKeys.length && storageKeyNumber(batchKeys[storageAt]!) <= to) {
        keys.push(batchKeys[storageAt]!);
        values.push(batch.storageValues[storageAt++]!);
      }
      this.writeLevel0(manifest, from, to, tx, keys, values);
      manifest.frozenTo = to;
      this.mergeFullLevels(manifest);
    }
    writeManifest(this.store, manifest);
  }

  /** Moves block n's entries out of the recent B-trees into the arrays. */
  private takeRecent(n: number, tx: TxEntryList, keys: Buffer[], values: Buffer[]): void {
    const s = this.store;
    const blockKey = encodeBlockKey(n);
    const hashes = s.txHashes.getBinary(blockKey);
    if (hashes) {
      for (let i = 0, at = 0; at < hashes.length; i++, at += 32) {
        const hash = hashes.subarray(at, at + 32);
        tx.add(hash, n, i);
        const location = s.txByHash.getBinary(hash);
        // A later inclusion of the same transaction (after a reorganisation) keeps its entry.
        if (location && location.readUInt32BE(0) * 2 ** 32 + location.readUInt32BE(4) === n) s.txByHash.remove(hash);
      }
    }
    const writes = s.storageWrites.getBinary(blockKey);
    if (writes) {
      const suffix = storageKeySuffix(n);
      for (let at = 0; at < writes.length; at += STORAGE_PREFIX_BYTES) {
        const key = Buffer.concat([writes.subarray(at, at + STORAGE_PREFIX_BYTES), suffix]);
        const value = s.storage.getBinary(key);
        if (value === undefined) continue;
        keys.push(key);
        values.push(value);
        s.storage.remove(key);
      }
      s.storageWrites.remove(blockKey);
    }
  }

  /** Sorts a unit's entries and writes them as a level-0 run (none when the unit has no entries). */
  private writeLevel0(
    manifest: RunManifest,
    from: number,
    to: number,
    tx: TxEntryList,
    keys: Buffer[],
    values: Buffer[],
  ): void {
    const txOrder = packedKeyOrder(tx.bytes, TX_ENTRY_BYTES, tx.count);
    const keyOrdering = keyOrder(keys);
    const writer = new RunWriter(this.store, manifest.nextId, tx.count, keys.length);
    for (let i = 0; i < txOrder.length; i++) writer.addTx(tx.bytes, txOrder[i]! * TX_ENTRY_BYTES);
    for (let i = 0; i < keyOrdering.length; i++) {
      const at = keyOrdering[i]!;
      // Of equal keys (a slot written twice in a block's list), the last added stays, as put after put would leave it.
      if (i + 1 < keyOrdering.length && storageKeysEqual(keys[at]!, keys[keyOrdering[i + 1]!]!)) continue;
      writer.addStorage(keys[at]!, values[at]!);
    }
    writer.finish();
    manifest.runs.push({ id: manifest.nextId++, level: 0, from, to, txs: writer.txs, storage: writer.storage });
  }

  /** Merges the runs of every level that holds MERGE_FAN_IN of them into one run of the next level. */
  private mergeFullLevels(manifest: RunManifest): void {
    for (let level = 0; manifest.runs.some((r) => r.level >= level); level++) {
      const inputs = manifest.runs.filter((r) => r.level === level);
      if (inputs.length >= MERGE_FAN_IN) this.merge(manifest, inputs, level + 1);
    }
  }

  /** Merges `inputs` (contiguous, oldest first) into one run of `level`, written in key order, and removes them. */
  private merge(manifest: RunManifest, inputs: RunInfo[], level: number): void {
    const s = this.store;
    const writer = new RunWriter(s, manifest.nextId, sum(inputs, 'txs'), sum(inputs, 'storage'));
    mergeTxRuns(
      inputs.map((run) => new TxRunCursor(s, run)),
      writer,
    );
    mergeStorageRuns(
      inputs.map((run) => new StorageRunCursor(s, run)),
      writer,
    );
    writer.finish();
    for (const run of inputs) this.removeRun(run.id);
    const merged: RunInfo = {
      id: manifest.nextId++,
      level,
      from: inputs[0]!.from,
      to: inputs.at(-1)!.to,
      txs: writer.txs,
      storage: writer.storage,
    };
    const first = manifest.runs.indexOf(inputs[0]!);
    manifest.runs.splice(first, inputs.length, merged);
  }

  /** Deletes a run's chunks and filters. */
  private removeRun(id: number): void {
    const s = this.store;
    const range = { start: runStartKey(id), end: runStartKey(id + 1) };
    for (const key of Array.from(s.txRuns.getKeys(range), (k) => Buffer.from(k))) s.txRuns.remove(key);
    for (const key of Array.from(s.storageRuns.getKeys(range), (k) => Buffer.from(k))) s.storageRuns.remove(key);
    s.runFilters.remove(encodeRunFilterKey(RunKind.Tx, id));
    s.runFilters.remove(encodeRunFilterKey(RunKind.Storage, id));
  }

  /**
   * A rollback to block `to` below the freeze point: runs starting after it are removed, the one
   * holding it cut short (its entries past `to` ignored until a merge drops them), and the freeze
   * point moved back to `to`.
   */
  cut(to: number): void {
    const manifest = readManifest(this.store);
    if (!manifest || manifest.frozenTo <= to) return;
    while (manifest.runs.length > 0 && manifest.runs.at(-1)!.from > to) this.removeRun(manifest.runs.pop()!.id);
    const last = manifest.runs.at(-1);
    if (last && last.to > to) last.to = to;
    manifest.frozenTo = to;
    writeManifest(this.store, manifest);
  }
}

/** The total of one count over runs. */
function sum(runs: RunInfo[], field: 'txs' | 'storage'): number {
  return runs.reduce((total, run) => total + run[field], 0);
}

/** Whether two storage keys are equal (compared from their end, where keys of different blocks differ). */
function storageKeysEqual(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = STORAGE_KEY_BYTES - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether cursor a's entry orders before b's. */
function txBefore(a: TxRunCursor, b: TxRunCursor): boolean {
  if (a.k0 !== b.k0) return a.k0 < b.k0;
  if (a.k1 !== b.k1) return a.k1 < b.k1;
  if (a.k2 !== b.k2) return a.k2 < b.k2;
  return a.k3 < b.k3;
}

/**
 * Merges runs' transaction entries into `writer` in key order: the least head among the cursors (at most
 * MERGE_FAN_IN, so a linear pick) goes next.
 */
function mergeTxRuns(cursors: TxRunCursor[], writer: RunWriter): void {
  const live = cursors.filter((c) => !c.done);
  while (live.length > 0) {
    let best = 0;
    for (let i = 1; i < live.length; i++) if (txBefore(live[i]!, live[best]!)) best = i;
    const cursor = live[best]!;
    writer.addTx(cursor.bytes, cursor.at);
    cursor.next();
    if (cursor.done) live.splice(best, 1);
  }
}

/** Whether cursor a's key orders before b's (keys of different runs differ: their blocks do). */
function storageBefore(a: StorageRunCursor, b: StorageRunCursor): boolean {
  if (a.k0 !== b.k0) return a.k0 < b.k0;
  const x = a.reader!.key;
  const y = b.reader!.key;
  for (let i = 4; i < STORAGE_KEY_BYTES; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
}

/**
 * Merges runs' storage entries into `writer` in key order. The cursors stay sorted by their heads: the first goes
 * next, then moves to its place among the rest by binary search (three comparisons of 60-byte keys for eight runs,
 * where a linear pick would make seven, and keys of one contract share their first 20 bytes or more).
 */
function mergeStorageRuns(cursors: StorageRunCursor[], writer: RunWriter): void {
  const live = cursors.filter((c) => !c.done).sort((a, b) => (storageBefore(a, b) ? -1 : 1));
  while (live.length > 0) {
    const cursor = live[0]!;
    const reader = cursor.reader!;
    writer.addStorageParts(reader.key, reader.chunk, reader.valueStart, reader.valueEnd - reader.valueStart);
    cursor.next();
    if (cursor.done) {
      live.shift();
      continue;
    }
    let low = 1;
    let high = live.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (storageBefore(live[middle]!, cursor)) low = middle + 1;
      else high = middle;
    }
    for (let i = 0; i < low - 1; i++) live[i] = live[i + 1]!;
    live[low - 1] = cursor;
  }
}
