/**
 * The block counters indexers check a block against: transactions and uncles of a block by number
 * (tags and pending included) or by hash (canonical or reorganised out), null when the block is not
 * stored, as geth answers them.
 */

import { quantityToHex } from '../../chain/hex.js';
import type { BlockBundle, BlockHeader } from '../../chain/types.js';
import type { StoreReader } from '../../store/reader.js';
import { resolveBlock } from '../blocks.js';
import type { RpcMethod } from '../method.js';
import { checkArity, parseBlockNumber, parseHash } from '../params.js';

/** What a count is taken of: a stored header (and its transaction count), or a whole block (pending, orphaned). */
type Counted = { header: BlockHeader } | { bundle: BlockBundle } | null;

/** The block `params[0]` names by number or tag. */
function byNumber(params: unknown[], reader: StoreReader): Counted {
  checkArity(params, 1, 1, ['block parameter']);
  const block = resolveBlock(parseBlockNumber(params[0], 0), reader);
  if (block === null) return null;
  if ('pending' in block) return { bundle: block.pending };
  const header = reader.header(block.number);
  return header === undefined ? null : { header };
}

/** The block `params[0]` names by hash: canonical, else a stored orphan. */
function byHash(params: unknown[], reader: StoreReader): Counted {
  checkArity(params, 1, 1, ['block hash']);
  const hash = parseHash(params[0], 0, 'block hash');
  const number = reader.numberByHash(hash);
  const header = number === undefined ? undefined : reader.header(number);
  if (header !== undefined) return { header };
  const orphan = reader.orphan(hash);
  return orphan === undefined ? null : { bundle: orphan };
}

/** The transaction count of `block` as a quantity, or null. */
function transactions(block: Counted): string | null {
  if (block === null) return null;
  return quantityToHex('bundle' in block ? block.bundle.transactions.length : block.header.txCount);
}

/** The uncle count of `block` as a quantity, or null. */
function uncles(block: Counted): string | null {
  if (block === null) return null;
  return quantityToHex(('bundle' in block ? block.bundle.header : block.header).uncles.length);
}

/** eth_getBlockTransactionCountByNumber(block): its transaction count, or null. */
export const eth_getBlockTransactionCountByNumber: RpcMethod = (params, { reader }) =>
  transactions(byNumber(params, reader));

/** eth_getBlockTransactionCountByHash(hash): its transaction count, or null. */
export const eth_getBlockTransactionCountByHash: RpcMethod = (params, { reader }) =>
  transactions(byHash(params, reader));

/** eth_getUncleCountByBlockNumber(block): its uncle count, or null. */
export const eth_getUncleCountByBlockNumber: RpcMethod = (params, { reader }) => uncles(byNumber(params, reader));

/** eth_getUncleCountByBlockHash(hash): its uncle count, or null. */
export const eth_getUncleCountByBlockHash: RpcMethod = (params, { reader }) => uncles(byHash(params, reader));
