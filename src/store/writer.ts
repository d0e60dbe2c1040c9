/**
 * Appends blocks to the store. Every call is one LMDB write transaction, so after a crash the
 * store holds whole batches only: a block is never half written, nor its indexes out of step.
 */
import type { BlockBundle, ChainMeta } from '../chain/types.js';
import { encodeBundle, encodeHeader, encodeTx } from './codec.js';
import { headerLogsBloom } from './recordViews.js';
import { collectSegmentAddresses, encodeSegmentBlocks } from './addressIndex.js';
import { encodeAddressSegmentKey, encodeBlockKey, encodeBloomBitsKey, encodeStorageKey, encodeTxKey, STORAGE_PREFIX_BYTES } from './keys.js';
import { decodeLogAddresses, encodeLogAddresses, encodeLogs } from './logsRecord.js';
import { encodeReceipts } from './receiptsRecord.js';
import { StoreReader } from './reader.js';
import { ADDRESS_INDEX_FLAG, ROLLBACKS_KEY, type Store } from './schema.js';
import { BLOOM_BITS, buildSegmentRows, SEGMENT_BLOCKS, segmentOf, segmentStart } from './segments.js';

/** Raised when a batch does not extend the stored chain (wrong number or parent hash). */
export class ChainContinuityError extends Error {}

/**
 * What one append commits: optionally a rollback (a reorganisation), then the next blocks in
 * order, and optionally new markers and pending block.
 */
export interface AppendBatch {
  /** Moves the blocks above this number to `orphans` (and drops the pending block built on them) before appending: a reorganisation. */
  rollbackTo?: number;
  blocks: BlockBundle[];
  /** Needed on the first batch of an empty store. */
  chainId?: bigint;
  safe?: number;
  finalized?: number;
  /** A new pending block; `null` clears it; undefined leaves it as it is. */
  pending?: BlockBundle | null;
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

/** Writes batches of blocks to an open, writable store. */
export class StoreWriter {
  private readonly reader: StoreReader;

  /** Writes to `store`, which must be open for writing. */
  constructor(readonly store: Store) {
    if (store.readOnly) throw new Error('store is open read-only');
    this.reader = new StoreReader(store);
  }

  /** The markers after the last committed batch. */
  meta(): ChainMeta | undefined {
    return this.reader.meta();
  }

  /** Appends a batch in one write transaction; the batch must continue the stored chain. */
  append(batch: AppendBatch): void {
    const s = this.store;
    s.env.transactionSync(() => {
      if (batch.rollbackTo !== undefined) this.rollback(batch.rollbackTo);
      const meta = this.reader.meta();
      if (!meta && batch.blocks.length === 0) throw new ChainContinuityError('the first batch must carry blocks');
      let expected = meta ? meta.head + 1 : batch.blocks[0]?.header.number ?? 0;
      let parent = meta ? this.reader.header(meta.head)!.hash : undefined;
      if (!meta) {
        if (batch.chainId === undefined) throw new ChainContinuityError('the first batch must carry the chain id');
        s.meta.put('chainId', batch.chainId.toString());
        s.meta.put('earliest', expected);
        s.meta.put(ADDRESS_INDEX_FLAG, true);
      }
      for (const block of batch.blocks) {
        const h = block.header;
        if (h.number !== expected) throw new ChainContinuityError(`expected block ${expected}, got ${h.number}`);
        if (parent && Buffer.compare(parent, h.parentHash) !== 0) {
          throw new ChainContinuityError(`block ${h.number} does not extend the stored head`);
        }
        this.putBlock(block);
        if ((h.number + 1) % SEGMENT_BLOCKS === 0) this.putSegmentIndexes(segmentOf(h.number));
        parent = h.hash;
        expected++;
      }
      if (batch.blocks.length > 0) s.meta.put('head', expected - 1);
      if (batch.safe !== undefined) s.meta.put('safe', batch.safe);
      if (batch.finalized !== undefined) s.meta.put('finalized', batch.finalized);
      if (batch.pending === null) s.meta.remove('pending');
      else if (batch.pending !== undefined) s.meta.put('pending', encodeBundle(batch.pending));
    });
  }

  /**
   * Rewrites the derived log indexes from the stored blocks: every block's address table and every
   * complete segment's bloom-bits rows (for a store written before they existed, or to repair
   * them). One write transaction per segment; returns the segments visited.
   */
  rebuildIndexes(): number {
    const meta = this.reader.meta();
    if (!meta) return 0;
    const s = this.store;
    const last = segmentOf(meta.head);
    for (let segment = segmentOf(meta.earliest); segment <= last; segment++) {
      s.env.transactionSync(() => {
        const from = Math.max(meta.earliest, segmentStart(segment));
        const to = Math.min(meta.head, segmentStart(segment + 1) - 1);
        for (let n = from; n <= to; n++) {
          const key = encodeBlockKey(n);
          const record = s.logs.getBinary(key);
          if (record) s.logAddresses.put(key, Buffer.concat(decodeLogAddresses(record)));
          else s.logAddresses.remove(key);
        }
        if (to === segmentStart(segment + 1) - 1) this.putSegmentIndexes(segment);
      });
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
    for (const [address, offsets] of this.segmentAddresses(segment)) {
      s.addressSegments.put(encodeAddressSegmentKey(Buffer.from(address, 'latin1'), segment), encodeSegmentBlocks(offsets));
    }
  }

  /** The addresses of a segment's stored blocks, with their block offsets. */
  private segmentAddresses(segment: number): Map<string, number[]> {
    const start = segmentStart(segment);
    return collectSegmentAddresses((i) => this.store.logAddresses.getBinary(encodeBlockKey(start + i)));
  }

  /** Deletes a segment's bloom-bits rows and address index (it is no longer complete). */
  private dropSegmentIndexes(segment: number): void {
    const s = this.store;
    for (let bit = 0; bit < BLOOM_BITS; bit++) s.bloomBits.remove(encodeBloomBitsKey(bit, segment));
    for (const address of this.segmentAddresses(segment).keys()) {
      s.addressSegments.remove(encodeAddressSegmentKey(Buffer.from(address, 'latin1'), segment));
    }
  }

  /** Within a write transaction: moves blocks above `to` to orphans and undoes their indexes. */
  private rollback(to: number): void {
    const s = this.store;
    const meta = this.reader.meta();
    if (!meta || to < meta.earliest || to > meta.head) throw new ChainContinuityError(`cannot roll back to block ${to}`);
    for (let segment = segmentOf(to + 1); segment < segmentOf(meta.head + 1); segment++) this.dropSegmentIndexes(segment);
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
        const txKey = encodeTxKey(n, i);
        s.txs.remove(txKey);
        const at = s.txByHash.getBinary(Buffer.from(tx.hash));
        if (at && Buffer.compare(at, txKey) === 0) s.txByHash.remove(Buffer.from(tx.hash));
      });
      s.receipts.remove(key);
      s.logs.remove(key);
      s.logAddresses.remove(key);
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

  private putBlock(block: BlockBundle): void {
    const s = this.store;
    const n = block.header.number;
    const blockKey = encodeBlockKey(n);
    s.headers.put(blockKey, encodeHeader(block.header));
    s.blockByHash.put(Buffer.from(block.header.hash), blockKey);
    block.transactions.forEach((tx, i) => {
      const txKey = encodeTxKey(n, i);
      s.txs.put(txKey, encodeTx(tx));
      s.txByHash.put(Buffer.from(tx.hash), txKey);
    });
    if (block.receipts.length !== block.transactions.length) {
      throw new ChainContinuityError(`block ${n} has ${block.receipts.length} receipts for ${block.transactions.length} transactions`);
    }
    if (block.receipts.length > 0) s.receipts.put(blockKey, encodeReceipts(block.receipts));
    s.orphans.remove(Buffer.from(block.header.hash));
    if (block.logs.length > 0) {
      s.logs.put(blockKey, encodeLogs(block.logs));
      s.logAddresses.put(blockKey, encodeLogAddresses(block.logs));
    }
    if (block.storage.length > 0) {
      const prefixes = Buffer.allocUnsafe(block.storage.length * STORAGE_PREFIX_BYTES);
      block.storage.forEach((w, i) => {
        const key = encodeStorageKey(w.address, w.slot, n);
        s.storage.put(key, Buffer.from(stripLeadingZeros(w.value)));
        key.copy(prefixes, i * STORAGE_PREFIX_BYTES, 0, STORAGE_PREFIX_BYTES);
      });
      s.storageWrites.put(blockKey, prefixes);
    }
  }
}
