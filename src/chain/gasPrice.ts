/**
 * The price per gas a transaction paid once included, as geth computes a receipt's
 * effectiveGasPrice and a mined transaction's gasPrice.
 */
import type { Transaction } from './types.js';

/**
 * The gas price `tx` pays in a block with `baseFee`: its gasPrice, or for a fee-market transaction min(tip + baseFee,
 * feeCap) (the cap alone before London or while pending).
 */
export function effectiveGasPrice(tx: Transaction, baseFee: bigint | undefined): bigint {
  if (tx.maxFeePerGas === undefined) return tx.gasPrice!;
  if (baseFee === undefined) return tx.maxFeePerGas;
  const price = tx.maxPriorityFeePerGas! + baseFee;
  return price < tx.maxFeePerGas ? price : tx.maxFeePerGas;
}
