/**
 * The library's typed objects rendered as JSON-RPC answers: the same objects (same fields, same
 * order) the HTTP front answers for the same block, transaction or log.
 */
import { bytesToHex, quantityToHex } from '../chain/hex.js';
import type { LogEntry } from '../chain/types.js';
import { formatBlock, formatTransaction } from '../render/format.js';
import type { Block, TransactionEntry } from './types.js';

/** A log as eth_getLogs answers it (null positions for a pending log). */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string | null;
  transactionHash: string | null;
  transactionIndex: string | null;
  blockHash: string | null;
  blockTimestamp: string | null;
  logIndex: string | null;
  removed: boolean;
}

/** A block as eth_getBlockByNumber / eth_getBlockByHash answer it. */
export function toRpcBlock(block: Block): Record<string, unknown> {
  const txs = block.transactions ? { full: block.transactions } : { hashes: block.transactionHashes };
  return formatBlock(block.header, txs, block.status === 'pending');
}

/** A transaction as eth_getTransactionByHash and the by-index methods answer it. */
export function toRpcTransaction(entry: TransactionEntry): Record<string, unknown> {
  return formatTransaction(entry.transaction, entry.block, entry.index);
}

/** A log as eth_getLogs answers it. */
export function toRpcLog(log: LogEntry): RpcLog {
  const quantity = (n: number | null) => (n === null ? null : quantityToHex(n));
  const bytes = (b: Uint8Array | null) => (b === null ? null : bytesToHex(b));
  return {
    address: bytesToHex(log.address),
    topics: log.topics.map(bytesToHex),
    data: bytesToHex(log.data),
    blockNumber: quantity(log.blockNumber),
    transactionHash: bytes(log.transactionHash),
    transactionIndex: quantity(log.transactionIndex),
    blockHash: bytes(log.blockHash),
    blockTimestamp: quantity(log.blockTimestamp),
    logIndex: quantity(log.logIndex),
    removed: log.removed,
  };
}
