/**
 * The kinds of chain ethlogd stores, and how a kind shows in a node's blocks: an OP-stack chain by
 * its deposit transactions (type 0x7e), an Arbitrum chain by its transaction types (0x64-0x6a,
 * 0x78) or its blocks' sendRoot. The kind is recorded in the store (meta `chainKind`); what differs
 * between kinds is kept as each node gives it (the `extra` of transactions, receipts and headers).
 */
import { type BlockBundle, OP_DEPOSIT_TX_TYPE } from './types.js';

/** The chain kinds, in the order `--chain` lists them. */
export const CHAIN_KINDS = ['ethereum', 'op', 'arbitrum'] as const;

/** One of CHAIN_KINDS. */
export type ChainKind = (typeof CHAIN_KINDS)[number];

/**
 * Arbitrum Nitro's transaction types: deposit, unsigned, contract, retry, submit-retryable, internal (0x64-0x6a),
 * legacy (0x78).
 */
export function isArbitrumTxType(type: number): boolean {
  return (type >= 0x64 && type <= 0x6a) || type === 0x78;
}

/** The kind `blocks` show, or undefined when nothing in them tells an OP-stack or Arbitrum chain from Ethereum. */
export function detectChainKind(blocks: readonly BlockBundle[]): ChainKind | undefined {
  for (const b of blocks) {
    if (b.header.extra?.includes('"sendRoot":')) return 'arbitrum';
    for (const tx of b.transactions) {
      if (tx.type === OP_DEPOSIT_TX_TYPE) return 'op';
      if (isArbitrumTxType(tx.type)) return 'arbitrum';
    }
  }
  return undefined;
}
