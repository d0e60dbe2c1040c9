/**
 * Point lookups over the store: synchronous LMDB reads, decoded into domain types.
 */
import type { ChainKind } from '../chain/chainKind.js';
import type { BlockBundle, BlockHeader, ChainMeta, Log, Receipt, Transaction } from '../chain/types.js';
import { BlockTxsReader } from './blockTxsRecord.js';
import { decodeBundle, decodeHeader, decodeTx } from './codec.js';
import {
  decodeBlockKey,
  decodeTxKey,
  encodeBlockKey,
  HASH_BYTES,
  STORAGE_KEY_BYTES,
  STORAGE_PREFIX_BYTES,
  writeBlockKey,
  writeStorageKey,
} from './keys.js';
import { decodeLogs } from './logsRecord.js';
import { decodeReceipts } from './receiptsRecord.js';
import { FrozenRuns } from './runs.js';
import { CHAIN_KIND_KEY, ROLLBACKS_KEY, type Store } from './schema.js';

/** Where a transaction sits: block number and index in the block. */
export interface TxLocation {
  number: number;
  index: number;
}

/** The store's count of rollbacks (0 before the first). */
export function storedRollbacks(store: Store): number {
  return (store.meta.get(ROLLBACKS_KEY) as number | undefined) ?? 0;
}

/** How a reader reads the store's markers. */
export interface StoreReaderOptions {
  /**
   * Remember the head and earliest block numbers and the rollback count until the event loop's next timer phase, as
   * lmdb-js keeps its read snapshot (every read of a tick sees one snapshot): a read-only serving
   * process then reads each marker once per tick instead of once or twice per request. Only for
   * readers of a store no code in the same process writes to: a write's new head would be seen a
   * tick late (about a millisecond).
   */
  perTick?: boolean;
}

/** Reads chain data from an open store. */
export class StoreReader {
  /** Key buffers the raw point reads reuse (LMDB copies a key before the read returns). */
  private readonly blockKey = Buffer.allocUnsafe(8);
  /** Expands the transactions of the record txRecord read (LMDB's read buffer, read at once). */
  private readonly txReader = new BlockTxsReader();
  /** A copy of the transactions record txRecords read, and the reader over it. */
  private txsCopy = new Uint8Array(64 * 1024);
  private readonly txsReader = new BlockTxsReader();
  private readonly storageKey = Buffer.allocUnsafe(STORAGE_KEY_BYTES);

  /** The frozen runs of the transaction-hash index and the storage history. */
  private readonly runs: FrozenRuns;

  /** The chain id once read: a store holds one chain, whose id never changes. */
  private chainIdValue: bigint | undefined;

  /** The markers remembered for the current tick (perTick readers only). */
  private tickHead: number | undefined;
  private tickEarliest: number | undefined;
  private tickRollbacks = 0;
  private tickMarksText: string | undefined;
  private tickFresh = false;
  private readonly perTick: boolean;
  private readonly expireTick = (): void => {
    this.tickFresh = false;
  };

  /** Reads from `store`. */
  constructor(
    readonly store: Store,
    options: StoreReaderOptions = {},
  ) {
    this.perTick = options.perTick === true;
    this.runs = new FrozenRuns(store);
  }

  /** Reads the head and earliest markers once for this tick (perTick readers). */
  private readMarkers(): void {
    this.tickHead = this.store.meta.get('head') as number | undefined;
    this.tickEarliest = this.store.meta.get('earliest') as number | undefined;
    this.tickRollbacks = storedRollbacks(this.store);
    this.tickMarksText = undefined;
    this.tickFresh = true;
    setTimeout(this.expireTick, 0).unref();
  }

  /** The chain markers, or undefined while the store holds no block. */
  /** The chain's recorded kind (meta CHAIN_KIND_KEY), undefined when none is recorded. */
  chainKind(): ChainKind | undefined {
    return this.store.meta.get(CHAIN_KIND_KEY) as ChainKind | undefined;
  }

  meta(): ChainMeta | undefined {
    const head = this.head();
    if (head === undefined) return undefined;
    return {
      chainId: this.chainId(),
      earliest: this.earliest(),
      head,
      safe: (this.store.meta.get('safe') as number | undefined) ?? head,
      finalized: (this.store.meta.get('finalized') as number | undefined) ?? head,
    };
  }

  /** The chain id (read once; call it once the store holds a block). */
  chainId(): bigint {
    return (this.chainIdValue ??= BigInt(this.store.meta.get('chainId') as string));
  }

  /**
   * The head block number alone (one read, where meta() reads every marker), or undefined while the store holds no
   * block.
   */
  head(): number | undefined {
    if (!this.perTick) return this.store.meta.get('head') as number | undefined;
    if (!this.tickFresh) this.readMarkers();
    return this.tickHead;
  }

  /** The first stored block number alone (once the store holds a block). */
  earliest(): number {
    if (!this.perTick) return this.store.meta.get('earliest') as number;
    if (!this.tickFresh) this.readMarkers();
    return this.tickEarliest!;
  }

  /**
   * How many times blocks were rolled back in this store (0 before the first): caches of block contents are valid while
   * it stays.
   */
  rollbacks(): number {
    if (!this.perTick) return storedRollbacks(this.store);
    if (!this.tickFresh) this.readMarkers();
    return this.tickRollbacks;
  }

  /**
   * The markers of this tick's snapshot as one text (head, earliest, rollbacks, safe, finalized), for
   * perTick readers only (undefined for others, which read no markers ahead): every write that
   * changes what the canonical chain answers (blocks appended or rolled back, blocks below the
   * earliest added, the safe or finalized block moved) changes it, so what was answered from the
   * canonical chain under one text stays the answer while the text stays.
   */
  tickMarks(): string | undefined {
    if (!this.perTick) return undefined;
    if (!this.tickFresh) this.readMarkers();
    // Read once per tick, and only by a reader whose markers are asked for (an answer cache's).
    if (this.tickMarksText === undefined) {
      const safe = this.store.meta.get('safe') as number | undefined;
      const finalized = this.store.meta.get('finalized') as number | undefined;
      this.tickMarksText = `${this.tickHead},${this.tickEarliest},${this.tickRollbacks},${safe},${finalized}`;
    }
    return this.tickMarksText;
  }

  /** The header of canonical block `number`. */
  header(number: number): BlockHeader | undefined {
    const raw = this.store.headers.getBinaryFast(encodeBlockKey(number));
    return raw === undefined ? undefined : decodeHeader(raw);
  }

  /**
   * The header record of canonical block `number`, undecoded (store/codec.ts): a view of LMDB's
   * read buffer, valid only until the next read of this store.
   */
  headerRecord(number: number): Uint8Array | undefined {
    return this.store.headers.getBinaryFast(writeBlockKey(this.blockKey, number));
  }

  /**
   * The record of transaction `index` of canonical block `number`, undecoded (store/codec.ts): a
   * view of LMDB's read buffer, valid only until the next read of this store.
   */
  txRecord(number: number, index: number): Uint8Array | undefined {
    const raw = this.store.txs.getBinaryFast(writeBlockKey(this.blockKey, number));
    return raw === undefined ? undefined : this.txReader.load(raw).record(index);
  }

  /**
   * The transaction records of canonical block `number`, undecoded, for reading many in order (a full block): the
   * block's record read once and copied, valid until the next txRecords call; undefined when it has none.
   */
  txRecords(number: number): BlockTxsReader | undefined {
    const raw = this.store.txs.getBinaryFast(writeBlockKey(this.blockKey, number));
    if (raw === undefined) return undefined;
    if (this.txsCopy.length < raw.length) this.txsCopy = new Uint8Array(2 * raw.length);
    this.txsCopy.set(raw.subarray(0, raw.length));
    return this.txsReader.load(this.txsCopy.subarray(0, raw.length));
  }

  /** The number of the canonical block with this hash. */
  numberByHash(hash: Uint8Array): number | undefined {
    const raw = this.store.blockByHash.getBinaryFast(Buffer.from(hash));
    return raw === undefined ? undefined : decodeBlockKey(raw);
  }

  /** Transaction `index` of canonical block `number`; `knownHash` is its hash when the caller found it by it. */
  transaction(number: number, index: number, knownHash?: Uint8Array): Transaction | undefined {
    const hash = knownHash ?? this.txHash(number, index);
    const raw = hash && this.txRecord(number, index);
    return raw ? decodeTx(raw, hash!) : undefined;
  }

  /**
   * Where the canonical transaction with this hash sits: the recent blocks' B-tree, then the frozen runs, newest first.
   */
  txLocation(hash: Uint8Array): TxLocation | undefined {
    const raw = this.store.txByHash.getBinaryFast(Buffer.from(hash));
    return raw === undefined ? this.runs.txLocation(hash) : decodeTxKey(raw);
  }

  /** All transactions of canonical block `number`, in order. */
  transactions(number: number): Transaction[] {
    const hashes = this.txHashes(number);
    const records = this.txRecords(number);
    const out: Transaction[] = [];
    for (let i = 0; i < (records?.count ?? 0); i++) out.push(decodeTx(records!.record(i)!, hashes[i]!));
    return out;
  }

  /**
   * The hashes of canonical block `number`'s transactions in order, concatenated, undecoded: a view
   * of LMDB's read buffer, valid only until the next read of this store.
   */
  txHashesRecord(number: number): Uint8Array | undefined {
    return this.store.txHashes.getBinaryFast(writeBlockKey(this.blockKey, number));
  }

  /** The hashes of all transactions of canonical block `number`, in order (one read, one copy). */
  txHashes(number: number): Uint8Array[] {
    const raw = this.txHashesRecord(number);
    if (raw === undefined) return [];
    // Copied with its length: lmdb-js's fast read returns its whole shared buffer with `length` set to the value's.
    const all = new Uint8Array(raw.subarray(0, raw.length));
    const out: Uint8Array[] = [];
    for (let off = 0; off < all.length; off += HASH_BYTES) out.push(all.subarray(off, off + HASH_BYTES));
    return out;
  }

  /** The hash of transaction `index` of canonical block `number` (a copy, from the block's txHashes record). */
  txHash(number: number, index: number): Uint8Array | undefined {
    const raw = this.txHashesRecord(number);
    const at = index * HASH_BYTES;
    return raw === undefined || index < 0 || at + HASH_BYTES > raw.length
      ? undefined
      : new Uint8Array(raw.subarray(at, at + HASH_BYTES));
  }

  /** The raw logs record of canonical block `number`. */
  logsRecord(number: number): Buffer | undefined {
    return this.store.logs.getBinary(encodeBlockKey(number));
  }

  /** All logs of canonical block `number`, in log-index order. */
  logs(number: number): Log[] {
    const raw = this.store.logs.getBinaryFast(encodeBlockKey(number));
    return raw === undefined ? [] : decodeLogs(raw);
  }

  /** The receipts of canonical block `number`'s transactions, in order (empty when it has none or is not stored). */
  receipts(number: number): Receipt[] {
    const raw = this.store.receipts.getBinaryFast(encodeBlockKey(number));
    return raw === undefined ? [] : decodeReceipts(raw);
  }

  /** The 32-byte value of `slot` of `address` as of the end of block `number` (zero when never written). */
  storageAt(address: Uint8Array, slot: Uint8Array, number: number): Uint8Array {
    const start = writeStorageKey(this.storageKey, address, slot, number);
    const out = new Uint8Array(32);
    // The recent B-tree holds the blocks after the freeze point only: a write it has at or before `number` is the
    // newest.
    if (number > this.runs.frozenTo()) {
      // The key alone, then the value read in place: an entry read by the range would copy both.
      for (const key of this.store.storage.getKeys({ start, limit: 1 })) {
        if (start.compare(key, 0, STORAGE_PREFIX_BYTES, 0, STORAGE_PREFIX_BYTES) !== 0) break;
        const value = this.store.storage.getBinaryFast(key)!;
        out.set(value.subarray(0, value.length), 32 - value.length);
        return out;
      }
    }
    const frozen = this.runs.storageAt(start, number);
    if (frozen) out.set(frozen, 32 - frozen.length);
    return out;
  }

  /**
   * The storage slots canonical block `number` wrote (its storageWrites record), each once, in stored order; none for a
   * frozen block (its writes live in the storage runs, which are keyed by slot, not block).
   */
  writtenSlots(number: number): { address: Uint8Array; slot: Uint8Array }[] {
    const prefixes = this.store.storageWrites.getBinary(encodeBlockKey(number));
    const slots: { address: Uint8Array; slot: Uint8Array }[] = [];
    for (let at = 0; prefixes && at + STORAGE_PREFIX_BYTES <= prefixes.length; at += STORAGE_PREFIX_BYTES) {
      slots.push({
        address: prefixes.subarray(at, at + 20),
        slot: prefixes.subarray(at + 20, at + STORAGE_PREFIX_BYTES),
      });
    }
    return slots;
  }

  /** Whether a pending block is stored (without decoding it). */
  hasPending(): boolean {
    return this.store.meta.doesExist('pending');
  }

  /** The pending block, when one is stored. */
  pending(): BlockBundle | undefined {
    const raw = this.store.meta.get('pending') as Uint8Array | undefined;
    return raw === undefined ? undefined : decodeBundle(raw);
  }

  /** A block removed by a reorganisation, by its hash. */
  orphan(hash: Uint8Array): BlockBundle | undefined {
    const raw = this.store.orphans.getBinaryFast(Buffer.from(hash));
    return raw === undefined ? undefined : decodeBundle(raw);
  }
}
