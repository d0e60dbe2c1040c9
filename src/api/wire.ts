/**
 * The library's typed objects rendered as JSON-RPC answers: the same objects (same fields, same
 * order) the HTTP front answers for the same block, transaction or log.
 */
import { formatBlock, formatLog, formatTransaction } from '../render/format.js';
import type { Block, TransactionEntry } from './types.js';

export type { RpcLog } from '../render/format.js';

/** A block as eth_getBlockByNumber / eth_getBlockByHash answer it. */
export function toRpcBlock(block: Block): Record<string, unknown> {
  const txs = block.transactions ? { full: block.transactions } : { hashes: block.transactionHashes };
  return formatBlock(block.header, txs, block.status === 'pending');
}

/** A transaction as eth_getTransactionByHash and the by-index methods answer it. */
export function toRpcTransaction(entry: TransactionEntry): Record<string, unknown> {
  return formatTransaction(entry.transaction, entry.block, entry.index);
}

/** A log as eth_getLogs answers it (format.ts formatLog). */
export const toRpcLog = formatLog;
