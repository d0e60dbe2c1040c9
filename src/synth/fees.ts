/**
 * Fee-market rules the synthetic chain follows: the EIP-1559 base fee update from the parent
 * header, and the EIP-4844 blob gas accounting (excess blob gas, blob base fee) with the Cancun
 * and Prague (EIP-7691) parameters.
 */
import type { BlockHeader } from '../chain/types.js';

/** Gas of one blob (2^17). */
export const GAS_PER_BLOB = 131_072n;

/** Blob parameters of a fork: target and maximum blobs per block, and the base fee update fraction. */
export interface BlobParams {
  target: number;
  max: number;
  updateFraction: bigint;
}

/** Cancun (EIP-4844): target 3, max 6. */
export const CANCUN_BLOBS: BlobParams = { target: 3, max: 6, updateFraction: 3_338_477n };
/** Prague (EIP-7691): target 6, max 9. */
export const PRAGUE_BLOBS: BlobParams = { target: 6, max: 9, updateFraction: 5_007_716n };

/**
 * The parent's fields the fee rules of its child read: its base fee, gas limit and gas used, and its blob gas fields
 * from Cancun on.
 */
export type FeeParent = Pick<BlockHeader, 'baseFeePerGas' | 'gasLimit' | 'gasUsed' | 'excessBlobGas' | 'blobGasUsed'>;

/** The base fee of the child of `parent` (EIP-1559, elasticity 2, max change 1/8). */
export function nextBaseFee(parent: FeeParent): bigint {
  const base = parent.baseFeePerGas!;
  const target = parent.gasLimit / 2n;
  if (target === 0n || parent.gasUsed === target) return base;
  if (parent.gasUsed > target) {
    const delta = (base * (parent.gasUsed - target)) / target / 8n;
    return base + (delta > 0n ? delta : 1n);
  }
  return base - (base * (target - parent.gasUsed)) / target / 8n;
}

/** The excess blob gas of a block whose parent is `parent`, under the block's own blob parameters (EIP-4844). */
export function nextExcessBlobGas(parent: FeeParent | undefined, params: BlobParams): bigint {
  if (parent?.excessBlobGas === undefined || parent.blobGasUsed === undefined) return 0n;
  const sum = parent.excessBlobGas + parent.blobGasUsed;
  const target = BigInt(params.target) * GAS_PER_BLOB;
  return sum > target ? sum - target : 0n;
}

/** EIP-4844's fake_exponential: factor · e^(numerator / denominator), in integers. */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let accum = factor * denominator;
  while (accum > 0n) {
    output += accum;
    accum = (accum * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

/** The blob base fee for a block's excess blob gas. */
export function blobBaseFee(excessBlobGas: bigint, params: BlobParams): bigint {
  return fakeExponential(1n, excessBlobGas, params.updateFraction);
}
