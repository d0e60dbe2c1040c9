/**
 * Writes one frozen run (runs.ts): its entries, given in key order, cut into chunks of about one
 * page (runChunks.ts) and appended, and its two filters. A run may be written over several write
 * transactions (a merge in steps, freezer.ts): a step ends only where the chunk rule cuts anyway,
 * so the chunks do not depend on where the steps fell, and the filters, kept by the caller between
 * steps, are written once the run is whole.
 */

import { STORAGE_PREFIX_BYTES } from './keys.js';
import {
  CHUNK_BYTES,
  encodeRunChunkKey,
  encodeRunFilterKey,
  RunKind,
  StorageChunkWriter,
  TX_ENTRY_BYTES,
  TX_PREFIX_BYTES,
} from './runChunks.js';
import { filterAdd, filterAddTxEntry, filterBytes, storageKeyHash } from './runFilter.js';
import type { Store } from './schema.js';

/** Transaction-run entries a chunk holds (16 bytes each, within one page). */
const TX_CHUNK_ENTRIES = Math.floor(CHUNK_BYTES / TX_ENTRY_BYTES);

/** A run's two filters and the entries they hold. */
export interface RunFilters {
  txBits: Uint8Array;
  storageBits: Uint8Array;
  txs: number;
  storage: number;
}

/** Empty filters for a run of `txKeys` transaction entries and `storageKeys` storage entries. */
export function emptyRunFilters(txKeys: number, storageKeys: number): RunFilters {
  return {
    txBits: new Uint8Array(filterBytes(txKeys)),
    storageBits: new Uint8Array(filterBytes(storageKeys)),
    txs: 0,
    storage: 0,
  };
}

/** Writes one run's chunks (in key order, appended) and its filters. */
export class RunWriter {
  /** The open transaction chunk's entries (grown past TX_CHUNK_ENTRIES only for entries sharing one prefix). */
  private txChunk = Buffer.allocUnsafe(TX_CHUNK_ENTRIES * TX_ENTRY_BYTES);
  private txInChunk = 0;
  private readonly storageChunk = new StorageChunkWriter();
  /** The last transaction entry and storage key of the chunks written (undefined before the first). */
  lastTx: Buffer | undefined;
  lastStorage: Buffer | undefined;

  constructor(
    private readonly store: Store,
    readonly id: number,
    readonly filters: RunFilters,
  ) {}

  /** Entries added so far (with those of earlier steps the filters hold). */
  get txs(): number {
    return this.filters.txs;
  }

  get storage(): number {
    return this.filters.storage;
  }

  /** Whether adding the transaction entry at `bytes[offset]` would first close the open chunk. */
  txCutsBefore(bytes: Uint8Array, offset: number): boolean {
    return (
      this.txInChunk >= TX_CHUNK_ENTRIES &&
      !samePrefix(this.txChunk, (this.txInChunk - 1) * TX_ENTRY_BYTES, bytes, offset)
    );
  }

  /**
   * Adds the transaction-hash entry at `bytes[offset]` (ascending). Entries of one prefix stay in one chunk, so the
   * chunk a seek finds holds them all.
   */
  addTx(bytes: Uint8Array, offset: number): void {
    if (this.txCutsBefore(bytes, offset)) this.flushTx();
    let chunk = this.txChunk;
    const at = this.txInChunk * TX_ENTRY_BYTES;
    if (at + TX_ENTRY_BYTES > chunk.length) {
      const grown = Buffer.allocUnsafe(chunk.length * 2);
      chunk.copy(grown, 0, 0, at);
      this.txChunk = chunk = grown;
    }
    for (let i = 0; i < TX_ENTRY_BYTES; i++) chunk[at + i] = bytes[offset + i]!;
    this.txInChunk++;
    filterAddTxEntry(this.filters.txBits, bytes, offset);
    this.filters.txs++;
  }

  /** Writes the open transaction chunk. */
  flushTx(): void {
    if (this.txInChunk === 0) return;
    const end = this.txInChunk * TX_ENTRY_BYTES;
    const last = this.txChunk.subarray(end - TX_ENTRY_BYTES, end);
    append(
      this.store.txRuns,
      encodeRunChunkKey(this.id, last.subarray(0, TX_PREFIX_BYTES)),
      Buffer.from(this.txChunk.subarray(0, end)),
    );
    this.lastTx = Buffer.from(last);
    this.txInChunk = 0;
  }

  /** Whether adding a storage entry (`key`, a `length`-byte value) would first close the open chunk. */
  storageCutsBefore(key: Uint8Array, length: number): boolean {
    return !this.storageChunk.fits(key, length);
  }

  /** Adds a storage entry (ascending keys). */
  addStorage(key: Uint8Array, value: Uint8Array): void {
    this.addStorageParts(key, value, 0, value.length);
  }

  /** addStorage with the value as `length` bytes of `source` from `start` (and the key's words, when at hand). */
  addStorageParts(key: Uint8Array, source: Uint8Array, start: number, length: number, keyWords?: Uint32Array): void {
    const chunk = this.storageChunk;
    if (!chunk.addParts(key, source, start, length, keyWords)) {
      this.flushStorage();
      chunk.addParts(key, source, start, length, keyWords);
    }
    // A later write of the slot just added hashes the same (the filter keys address ‖ slot): its bits are set.
    if (chunk.lastShared < STORAGE_PREFIX_BYTES) filterAdd(this.filters.storageBits, storageKeyHash(key));
    this.filters.storage++;
  }

  /** Writes the open storage chunk. */
  flushStorage(): void {
    const chunk = this.storageChunk.take();
    if (!chunk) return;
    append(this.store.storageRuns, encodeRunChunkKey(this.id, chunk.last), chunk.value);
    this.lastStorage = Buffer.from(chunk.last);
  }

  /** Writes the open chunks and the filters: the run is whole. */
  finish(): void {
    this.flushTx();
    this.flushStorage();
    const { txBits, storageBits, txs, storage } = this.filters;
    if (txs > 0) this.store.runFilters.put(encodeRunFilterKey(RunKind.Tx, this.id), Buffer.from(txBits));
    if (storage > 0) this.store.runFilters.put(encodeRunFilterKey(RunKind.Storage, this.id), Buffer.from(storageBits));
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
