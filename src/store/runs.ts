/**
 * Frozen runs (docs/architecture.md §3): the transaction-hash index and the storage history of
 * blocks behind the freeze point, kept as sorted runs instead of entries of the random-key B-trees
 * `txByHash` and `storage` (which hold the recent blocks only). A run covers a range of blocks and
 * has two parts, its transaction-hash entries (txRuns) and its storage entries (storageRuns), each
 * in chunks keyed by run id ‖ last key (runChunks.ts), and a bloom filter per part (runFilters).
 * The manifest in meta lists the runs, oldest first, and the freeze point. This module reads them:
 * the manifest, the filters (cached, a run never changes), the lookups, newest run first, and a
 * run's entries in key order (the cursors a merge reads its inputs through).
 */
import { STORAGE_PREFIX_BYTES } from './keys.js';
import {
  encodeRunChunkKey,
  encodeRunFilterKey,
  RunKind,
  runStartKey,
  STORAGE_KEY_BYTES,
  StorageChunkReader,
  TX_ENTRY_BYTES,
  TX_PREFIX_BYTES,
  txEntryIndex,
  txEntryNumber,
} from './runChunks.js';
import { filterMayHold, type KeyHash, storageKeyHash, txKeyHash } from './runFilter.js';
import type { Store } from './schema.js';

/** Meta key of the run manifest. */
export const RUNS_KEY = 'runs';
/**
 * Meta key of the manifest's mark, its freeze point and next run id: every change moves one of them
 * (a freeze or merge takes a new id; a cut lowers the freeze point), so a reader reloads the
 * manifest when the mark differs, and the mark depends only on the manifest, not on the batches.
 */
export const RUNS_MARK_KEY = 'runsMark';

/**
 * One run: its id, level (0 for a freshly frozen one; a merge of level L's runs is one run of L + 1), the blocks it
 * covers and its entry counts.
 */
export interface RunInfo {
  id: number;
  level: number;
  from: number;
  /**
   * The last block it covers; a rollback below it lowers it, and entries of later blocks are ignored until a merge
   * drops them.
   */
  to: number;
  txs: number;
  storage: number;
}

/**
 * A merge in progress (freezer.ts): the merged run's id and level, its inputs (runs of the level
 * below, contiguous, oldest first, serving lookups until the merge is whole), the part being written
 * (transaction entries, then storage entries), the last key written of it (hex; empty before the
 * part's first chunk), and the entries written so far. Its chunks lie under its id; its filters are
 * written with its last step.
 */
export interface MergeProgress {
  id: number;
  level: number;
  inputs: number[];
  part: 'tx' | 'storage';
  after: string;
  txs: number;
  storage: number;
}

/**
 * The run manifest: the runs, oldest first (contiguous ranges ending at frozenTo), the last frozen block, the next run
 * id, and the merges in progress.
 */
export interface RunManifest {
  frozenTo: number;
  nextId: number;
  runs: RunInfo[];
  merges: MergeProgress[];
}

/** The manifest of `store`, or undefined while nothing is frozen. */
export function readManifest(store: Store): RunManifest | undefined {
  const raw = store.meta.get(RUNS_KEY) as (Omit<RunManifest, 'merges'> & { merges?: MergeProgress[] }) | undefined;
  return raw === undefined
    ? undefined
    : {
        frozenTo: raw.frozenTo,
        nextId: raw.nextId,
        runs: raw.runs.map((r) => ({ ...r })),
        merges: (raw.merges ?? []).map((m) => ({ ...m, inputs: [...m.inputs] })),
      };
}

/** The last key a merge in progress has written of its part (MergeProgress.after, hex), or undefined before any. */
export function mergeAfter(merge: MergeProgress): Buffer | undefined {
  return merge.after === '' ? undefined : Buffer.from(merge.after, 'hex');
}

/** The runs a merge in progress reads, oldest first. */
export function mergeInputs(manifest: RunManifest, merge: MergeProgress): RunInfo[] {
  return merge.inputs.map((id) => manifest.runs.find((run) => run.id === id)!);
}

/** Within a write transaction: stores the manifest and its mark. */
export function writeManifest(store: Store, manifest: RunManifest): void {
  store.meta.put(RUNS_KEY, manifest);
  store.meta.put(RUNS_MARK_KEY, `${manifest.frozenTo}/${manifest.nextId}`);
}

/** The block number of a storage key (its last 8 bytes, u64(2^64−1 − number)). */
export function storageKeyNumber(key: Uint8Array): number {
  const at = STORAGE_PREFIX_BYTES;
  const high = ~((key[at]! << 24) | (key[at + 1]! << 16) | (key[at + 2]! << 8) | key[at + 3]!) >>> 0;
  const low = ~((key[at + 4]! << 24) | (key[at + 5]! << 16) | (key[at + 6]! << 8) | key[at + 7]!) >>> 0;
  return high * 2 ** 32 + low;
}

/** The chunk values of run `id` of a runs database in key order, from the chunk that can hold key `from` on. */
function chunkValues(db: Store['txRuns'], id: number, from?: Uint8Array): Iterator<{ value: Buffer }> {
  const start = from ? encodeRunChunkKey(id, from) : runStartKey(id);
  return db.getRange({ start, end: runStartKey(id + 1) })[Symbol.iterator]();
}

/** The big-endian u32 at `bytes[at]`. */
function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/**
 * A run's transaction-hash entries in key order, those past run.to and those not above `after` left out: the current
 * one at `bytes[at]`, its 16 bytes also as four big-endian u32 words (k0…k3), so a merge orders heads with number
 * comparisons.
 */
export class TxRunCursor {
  private readonly chunks: Iterator<{ value: Buffer }>;
  private readonly to: number;
  /** The entry to resume after, as four words; skipping until an entry above it is found. */
  private readonly after: number[] | undefined;
  private skipping: boolean;
  bytes: Uint8Array = new Uint8Array(0);
  at = -TX_ENTRY_BYTES;
  k0 = 0;
  k1 = 0;
  k2 = 0;
  k3 = 0;
  done = false;

  constructor(store: Store, run: RunInfo, after?: Uint8Array) {
    this.chunks = chunkValues(store.txRuns, run.id, after?.subarray(0, TX_PREFIX_BYTES));
    this.to = run.to;
    this.after = after ? [u32(after, 0), u32(after, 4), u32(after, 8), u32(after, 12)] : undefined;
    this.skipping = after !== undefined;
    this.next();
  }

  /** Moves to the next entry; sets done past the last. */
  next(): void {
    for (;;) {
      this.at += TX_ENTRY_BYTES;
      if (this.at + TX_ENTRY_BYTES > this.bytes.length) {
        const chunk = this.chunks.next();
        if (chunk.done) {
          this.done = true;
          return;
        }
        this.bytes = chunk.value.value;
        this.at = -TX_ENTRY_BYTES;
        continue;
      }
      if (txEntryNumber(this.bytes, this.at) > this.to) continue;
      const { bytes, at } = this;
      this.k0 = u32(bytes, at);
      this.k1 = u32(bytes, at + 4);
      this.k2 = u32(bytes, at + 8);
      this.k3 = u32(bytes, at + 12);
      if (this.skipping) {
        if (!wordsAbove(this, this.after!)) continue;
        this.skipping = false;
      }
      return;
    }
  }
}

/** Whether cursor c's entry is above the entry given as four words. */
function wordsAbove(c: TxRunCursor, w: number[]): boolean {
  if (c.k0 !== w[0]) return c.k0 > w[0]!;
  if (c.k1 !== w[1]) return c.k1 > w[1]!;
  if (c.k2 !== w[2]) return c.k2 > w[2]!;
  return c.k3 > w[3]!;
}

/**
 * A run's storage entries in key order, those past run.to and those not above `after` left out: the current one in
 * `reader` (key and value range), its key's first four bytes also as a number (k0).
 */
export class StorageRunCursor {
  private readonly chunks: Iterator<{ value: Buffer }>;
  private readonly to: number;
  private readonly after: Uint8Array | undefined;
  /** Whether entries are still skipped as not above `after` (the first above it ends that: keys ascend). */
  private skipping: boolean;
  reader: StorageChunkReader | undefined;
  k0 = 0;
  done = false;

  constructor(store: Store, run: RunInfo, after?: Uint8Array) {
    this.chunks = chunkValues(store.storageRuns, run.id, after);
    this.to = run.to;
    this.after = after;
    this.skipping = after !== undefined;
    this.next();
  }

  /** Moves to the next entry; sets done past the last. */
  next(): void {
    for (;;) {
      if (this.reader === undefined || !this.reader.next()) {
        const chunk = this.chunks.next();
        if (chunk.done) {
          this.done = true;
          return;
        }
        this.reader = new StorageChunkReader(chunk.value.value);
        continue;
      }
      const key = this.reader.key;
      if (storageKeyNumber(key) > this.to) continue;
      if (this.skipping) {
        if (compareBytes(key, 0, this.after!, 0, STORAGE_KEY_BYTES) <= 0) continue;
        this.skipping = false;
      }
      this.k0 = u32(key, 0);
      return;
    }
  }
}

/** A merge in progress as lookups see it: its inputs, the run it writes, and how far that run holds their entries. */
interface MergeView {
  inputs: number[];
  /** The merged run (its range the inputs'; its counts unknown until it is whole). */
  output: RunInfo;
  /** The inputs' transaction entries the merged run holds: all (true), those up to this entry's prefix, or none. */
  txMerged: true | Buffer | undefined;
  /** The inputs' storage entries the merged run holds: those up to this key, or none. */
  storageMerged: Buffer | undefined;
}

/**
 * A run's fence: the last key of each of its chunks, in order, read once from the chunk keys. The
 * chunk that can hold a key is the first whose last key is not below it, so a lookup finds it by
 * a binary search here and reads it with one get, instead of positioning a cursor.
 */
class Fence {
  /** The chunks' last keys, `width` bytes each, concatenated. */
  private lasts = Buffer.alloc(0);
  count = 0;

  private constructor(private readonly width: number) {}

  /** The fence of run `id` in `db`, whose chunk keys are u32 id ‖ a `width`-byte last key. */
  static read(db: Store['txRuns'], id: number, width: number): Fence {
    const fence = new Fence(width);
    fence.extend(db, id);
    return fence;
  }

  /** Adds the chunks of run `id` after the last one read: a merge in progress only appends chunks to its run. */
  extend(db: Store['txRuns'], id: number): void {
    const w = this.width;
    const parts: Buffer[] = [this.lasts];
    const start =
      this.count > 0 ? this.chunkKey(Buffer.allocUnsafe(RUN_KEY_ID_BYTES + w), id, this.count - 1) : undefined;
    for (const key of db.getKeys({ start: start ?? runStartKey(id), end: runStartKey(id + 1) })) {
      if (start !== undefined && (key as Buffer).equals(start)) continue;
      parts.push(Buffer.from((key as Buffer).subarray(RUN_KEY_ID_BYTES, RUN_KEY_ID_BYTES + w)));
    }
    if (parts.length === 1) return;
    this.count += parts.length - 1;
    this.lasts = Buffer.concat(parts);
  }

  /** The index of the first chunk whose last key is not below `key`'s first `width` bytes, or −1 past the end. */
  find(key: Uint8Array): number {
    const w = this.width;
    const lasts = this.lasts;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(lasts, mid * w, key, 0, w) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.count ? lo : -1;
  }

  /** Writes the key of chunk `i` of run `id` into `out` (u32 id ‖ its last key); returns its length. */
  chunkKey(out: Buffer, id: number, i: number): Buffer {
    out.writeUInt32BE(id, 0);
    this.lasts.copy(out, RUN_KEY_ID_BYTES, i * this.width, i * this.width + this.width);
    return out.subarray(0, RUN_KEY_ID_BYTES + this.width);
  }
}

/** Orders `a[aAt..aAt+length)` against `b[bAt..bAt+length)` bytewise (no native call: these are short). */
function compareBytes(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number, length: number): number {
  for (let i = 0; i < length; i++) {
    const d = a[aAt + i]! - b[bAt + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Bytes of the run id a chunk key starts with. */
const RUN_KEY_ID_BYTES = 4;

/**
 * Reads the frozen runs of a store: the manifest (reloaded when its epoch moves), the filters and fences (cached by run
 * id) and the lookups.
 */
export class FrozenRuns {
  private mark: Buffer | undefined;
  private manifestValue: RunManifest | undefined;
  private readonly filters = new Map<string, Uint8Array>();
  private readonly fences = new Map<string, Fence>();
  /** The merge in progress each run being merged is an input of, by the run's id (rebuilt with the manifest). */
  private readonly merging = new Map<number, MergeView>();
  /** The fences of the runs merges in progress are writing, by kind:id, extended as their steps append chunks. */
  private readonly partialFences = new Map<string, Fence>();
  /** The partial fences not extended since the manifest last moved. */
  private readonly stale = new Set<string>();
  /** A storage seek key, reused. */
  private readonly seek = Buffer.allocUnsafe(STORAGE_KEY_BYTES);
  /** A chunk key, reused. */
  private readonly chunkKey = Buffer.allocUnsafe(RUN_KEY_ID_BYTES + STORAGE_KEY_BYTES);
  /** A block key (u64 number), reused. */
  private readonly blockKey = Buffer.allocUnsafe(8);
  /**
   * The block numbers and indexes of a chunk's entries of one hash prefix, copied out before their records are read.
   */
  private readonly matches: number[] = [];

  constructor(private readonly store: Store) {}

  /** The current manifest, or undefined while nothing is frozen. */
  manifest(): RunManifest | undefined {
    // The mark's encoded bytes, compared without decoding: one read where nothing changed.
    const raw = this.store.meta.getBinaryFast(RUNS_MARK_KEY);
    const same = raw === undefined ? this.mark === undefined : this.mark?.equals(raw.subarray(0, raw.length));
    if (!same) {
      this.mark = raw === undefined ? undefined : Buffer.from(raw.subarray(0, raw.length));
      this.manifestValue = readManifest(this.store);
      const live = new Set(this.manifestValue?.runs.map((r) => r.id));
      for (const key of this.filters.keys()) if (!live.has(Number(key.slice(2)))) this.filters.delete(key);
      for (const key of this.fences.keys()) if (!live.has(Number(key.slice(2)))) this.fences.delete(key);
      this.readMerges(this.manifestValue);
    }
    return this.manifestValue;
  }

  /** Rebuilds the map of the merges in progress from a new manifest; their partial fences go stale. */
  private readMerges(manifest: RunManifest | undefined): void {
    this.merging.clear();
    const writing = new Set<number>();
    for (const merge of manifest?.merges ?? []) {
      const inputs = mergeInputs(manifest!, merge);
      const view: MergeView = {
        inputs: merge.inputs,
        output: { id: merge.id, level: merge.level, from: inputs[0]!.from, to: inputs.at(-1)!.to, txs: 0, storage: 0 },
        txMerged: merge.part === 'storage' ? true : mergeAfter(merge),
        storageMerged: merge.part === 'storage' ? mergeAfter(merge) : undefined,
      };
      for (const id of merge.inputs) this.merging.set(id, view);
      writing.add(merge.id);
    }
    for (const key of this.partialFences.keys()) if (!writing.has(Number(key.slice(2)))) this.partialFences.delete(key);
    this.stale.clear();
    for (const key of this.partialFences.keys()) this.stale.add(key);
  }

  /** The last frozen block (−1 while nothing is frozen): the recent B-trees hold the blocks after it. */
  frozenTo(): number {
    return this.manifest()?.frozenTo ?? -1;
  }

  /** A run's filter of one kind (loaded once). */
  private filter(kind: RunKind, id: number): Uint8Array | undefined {
    const name = `${kind}:${id}`;
    let filter = this.filters.get(name);
    if (filter === undefined) {
      const raw = this.store.runFilters.getBinary(encodeRunFilterKey(kind, id));
      if (raw === undefined) return undefined;
      filter = new Uint8Array(raw);
      this.filters.set(name, filter);
    }
    return filter;
  }

  /** A run's fence of one kind (read once). */
  private fence(kind: RunKind, id: number): Fence {
    const name = `${kind}:${id}`;
    let fence = this.fences.get(name);
    if (fence === undefined) {
      fence =
        kind === RunKind.Tx
          ? Fence.read(this.store.txRuns, id, TX_PREFIX_BYTES)
          : Fence.read(this.store.storageRuns, id, STORAGE_KEY_BYTES);
      this.fences.set(name, fence);
    }
    return fence;
  }

  /** The fence of the run a merge in progress is writing, with the chunks its steps have appended so far. */
  private partialFence(kind: RunKind, id: number): Fence {
    const name = `${kind}:${id}`;
    const db = kind === RunKind.Tx ? this.store.txRuns : this.store.storageRuns;
    let fence = this.partialFences.get(name);
    if (fence === undefined) {
      fence = Fence.read(db, id, kind === RunKind.Tx ? TX_PREFIX_BYTES : STORAGE_KEY_BYTES);
      this.partialFences.set(name, fence);
    } else if (this.stale.delete(name)) fence.extend(db, id);
    return fence;
  }

  /** Whether any of the runs' filters of one kind may hold the key (a run without one may). */
  private anyMayHold(kind: RunKind, ids: number[], keyHash: KeyHash): boolean {
    for (const id of ids) {
      const filter = this.filter(kind, id);
      if (!filter || filterMayHold(filter, keyHash)) return true;
    }
    return false;
  }

  /**
   * Where the transaction with this hash sits in the frozen blocks: the runs newest first, each
   * skipped when its filter rules the hash out, else its one chunk that can hold the hash's prefix
   * read, and every entry of that prefix checked against the full hash in its block's txHashes record.
   */
  txLocation(hash: Uint8Array): { number: number; index: number } | undefined {
    const manifest = this.manifest();
    if (!manifest) return undefined;
    const prefix = Buffer.from(hash.buffer, hash.byteOffset, TX_PREFIX_BYTES);
    const keyHash = txKeyHash(prefix);
    for (let r = manifest.runs.length - 1; r >= 0; r--) {
      const run = manifest.runs[r]!;
      const merge = this.merging.get(run.id);
      const merged = merge?.txMerged;
      if (merged === true || (merged !== undefined && compareBytes(prefix, 0, merged, 0, TX_PREFIX_BYTES) <= 0)) {
        // The merged run holds every entry of this prefix its inputs held (their chunks are freed): read it once for
        // them all, the newest input's place in this walk.
        r -= merge!.inputs.length - 1;
        if (!this.anyMayHold(RunKind.Tx, merge!.inputs, keyHash)) continue;
        const found = this.txInRun(merge!.output, this.partialFence(RunKind.Tx, merge!.output.id), hash, prefix);
        if (found) return found;
        continue;
      }
      const filter = this.filter(RunKind.Tx, run.id);
      if (filter && !filterMayHold(filter, keyHash)) continue;
      const found = this.txInRun(run, this.fence(RunKind.Tx, run.id), hash, prefix);
      if (found) return found;
    }
    return undefined;
  }

  /** The transaction with this hash in one run, whose fence is `fence`. */
  private txInRun(
    run: RunInfo,
    fence: Fence,
    hash: Uint8Array,
    prefix: Buffer,
  ): { number: number; index: number } | undefined {
    const chunk = fence.find(prefix);
    if (chunk < 0) return undefined;
    const value = this.store.txRuns.getBinaryFast(fence.chunkKey(this.chunkKey, run.id, chunk));
    if (value === undefined) return undefined;
    // The first entry whose prefix is not below the hash's: a binary search over the chunk's fixed-size entries.
    const length = value.length;
    let lo = 0;
    let hi = length / TX_ENTRY_BYTES;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(value, mid * TX_ENTRY_BYTES, prefix, 0, TX_PREFIX_BYTES) < 0) lo = mid + 1;
      else hi = mid;
    }
    // Copied out first: reading a block's hashes reuses the buffer the chunk was read into.
    const matches = this.matches;
    matches.length = 0;
    for (let at = lo * TX_ENTRY_BYTES; at < length; at += TX_ENTRY_BYTES) {
      if (compareBytes(value, at, prefix, 0, TX_PREFIX_BYTES) !== 0) break;
      const number = txEntryNumber(value, at);
      if (number <= run.to) matches.push(number, txEntryIndex(value, at));
    }
    for (let m = 0; m < matches.length; m += 2) {
      if (this.txHashIs(matches[m]!, matches[m + 1]!, hash)) return { number: matches[m]!, index: matches[m + 1]! };
    }
    return undefined;
  }

  /** Whether transaction `index` of block `number` has this hash (in the block's txHashes record). */
  private txHashIs(number: number, index: number, hash: Uint8Array): boolean {
    const key = this.blockKey;
    key.writeUInt32BE(Math.floor(number / 2 ** 32), 0);
    key.writeUInt32BE(number % 2 ** 32, 4);
    const hashes = this.store.txHashes.getBinaryFast(key);
    const at = index * 32;
    return hashes !== undefined && at + 32 <= hashes.length && compareBytes(hashes, at, hash, 0, 32) === 0;
  }

  /**
   * The value of the newest write at or before block `number` of the slot whose key prefix
   * (address ‖ slot) `key` starts with, in the frozen blocks, or undefined when none: the runs
   * newest first, from the one holding `number`; the first with such a write answers.
   */
  storageAt(key: Uint8Array, number: number): Uint8Array | undefined {
    const manifest = this.manifest();
    if (!manifest) return undefined;
    const keyHash = storageKeyHash(key);
    const seek = this.seek;
    seek.set(key.subarray(0, STORAGE_PREFIX_BYTES), 0);
    let read: MergeView | undefined;
    for (let r = manifest.runs.length - 1; r >= 0; r--) {
      const run = manifest.runs[r]!;
      if (run.from > number) continue;
      const merge = this.merging.get(run.id);
      const merged = merge?.storageMerged;
      if (merged !== undefined && read !== merge) {
        read = merge;
        writeInvertedNumber(seek, Math.min(number, run.to));
        const found = this.storageInMerged(merge!, merged, seek, keyHash);
        if (found) return found;
      }
      const filter = this.filter(RunKind.Storage, run.id);
      if (filter && !filterMayHold(filter, keyHash)) continue;
      writeInvertedNumber(seek, Math.min(number, run.to));
      // An input's chunks below `merged` are freed: its entries at or below it were read in the merged run.
      const from = merged !== undefined && compareBytes(seek, 0, merged, 0, STORAGE_KEY_BYTES) < 0 ? merged : seek;
      const found = this.storageInRun(run.id, this.fence(RunKind.Storage, run.id), seek, from);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * The answer a merge in progress's run holds for `seek` (from its newest input holding the block): it holds its
   * inputs' entries up to `merged`, so when the seek falls there, its first entry of the slot from the seek on is the
   * newest write of them all (the inputs' own, above `merged`, are older writes).
   */
  private storageInMerged(merge: MergeView, merged: Buffer, seek: Buffer, keyHash: KeyHash): Uint8Array | undefined {
    if (compareBytes(seek, 0, merged, 0, STORAGE_KEY_BYTES) > 0) return undefined;
    if (!this.anyMayHold(RunKind.Storage, merge.inputs, keyHash)) return undefined;
    const id = merge.output.id;
    return this.storageInRun(id, this.partialFence(RunKind.Storage, id), seek, seek);
  }

  /**
   * The first entry of run `id` (whose fence is `fence`) at or after `seek` when it has seek's address ‖ slot: its
   * value (a copy), read from the chunk that can hold key `from` (seek, or a later key where earlier chunks are freed).
   */
  private storageInRun(id: number, fence: Fence, seek: Buffer, from: Uint8Array): Uint8Array | undefined {
    const chunk = fence.find(from);
    if (chunk < 0) return undefined;
    const value = this.store.storageRuns.getBinaryFast(fence.chunkKey(this.chunkKey, id, chunk));
    if (value === undefined) return undefined;
    const reader = new StorageChunkReader(value.subarray(0, value.length));
    while (reader.next()) {
      if (compareBytes(reader.key, 0, seek, 0, STORAGE_KEY_BYTES) < 0) continue;
      if (compareBytes(reader.key, 0, seek, 0, STORAGE_PREFIX_BYTES) !== 0) return undefined;
      return new Uint8Array(reader.value);
    }
    return undefined;
  }
}

/** Writes u64(2^64−1 − number) into a storage key's last 8 bytes. */
export function writeInvertedNumber(key: Uint8Array, number: number): void {
  const at = STORAGE_PREFIX_BYTES;
  const high = ~Math.floor(number / 2 ** 32) >>> 0;
  const low = ~(number % 2 ** 32) >>> 0;
  key[at] = high >>> 24;
  key[at + 1] = (high >>> 16) & 255;
  key[at + 2] = (high >>> 8) & 255;
  key[at + 3] = high & 255;
  key[at + 4] = low >>> 24;
  key[at + 5] = (low >>> 16) & 255;
  key[at + 6] = (low >>> 8) & 255;
  key[at + 7] = low & 255;
}
