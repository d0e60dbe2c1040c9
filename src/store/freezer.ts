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

import { keyOrder } from './keyOrder.js';
import { encodeBlockKey, STORAGE_PREFIX_BYTES, storageKeySuffix } from './keys.js';
import {
  CHUNK_BYTES,
  encodeRunChunkKey,
  encodeRunFilterKey,
  RunKind,
  runStartKey,
  StorageChunkWriter,
  TX_ENTRY_BYTES,
  TX_PREFIX_BYTES,
  writeTxEntry,
} from './runChunks.js';
import { filterAdd, filterBytes, storageKeyHash, txKeyHash } from './runFilter.js';
import {
  type RunInfo,
  type RunManifest,
  readManifest,
  storageKeyNumber,
  storageRunEntries,
  txRunEntries,
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
 * Blocks behind the head a unit must be to freeze: four epochs, twice mainnet's finality (64 blocks),
 * so reorganisations (one or two blocks, almost all) touch only the recent B-trees. A deeper rollback
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

/** The entries of blocks frozen in the batch that brings them: kept from the B-trees, put straight into their run. */
export class FrozenBatch {
  readonly txEntries: Buffer[] = [];
  readonly storageKeys: Buffer[] = [];
  readonly storageValues: Buffer[] = [];
  /** The blocks whose entries are here, in order. */
  readonly blocks: number[] = [];

  addTx(hash: Uint8Array, number: number, index: number): void {
    const entry = Buffer.allocUnsafe(TX_ENTRY_BYTES);
    writeTxEntry(entry, 0, hash, number, index);
    this.txEntries.push(entry);
  }

  addStorage(key: Buffer, value: Buffer): void {
    this.storageKeys.push(key);
    this.storageValues.push(value);
  }
}

/** The last block of the units that may freeze at head `head` (−1 when none). */
export function freezeTarget(head: number): number {
  return Math.floor((head - FREEZE_LAG + 1) / FREEZE_BLOCKS) * FREEZE_BLOCKS - 1;
}

/** Writes one run's chunks (in key order, appended) and its filter. */
class RunWriter {
  private readonly txChunk: Buffer[] = [];
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
   * Adds a transaction-hash entry (ascending). Entries of one prefix stay in one chunk, so the chunk a seek finds holds
   * them all.
   */
  addTx(entry: Uint8Array): void {
    const chunk = this.txChunk;
    if (
      chunk.length >= TX_CHUNK_ENTRIES &&
      Buffer.compare(chunk.at(-1)!.subarray(0, TX_PREFIX_BYTES), entry.subarray(0, TX_PREFIX_BYTES)) !== 0
    )
      this.flushTx();
    chunk.push(Buffer.from(entry));
    filterAdd(this.txFilter, txKeyHash(entry));
    this.txs++;
  }

  private flushTx(): void {
    if (this.txChunk.length === 0) return;
    const last = this.txChunk.at(-1)!.subarray(0, TX_PREFIX_BYTES);
    append(this.store.txRuns, encodeRunChunkKey(this.id, last), Buffer.concat(this.txChunk));
    this.txChunk.length = 0;
  }

  /** Adds a storage entry (ascending keys). */
  addStorage(key: Uint8Array, value: Uint8Array): void {
    if (!this.storageChunk.add(key, value)) {
      this.flushStorage();
      this.storageChunk.add(key, value);
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
      const tx: Buffer[] = [];
      const keys: Buffer[] = [];
      const values: Buffer[] = [];
      for (let n = from; n <= Math.min(to, batchStart - 1); n++) this.takeRecent(n, tx, keys, values);
      while (txAt < batchTx.length && entryNumber(batchTx[txAt]!) <= to) tx.push(batchTx[txAt++]!);
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
  private takeRecent(n: number, tx: Buffer[], keys: Buffer[], values: Buffer[]): void {
    const s = this.store;
    const blockKey = encodeBlockKey(n);
    const hashes = s.txHashes.getBinary(blockKey);
    if (hashes) {
      for (let i = 0, at = 0; at < hashes.length; i++, at += 32) {
        const hash = hashes.subarray(at, at + 32);
        const entry = Buffer.allocUnsafe(TX_ENTRY_BYTES);
        writeTxEntry(entry, 0, hash, n, i);
        tx.push(entry);
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
    tx: Buffer[],
    keys: Buffer[],
    values: Buffer[],
  ): void {
    const txOrder = keyOrder(tx);
    const keyOrdering = keyOrder(keys);
    const writer = new RunWriter(this.store, manifest.nextId, tx.length, keys.length);
    for (let i = 0; i < txOrder.length; i++) writer.addTx(tx[txOrder[i]!]!);
    for (let i = 0; i < keyOrdering.length; i++) {
      const at = keyOrdering[i]!;
      // Of equal keys (a slot written twice in a block's list), the last added stays, as put after put would leave it.
      if (i + 1 < keyOrdering.length && Buffer.compare(keys[at]!, keys[keyOrdering[i + 1]!]!) === 0) continue;
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
    mergeOrdered(
      inputs.map((run) => txRunEntries(s, run)),
      (entry) => entry,
      (entry) => writer.addTx(entry),
    );
    mergeOrdered(
      inputs.map((run) => storageRunEntries(s, run)),
      (reader) => reader.key,
      (reader) => writer.addStorage(reader.key, reader.value),
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

/** The block number of a transaction-run entry. */
function entryNumber(entry: Buffer): number {
  return entry.readUInt32BE(TX_PREFIX_BYTES) * 2 ** 8 + entry[TX_PREFIX_BYTES + 4]!;
}

/**
 * Merges sorted streams into `out` in key order: the least head among the streams (at most
 * MERGE_FAN_IN, so a linear pick) goes next. Keys are distinct across streams (their runs cover
 * different blocks).
 */
function mergeOrdered<T>(streams: Iterator<T>[], keyOf: (item: T) => Uint8Array, out: (item: T) => void): void {
  const heads: (IteratorResult<T> | undefined)[] = streams.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (head.done) continue;
      if (best < 0 || Buffer.compare(keyOf(head.value), keyOf((heads[best] as IteratorYieldResult<T>).value)) < 0)
        best = i;
    }
    if (best < 0) return;
    out((heads[best] as IteratorYieldResult<T>).value);
    heads[best] = streams[best]!.next();
  }
}
