/**
 * Shared lookups of the block and transaction methods: a block (canonical, pending or orphaned)
 * rendered, and a transaction at a position rendered.
 */
import type { BlockBundle } from '../../chain/types.js';
import type { StoreReader } from '../../store/reader.js';
import type { ResolvedBlock } from '../blocks.js';
import { formatBlock, formatTransaction } from '../format.js';

/** Renders a resolved block with hashes or full transactions; null when not found. */
export function renderResolvedBlock(reader: StoreReader, block: ResolvedBlock, full: boolean): unknown {
  if (block === null) return null;
  if ('pending' in block) return renderBundle(block.pending, full, true);
  const header = reader.header(block.number);
  if (!header) return null;
  return formatBlock(header, full ? { full: reader.transactions(block.number) } : { hashes: reader.txHashes(block.number) }, false);
}

/** Renders a whole stored block (pending, or orphaned and served by hash). */
export function renderBundle(bundle: BlockBundle, full: boolean, pending: boolean): unknown {
  const txs = full ? { full: bundle.transactions } : { hashes: bundle.transactions.map((t) => t.hash) };
  return formatBlock(bundle.header, txs, pending);
}

/** Renders transaction `index` of a resolved block; null when either is absent. */
export function renderTxAt(reader: StoreReader, block: ResolvedBlock, index: bigint): unknown {
  if (block === null || index > 0xffffffffn) return null;
  const i = Number(index);
  if ('pending' in block) {
    const tx = block.pending.transactions[i];
    return tx ? formatTransaction(tx, null, i) : null;
  }
  const tx = reader.transaction(block.number, i);
  if (!tx) return null;
  const h = reader.header(block.number)!;
  return formatTransaction(tx, { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas }, i);
}

/** Renders transaction `index` of an orphaned block, at its old position. */
export function renderOrphanTx(bundle: BlockBundle, index: bigint): unknown {
  const tx = index <= 0xffffffffn ? bundle.transactions[Number(index)] : undefined;
  if (!tx) return null;
  const h = bundle.header;
  return formatTransaction(tx, { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas }, Number(index));
}
