/**
 * Appends blocks to the store. Every call is one LMDB write transaction, so after a crash the
 * store holds whole batches only: a block is never half written, nor its indexes out of step.
 * A batch is checked whole before anything is written; then the entries keyed by block number go
 * after the last ones (MDB_APPEND), and those keyed by hash or storage slot, which land anywhere
 * in their B-trees, are put once all the batch's blocks are in, in key order when they are many
 * (orderedPuts.ts). Finalized blocks, or those FREEZE_LAG behind the head, leave those B-trees for
 * sorted runs in the same transaction (freezer.ts), so the B-trees stay the size of the recent blocks.
 */
import type { Database, PutOptions } from 'lmdb';
import type { ChainKind } from '../chain/chainKind.js';
import type { BlockBundle, ChainMeta } from '../chain/types.js';
import { encodeSegmentBlocks, storedSegmentAddresses } from './addressIndex.js';
import { type BlockRecords, encodeBlockRecords } from './blockRecords.js';
import { encodeBundle } from './codec.js';
import { Freezer, FrozenBatch, freezeTarget } from './freezer.js';
import {
  encodeAddressSegmentKey,
  encodeBlockKey,
  encodeBloomBitsKey,
  encodeStorageKey,
  encodeTxKey,
  HASH_BYTES,
  STORAGE_PREFIX_BYTES,
} from './keys.js';
import { OrderedPuts } from './orderedPuts.js';
import { StoreReader } from './reader.js';
import { headerLogsBloom, storedBlockHash, storedParentHash } from './recordViews.js';
import { ADDRESS_INDEX_FLAG, CHAIN_KIND_KEY, ROLLBACKS_KEY, type Store } from './schema.js';
import { BLOOM_BITS, buildSegmentRows, SEGMENT_BLOCKS, segmentOf, segmentStart } from './segments.js';

/** Raised when a batch does not extend the stored chain (wrong number or parent hash). */
export class ChainContinuityError extends Error {}

/**
 * What one append commits: optionally a rollback (a reorganisation), then the next blocks in
 * order, and optionally new markers and pending block.
 */
export interface AppendBatch {
  /**
   * Moves the blocks above this number to `orphans` (and drops the pending block built on them) before appending: a
   * reorganisation.
   */
  rollbackTo?: number;
  blocks: BlockBundle[];
  /** Needed on the first batch of an empty store. */
  chainId?: bigint;
  /** The chain's kind, recorded (meta CHAIN_KIND_KEY) with the batch. */
  chainKind?: ChainKind;
  safe?: number;
  finalized?: number;
  /** A new pending block; `null` clears it; undefined leaves it as it is, or drops it when blocks move the head. */
  pending?: BlockBundle | null;
}

/**
 * What one appendRecords commits: AppendBatch with the blocks already encoded (blockRecords.ts) and the pending block
 * as encodeBundle wrote it.
 */
export interface RecordsBatch extends Omit<AppendBatch, 'blocks' | 'pending'> {
  blocks: BlockRecords[];
  /** A new pending block, encoded by encodeBundle; `null` clears it; undefined as AppendBatch's pending. */
  pending?: Buffer | null;
}

/** Writes batches of blocks to an open, writable store. */
export class StoreWriter {
  private readonly reader: StoreReader;
  private readonly freezer: Freezer;

  /** Writes to `store`, which must be open for writing. */
  constructor(readonly store: Store) {
    if (store.readOnly) throw new Error('store is open read-only');
    this.reader = new StoreReader(store);
    this.freezer = new Freezer(store);
  }

  /** The markers after the last committed batch. */
  meta(): ChainMeta | undefined {
    return this.reader.meta();
  }

  /** Appends a batch in one write transaction; the batch must continue the stored chain. */
  append(batch: AppendBatch): void {
    for (const block of batch.blocks) {
      if (block.receipts.length !== block.transactions.length) {
        throw new ChainContinuityError(
          `block ${block.header.number} has ${block.receipts.length} receipts ` +
            `for ${block.transactions.length} transactions`,
        );
      }
    }
    const pending = batch.pending === undefined || batch.pending === null ? batch.pending : encodeBundle(batch.pending);
    this.appendRecords({ ...batch, blocks: batch.blocks.map(encodeBlockRecords), pending });
  }

  /**
   * Keeps the filters of the merges in progress in the store, in one write transaction, so that the next writer
   * does not rebuild them from the merged chunks (seconds for a large merge); a writer calls it before it closes.
   */
  saveMergeFilters(): void {
    this.store.env.transactionSync(() => this.freezer.saveFilters());
  }

  /** Appends a batch of encoded blocks in one write transaction; the batch must continue the stored chain. */
  appendRecords(batch: RecordsBatch): void {
    const s = this.store;
    s.env.transactionSync(() => {
      if (batch.rollbackTo !== undefined) this.rollback(batch.rollbackTo);
      const meta = this.reader.meta();
      this.checkContinuity(meta, batch);
      if (!meta) {
        s.meta.put('chainId', batch.chainId!.toString());
        s.meta.put('earliest', batch.blocks[0]!.number);
        s.meta.put(ADDRESS_INDEX_FLAG, true);
      }
      const earliest = meta ? meta.earliest : batch.blocks[0]!.number;
      const last = batch.blocks.at(-1);
      // Blocks at or below the target freeze in this transaction: a batch's own go straight into their run.
      // The stored marker, not meta's finalized, which stands in the head for a store that never set one.
      const finalized = batch.finalized ?? (s.meta.get('finalized') as number | undefined);
      const target = freezeTarget(last ? last.number : meta!.head, finalized);
      const frozen = new FrozenBatch();
      const randomKeys = {
        blockByHash: new OrderedPuts(s.blockByHash),
        txByHash: new OrderedPuts(s.txByHash),
        storage: new OrderedPuts(s.storage),
        frozen,
        target,
      };
      for (const block of batch.blocks) {
        this.putBlock(block, randomKeys);
        if ((block.number + 1) % SEGMENT_BLOCKS === 0) this.putSegmentIndexes(segmentOf(block.number));
      }
      randomKeys.blockByHash.flush();
      randomKeys.txByHash.flush();
      randomKeys.storage.flush();
      this.freezer.freeze(earliest, target, batch.blocks[0]?.number ?? Infinity, frozen);
      if (last) s.meta.put('head', last.number);
      if (batch.safe !== undefined) s.meta.put('safe', batch.safe);
      if (batch.chainKind !== undefined) s.meta.put(CHAIN_KIND_KEY, batch.chainKind);
      if (batch.finalized !== undefined) s.meta.put('finalized', batch.finalized);
      // A pending block is built on the head: blocks that move it drop the old one unless they bring the next.
      if (batch.pending === null || (batch.pending === undefined && last)) s.meta.remove('pending');
      else if (batch.pending !== undefined) s.meta.put('pending', batch.pending);
    });
  }

  /**
   * Throws ChainContinuityError unless the batch's blocks continue the stored chain (`meta`: its markers), or start it.
   */
  private checkContinuity(meta: ChainMeta | undefined, batch: RecordsBatch): void {
    if (!meta && batch.blocks.length === 0) throw new ChainContinuityError('the first batch must carry blocks');
    if (!meta && batch.chainId === undefined) throw new ChainContinuityError('the first batch must carry the chain id');
    let expected = meta ? meta.head + 1 : batch.blocks[0]!.number;
    let parent = meta ? this.reader.header(meta.head)!.hash : undefined;
    for (const block of batch.blocks) {
      if (block.number !== expected) throw new ChainContinuityError(`expected block ${expected}, got ${block.number}`);
      if (parent && Buffer.compare(parent, storedParentHash(block.header)) !== 0) {
        throw new ChainContinuityError(`block ${block.number} does not extend the stored head`);
      }
      parent = storedBlockHash(block.header);
      expected++;
    }
  }

  /**
   * Rewrites the derived log indexes from the stored blocks: every complete segment's bloom-bits
   * rows and address index (for a store written before they existed, or to repair them). One
   * write transaction per segment; returns the segments visited.
   */
  rebuildIndexes(): number {
    const meta = this.reader.meta();
    if (!meta) return 0;
    const s = this.store;
    const last = segmentOf(meta.head);
    for (let segment = segmentOf(meta.earliest); segment <= last; segment++) {
      if (meta.head < segmentStart(segment + 1) - 1) continue;
      s.env.transactionSync(() => this.putSegmentIndexes(segment));
    }
    s.meta.putSync(ADDRESS_INDEX_FLAG, true);
    return last - segmentOf(meta.earliest) + 1;
  }

  /** Writes a complete segment's bloom-bits rows and address index. */
  private putSegmentIndexes(segment: number): void {
    const s = this.store;
    const start = segmentStart(segment);
    const rows = buildSegmentRows((i) => {
      const raw = s.headers.getBinaryFast(encodeBlockKey(start + i));
      return raw === undefined ? undefined : headerLogsBloom(raw);
    });
    rows.forEach((row, bit) => s.bloomBits.put(encodeBloomBitsKey(bit, segment), Buffer.from(row)));
    for (const [address, offsets] of storedSegmentAddresses(this.store, segment)) {
      s.addressSegments.put(
        encodeAddressSegmentKey(Buffer.from(address, 'latin1'), segment),
        encodeSegmentBlocks(offsets),
      );
    }
  }

  /** Deletes a segment's bloom-bits rows and address index (it is no longer complete). */
  private dropSegmentIndexes(segment: number): void {
    const s = this.store;
    for (let bit = 0; bit < BLOOM_BITS; bit++) s.bloomBits.remove(encodeBloomBitsKey(bit, segment));
    for (const address of storedSegmentAddresses(this.store, segment).keys()) {
      s.addressSegments.remove(encodeAddressSegmentKey(Buffer.from(address, 'latin1'), segment));
    }
  }

  /** Within a write transaction: moves blocks above `to` to orphans and undoes their indexes. */
  private rollback(to: number): void {
    const s = this.store;
    const meta = this.reader.meta();
    if (!meta || to < meta.earliest || to > meta.head)
      throw new ChainContinuityError(`cannot roll back to block ${to}`);
    this.freezer.cut(to);
    for (let segment = segmentOf(to + 1); segment < segmentOf(meta.head + 1); segment++)
      this.dropSegmentIndexes(segment);
    for (let n = meta.head; n > to; n--) {
      const key = encodeBlockKey(n);
      const header = this.reader.header(n)!;
      const transactions = this.reader.transactions(n);
      const logs = this.reader.logs(n);
      const receipts = this.reader.receipts(n);
      s.orphans.put(Buffer.from(header.hash), encodeBundle({ header, transactions, receipts, logs, storage: [] }));
      s.headers.remove(key);
      s.blockByHash.remove(Buffer.from(header.hash));
      transactions.forEach((tx, i) => {
        const at = s.txByHash.getBinary(Buffer.from(tx.hash));
        if (at && Buffer.compare(at, encodeTxKey(n, i)) === 0) s.txByHash.remove(Buffer.from(tx.hash));
      });
      s.txs.remove(key);
      s.txHashes.remove(key);
      s.receipts.remove(key);
      s.logs.remove(key);
      const writes = s.storageWrites.getBinary(key);
      if (writes) {
        for (let off = 0; off < writes.length; off += STORAGE_PREFIX_BYTES) {
          const prefix = writes.subarray(off, off + STORAGE_PREFIX_BYTES);
          s.storage.remove(encodeStorageKey(prefix.subarray(0, 20), prefix.subarray(20), n));
        }
        s.storageWrites.remove(key);
      }
    }
    s.meta.put('head', to);
    s.meta.put(ROLLBACKS_KEY, ((s.meta.get(ROLLBACKS_KEY) as number | undefined) ?? 0) + 1);
    s.meta.remove('pending');
    s.meta.put('safe', Math.min(meta.safe, to));
    s.meta.put('finalized', Math.min(meta.finalized, to));
  }

  /**
   * Puts a block that extends the stored chain: its entries keyed by number are appended
   * (appendEntry), those keyed by hash or storage slot queued to be put in key order with the
   * batch's others.
   */
  private putBlock(r: BlockRecords, randomKeys: RandomKeyPuts): void {
    const s = this.store;
    const n = r.number;
    const blockKey = encodeBlockKey(n);
    const hash = Buffer.from(storedBlockHash(r.header));
    appendEntry(s.headers, blockKey, r.header);
    randomKeys.blockByHash.add(hash, blockKey);
    const frozen = n <= randomKeys.target;
    if (r.txs) appendEntry(s.txs, blockKey, r.txs);
    for (let i = 0; i < r.txCount; i++) {
      const txHash = r.txHashes!.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES);
      if (frozen) randomKeys.frozen.addTx(txHash, n, i);
      else randomKeys.txByHash.add(txHash, encodeTxKey(n, i));
    }
    if (r.txHashes) appendEntry(s.txHashes, blockKey, r.txHashes);
    if (r.receipts) appendEntry(s.receipts, blockKey, r.receipts);
    s.orphans.remove(hash);
    if (r.logs) appendEntry(s.logs, blockKey, r.logs);
    for (let i = 0; i < r.storageKeys.length; i++) {
      if (frozen) randomKeys.frozen.addStorage(r.storageKeys[i]!, r.storageValues[i]!);
      else randomKeys.storage.add(r.storageKeys[i]!, r.storageValues[i]!);
    }
    // A frozen block's writes are undone by cutting runs, not from a list: it keeps none.
    if (r.storageWrites && !frozen) appendEntry(s.storageWrites, blockKey, r.storageWrites);
  }
}

/**
 * A batch's puts to the databases of random keys (block and transaction hashes, storage slots), made
 * in key order once its blocks are in; the entries of its blocks at or below `target` go to `frozen`.
 */
interface RandomKeyPuts {
  blockByHash: OrderedPuts;
  txByHash: OrderedPuts;
  storage: OrderedPuts;
  frozen: FrozenBatch;
  target: number;
}

/**
 * LMDB's MDB_APPEND: the key goes after the database's last, with no search, and a full page is left full (not split in
 * half).
 */
const APPEND: PutOptions = { append: true };

/**
 * Puts an entry whose key is larger than every key of `db`, as the keys by block number (and
 * number ‖ index) of a block that extends the chain are: blocks are only added at the head, and a
 * rollback deletes the keys above its block. Should the database hold a larger key after all, the
 * append is refused (lmdb's putSync returns false, nothing written) and the entry is put where its
 * key belongs, as a plain put would.
 */
function appendEntry(db: Database<Buffer, Buffer>, key: Buffer, value: Buffer): void {
  const appended = db.putSync(key, value, APPEND) as unknown as boolean;
  if (!appended) db.put(key, value);
}
