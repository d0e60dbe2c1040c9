/**
 * Freezes blocks into sorted runs and merges the runs (runs.ts), within the writer's transaction:
 * once a unit of FREEZE_BLOCKS blocks lies FREEZE_LAG blocks behind the head, its transaction
 * hashes and storage writes leave the random-key B-trees (or never enter them, when they come in
 * the same batch) and become one level-0 run, written in key order. Whenever a level holds
 * MERGE_FAN_IN runs not being merged, a merge of them into one run of the next level starts, and
 * it goes on in steps, one with each unit frozen after (runMerge.ts): a step frees the inputs'
 * chunks it has passed (lookups read those keys in the merged run), and the last step puts the
 * merged run in the inputs' place. A merge so costs each unit about the same, instead of one unit
 * the whole of it (at mainnet density, thirty-two 8,192-block runs are 170M entries).
 * A lookup reads O(levels · fan-in) runs at most, most of them ruled out by their filters, and
 * every entry is written once per level (about log32 of the chain's units) instead of costing a
 * random B-tree insert.
 */

import { keyOrder, packedKeyOrder } from './keyOrder.js';
import { encodeBlockKey, STORAGE_PREFIX_BYTES, storageKeySuffix } from './keys.js';
import {
  encodeRunChunkKey,
  encodeRunFilterKey,
  RunKind,
  runStartKey,
  STORAGE_KEY_BYTES,
  StorageChunkReader,
  TX_ENTRY_BYTES,
  TX_PREFIX_BYTES,
  txEntryNumber,
  writeTxEntry,
} from './runChunks.js';
import { filterAdd, filterAddTxEntry, storageKeyHash } from './runFilter.js';
import { mergeStorageStep, mergeTxStep } from './runMerge.js';
import {
  type MergeProgress,
  mergeAfter,
  mergeInputs,
  type RunInfo,
  type RunManifest,
  readManifest,
  StorageRunCursor,
  storageKeyNumber,
  TxRunCursor,
  writeManifest,
} from './runs.js';
import { emptyRunFilters, type RunFilters, RunWriter } from './runWriter.js';
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
 * Runs of one level merged into one of the next. Every level rewrites each entry once (about 1 µs a log at mainnet
 * density), so the levels are few: one up to 1,024 units (262,144 blocks) and three for mainnet's 25M blocks, where
 * a fan-in of 8 makes three and five. A lookup's filters rule out the extra runs (up to 2 · 32 − 1 a level) in memory.
 */
export const MERGE_FAN_IN = 32;

/**
 * Units a merge into `level` is spread over: all those before that level's next merge is due
 * (MERGE_FAN_IN^level units later), so every unit carries the same share of each level and a level
 * holds at most 2 · MERGE_FAN_IN − 1 runs meanwhile. A merge into level 1 takes 32 units, into
 * level 2 (thirty-two 8,192-block runs, 170M entries at mainnet density) 1,024.
 */
export function mergeUnits(level: number): number {
  return MERGE_FAN_IN ** level;
}

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

/** Freezes, cuts and merges runs of one store; every method runs within the writer's write transaction. */
export class Freezer {
  /**
   * The filters of the merges in progress, by merged run id, held between their steps (written once a run is whole);
   * rebuilt from the chunks written when they are not here or do not match the manifest's counts (another process,
   * or a transaction that failed after a step).
   */
  private readonly pending = new Map<number, RunFilters>();
  /** The merges whose held filters are the ones kept in the store (loaded from there, or saved since the last step). */
  private readonly kept = new Set<number>();

  constructor(private readonly store: Store) {}

  /** The manifest, or a fresh one whose freeze point is just before `earliest`. */
  private manifest(earliest: number): RunManifest {
    return readManifest(this.store) ?? { frozenTo: earliest - 1, nextId: 0, runs: [], merges: [] };
  }

  /** The last frozen block (−1 while nothing is frozen). */
  frozenTo(): number {
    return readManifest(this.store)?.frozenTo ?? -1;
  }

  /**
   * Freezes every unit of blocks up to `target` not frozen yet: the entries of blocks before
   * `batchStart` are taken out of the recent B-trees, those of the batch's come from `batch`. With
   * each unit, merges start where a level is full, and every merge in progress takes a step.
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
      this.startMerges(manifest);
      for (const merge of [...manifest.merges])
        this.step(manifest, merge, Math.ceil(mergeEntries(manifest, merge) / mergeUnits(merge.level)));
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
    const writer = new RunWriter(this.store, manifest.nextId, emptyRunFilters(tx.count, keys.length));
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

  /**
   * Starts a merge of every level holding MERGE_FAN_IN runs not being merged (its oldest ones), into one run of the
   * next level; a merge into that level still in progress is finished first (pacing leaves none: mergeUnits).
   */
  private startMerges(manifest: RunManifest): void {
    const merging = new Set(manifest.merges.flatMap((m) => m.inputs));
    for (let level = 0; manifest.runs.some((r) => r.level >= level); level++) {
      const inputs = manifest.runs.filter((r) => r.level === level && !merging.has(r.id)).slice(0, MERGE_FAN_IN);
      if (inputs.length < MERGE_FAN_IN) continue;
      const earlier = manifest.merges.find((m) => m.level === level + 1);
      if (earlier) this.step(manifest, earlier, Infinity);
      manifest.merges.push({
        id: manifest.nextId++,
        level: level + 1,
        inputs: inputs.map((r) => r.id),
        part: 'tx',
        after: '',
        txs: 0,
        storage: 0,
      });
      for (const run of inputs) merging.add(run.id);
    }
  }

  /**
   * Writes about `budget` more entries of a merge (up to where the next chunk starts); the step that writes its last
   * entry writes its filters, removes its inputs and puts the merged run in their place.
   */
  private step(manifest: RunManifest, merge: MergeProgress, budget: number): void {
    const s = this.store;
    const inputs = mergeInputs(manifest, merge);
    const writer = new RunWriter(s, merge.id, this.filtersOf(merge, inputs));
    this.kept.delete(merge.id);
    let left = budget;
    if (merge.part === 'tx') {
      const after = mergeAfter(merge);
      const result = mergeTxStep(
        inputs.map((run) => new TxRunCursor(s, run, after)),
        writer,
        left,
      );
      merge.txs = writer.txs;
      if (!result.done) {
        merge.after = writer.lastTx!.toString('hex');
        for (const run of inputs) this.dropChunksBelow(s.txRuns, run.id, writer.lastTx!.subarray(0, TX_PREFIX_BYTES));
        return;
      }
      for (const run of inputs) this.dropChunksBelow(s.txRuns, run.id);
      left = Math.max(0, left - result.written);
      merge.part = 'storage';
      merge.after = '';
    }
    const after = mergeAfter(merge);
    const result = mergeStorageStep(
      inputs.map((run) => new StorageRunCursor(s, run, after)),
      writer,
      left,
    );
    merge.storage = writer.storage;
    if (!result.done) {
      merge.after = writer.lastStorage!.toString('hex');
      for (const run of inputs) this.dropChunksBelow(s.storageRuns, run.id, writer.lastStorage!);
      return;
    }
    writer.finish();
    this.forget(merge.id);
    for (const run of inputs) this.removeRun(run.id);
    manifest.merges.splice(manifest.merges.indexOf(merge), 1);
    const merged: RunInfo = {
      id: merge.id,
      level: merge.level,
      from: inputs[0]!.from,
      to: inputs.at(-1)!.to,
      txs: writer.txs,
      storage: writer.storage,
    };
    manifest.runs.splice(manifest.runs.indexOf(inputs[0]!), inputs.length, merged);
  }

  /**
   * Within a write transaction: keeps the filters of the merges in progress in the store (RunKind.MergeTx and
   * MergeStorage), so that the next writer goes on without rebuilding them; a writer calls it before it closes. One
   * that has not taken a step of a merge since a crash rebuilds its filters here, so a store's kept filters do not
   * depend on where a writer was killed.
   */
  saveFilters(): void {
    const manifest = readManifest(this.store);
    for (const merge of manifest?.merges ?? []) {
      const held = this.filtersOf(merge, mergeInputs(manifest!, merge));
      // Unchanged since loaded or saved: a level-2 merge's filters are about 170 MB at mainnet density.
      if (this.kept.has(merge.id)) continue;
      this.store.runFilters.put(encodeRunFilterKey(RunKind.MergeTx, merge.id), counted(held.txs, held.txBits));
      this.store.runFilters.put(
        encodeRunFilterKey(RunKind.MergeStorage, merge.id),
        counted(held.storage, held.storageBits),
      );
      this.kept.add(merge.id);
    }
  }

  /**
   * The filters of a merge in progress: those held, those a writer kept when it closed (if the merge has not moved
   * since), or rebuilt from the chunks its steps wrote.
   */
  private filtersOf(merge: MergeProgress, inputs: RunInfo[]): RunFilters {
    const held = this.pending.get(merge.id);
    if (held && held.txs === merge.txs && held.storage === merge.storage) return held;
    const s = this.store;
    const filters = emptyRunFilters(sum(inputs, 'txs'), sum(inputs, 'storage'));
    const savedTx = s.runFilters.getBinary(encodeRunFilterKey(RunKind.MergeTx, merge.id));
    const savedStorage = s.runFilters.getBinary(encodeRunFilterKey(RunKind.MergeStorage, merge.id));
    if (
      savedTx?.length === 4 + filters.txBits.length &&
      savedStorage?.length === 4 + filters.storageBits.length &&
      savedTx.readUInt32BE(0) === merge.txs &&
      savedStorage.readUInt32BE(0) === merge.storage
    ) {
      filters.txBits.set(savedTx.subarray(4));
      filters.storageBits.set(savedStorage.subarray(4));
      filters.txs = merge.txs;
      filters.storage = merge.storage;
      this.pending.set(merge.id, filters);
      this.kept.add(merge.id);
      return filters;
    }
    if (merge.txs + merge.storage > 0) filterRebuilds++;
    const range = { start: runStartKey(merge.id), end: runStartKey(merge.id + 1) };
    for (const { value } of s.txRuns.getRange(range)) {
      for (let at = 0; at + TX_ENTRY_BYTES <= value.length; at += TX_ENTRY_BYTES) {
        filterAddTxEntry(filters.txBits, value, at);
        filters.txs++;
      }
    }
    for (const { value } of s.storageRuns.getRange(range)) {
      const reader = new StorageChunkReader(value);
      while (reader.next()) {
        filterAdd(filters.storageBits, storageKeyHash(reader.key));
        filters.storage++;
      }
    }
    if (filters.txs !== merge.txs || filters.storage !== merge.storage)
      throw new Error(
        `merge into run ${merge.id}: its chunks hold ${filters.txs} + ${filters.storage} entries, ` +
          `the manifest says ${merge.txs} + ${merge.storage}`,
      );
    this.pending.set(merge.id, filters);
    return filters;
  }

  /** Drops the filters of a merge that is whole, held and kept. */
  private forget(id: number): void {
    this.pending.delete(id);
    this.kept.delete(id);
    this.store.runFilters.remove(encodeRunFilterKey(RunKind.MergeTx, id));
    this.store.runFilters.remove(encodeRunFilterKey(RunKind.MergeStorage, id));
  }

  /** Deletes a run's chunks and filters. */
  private removeRun(id: number): void {
    const s = this.store;
    this.dropChunksBelow(s.txRuns, id);
    this.dropChunksBelow(s.storageRuns, id);
    s.runFilters.remove(encodeRunFilterKey(RunKind.Tx, id));
    s.runFilters.remove(encodeRunFilterKey(RunKind.Storage, id));
  }

  /**
   * Deletes the chunks of run `id` in `db` whose last key is below `key`, or all of them: a merge's step frees the
   * chunks of its inputs it has passed (the merged run holds their entries), so a merge in progress grows the store
   * by a step's entries, not by its whole output.
   */
  private dropChunksBelow(db: Store['txRuns'], id: number, key?: Uint8Array): void {
    const end = key ? encodeRunChunkKey(id, key) : runStartKey(id + 1);
    for (const k of Array.from(db.getKeys({ start: runStartKey(id), end }), (k) => Buffer.from(k))) db.remove(k);
  }

  /**
   * A rollback to block `to` below the freeze point: merges of runs it reaches are finished first (their steps have
   * freed what they passed of their inputs), runs starting after it are removed, the one holding it cut short (its
   * entries past `to` ignored until a merge drops them), and the freeze point moved back to `to`.
   */
  cut(to: number): void {
    const manifest = readManifest(this.store);
    if (!manifest || manifest.frozenTo <= to) return;
    for (const merge of [...manifest.merges]) {
      if (mergeInputs(manifest, merge).some((run) => run.to > to)) this.step(manifest, merge, Infinity);
    }
    while (manifest.runs.length > 0 && manifest.runs.at(-1)!.from > to) this.removeRun(manifest.runs.pop()!.id);
    const last = manifest.runs.at(-1);
    if (last && last.to > to) last.to = to;
    manifest.frozenTo = to;
    writeManifest(this.store, manifest);
  }
}

/** Times a writer rebuilt the filters of a merge in progress from its chunks, in this process (tests read it). */
let filterRebuilds = 0;

/** Times a writer rebuilt the filters of a merge in progress from its chunks, in this process. */
export function mergeFilterRebuilds(): number {
  return filterRebuilds;
}

/** A filter kept with the count of its entries: u32 count ‖ the filter. */
function counted(entries: number, bits: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(4 + bits.length);
  out.writeUInt32BE(entries, 0);
  out.set(bits, 4);
  return out;
}

/** Entries a merge writes in all: its inputs'. */
function mergeEntries(manifest: RunManifest, merge: MergeProgress): number {
  const inputs = mergeInputs(manifest, merge);
  return sum(inputs, 'txs') + sum(inputs, 'storage');
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
