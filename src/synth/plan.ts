/**
 * What of a synthetic block depends on the blocks before it, drawn cheaply and folded in order
 * (docs/architecture.md §6). Three things carry over from block to block: each sender's nonce, the
 * EIP-1559 base fee (from the parent's gas used and limit) and the EIP-4844 excess blob gas (from
 * the parent's blob gas). They stay sequential by the fee rules' own definition, so the generator
 * makes them depend on a block's plan alone: the transaction count, senders and kinds, the blob
 * counts and the gas used, drawn from a per-block stream of its own (about two draws a
 * transaction, no bytes, no hashing). Folding the plans from the chain's first block is cheap, so
 * every generating thread folds them all, and a block's expensive part (its calls, logs, storage,
 * signatures, hashes and encoding) is then a pure function of (seed, number, plan).
 */

import { PATTERNS } from './activity.js';
import {
  type BlobParams,
  CANCUN_BLOBS,
  type FeeParent,
  GAS_PER_BLOB,
  nextBaseFee,
  nextExcessBlobGas,
  PRAGUE_BLOBS,
} from './fees.js';
import { Fork, forkOf } from './forks.js';
import { Random } from './random.js';
import { SENDER_COUNT, type Universe } from './universe.js';

/** Timestamp of the first block; each next block is 12 s later. */
const GENESIS_TIME = 1_700_000_000;
const SLOT_SECONDS = 12;
/** Mean transactions per block at density 1 (a block draws 0.6 to 1.4 times it, scaled by the density). */
export const TXS_PER_BLOCK = 265;
/** Base fee of the first block and the level the fee market reverts to. */
export const REFERENCE_BASE_FEE = 12_000_000_000n;
/** Gas of a plain transfer: what every transaction pays before it runs any code. */
export const INTRINSIC_GAS = 21_000;
/** Least gas a contract call spends above the intrinsic cost (a few storage reads and an event). */
const MIN_CALL_EXTRA_GAS = 5_000;
/**
 * Most gas a contract call spends above the intrinsic cost on average in a block: keeps one call of a nearly empty
 * block plausible.
 */
const MAX_CALL_EXTRA_GAS = 1_500_000;
/** Share of transactions that submit blobs (from Cancun on, within the block's blob budget). */
const BLOB_SHARE = 0.015;
/** Share of transactions that are EIP-7702 set-code calls (Prague), drawn right after the blob share. */
const SET_CODE_SHARE = 0.01;
/** Most blobs one transaction carries. */
const MAX_BLOBS_PER_TX = 6;

/**
 * Kind of a planned transaction: an ordinary pattern (an index into PATTERNS), a blob submission or a set-code call.
 */
export const TX_KIND = { blob: PATTERNS.length, setCode: PATTERNS.length + 1 } as const;

const PATTERN_CDF = cumulative(PATTERNS.map((p) => p.weight));

function cumulative(weights: number[]): number[] {
  const out: number[] = [];
  let sum = 0;
  for (const w of weights) out.push((sum += w));
  return out.map((x) => x / sum);
}

function pickPattern(rng: Random): number {
  const r = rng.float();
  for (let i = 0; i < PATTERN_CDF.length; i++) if (r < PATTERN_CDF[i]!) return i;
  return PATTERN_CDF.length - 1;
}

/** Whether a planned kind spends exactly the intrinsic gas (ETH transfers and blob submissions). */
export function plainKind(kind: number): boolean {
  return kind === TX_KIND.blob || PATTERNS[kind]?.kind === 'eth';
}

/** The part of a block that depends on the blocks before it, and what decides it. */
export interface BlockPlan {
  number: number;
  fork: Fork;
  timestamp: number;
  /** Per transaction: the sender's rank, its nonce, its kind (TX_KIND or a PATTERNS index), its blob count. */
  senders: Uint16Array;
  nonces: Uint32Array;
  kinds: Uint8Array;
  blobs: Uint8Array;
  baseFee: bigint;
  gasLimit: bigint;
  /** The block's gas used; the transactions' gas adds up to it exactly. */
  gasUsed: number;
  /** The fork's blob parameters, undefined before Cancun. */
  blobParams: BlobParams | undefined;
  excessBlobGas: bigint;
  blobGasUsed: bigint;
}

/** The blob parameters of a fork, undefined before Cancun. */
function blobParamsOf(fork: Fork): BlobParams | undefined {
  return fork === Fork.Prague ? PRAGUE_BLOBS : fork === Fork.Cancun ? CANCUN_BLOBS : undefined;
}

/** Plans a chain's blocks in order from its first, carrying nonces, base fee and excess blob gas over. */
export class ChainPlanner {
  private readonly nonces = new Uint32Array(SENDER_COUNT);
  private parent: FeeParent | undefined;
  private number: number;

  /** Plans the chain of `seed` and `density` in world `u`, whose first block is `first`. */
  constructor(
    private readonly u: Universe,
    private readonly seed: string,
    private readonly density: number,
    private readonly first: number,
  ) {
    this.number = first;
  }

  /** Number of the block next() plans. */
  get nextNumber(): number {
    return this.number;
  }

  /** The plan of the next block; the planner moves past it. */
  next(): BlockPlan {
    const plan = this.plan(this.nonces);
    this.parent = {
      baseFeePerGas: plan.baseFee,
      gasLimit: plan.gasLimit,
      gasUsed: BigInt(plan.gasUsed),
      excessBlobGas: plan.blobParams ? plan.excessBlobGas : undefined,
      blobGasUsed: plan.blobParams ? plan.blobGasUsed : undefined,
    };
    this.number++;
    return plan;
  }

  /** The plan of the next block, without moving past it (the pending block's). */
  peek(): BlockPlan {
    return this.plan(this.nonces.slice());
  }

  /** Moves past every block before `number` (folding their plans). */
  skipTo(number: number): void {
    if (number < this.number) throw new RangeError(`the planner is past block ${number} (at ${this.number})`);
    while (this.number < number) this.next();
  }

  private plan(nonces: Uint32Array): BlockPlan {
    const number = this.number;
    const fork = forkOf(number);
    const rng = Random.derive(this.seed, 'plan', number);
    const count = Math.max(0, Math.round(TXS_PER_BLOCK * this.density * (0.6 + 0.8 * rng.float())));
    const blobParams = blobParamsOf(fork);
    const excessBlobGas = blobParams ? nextExcessBlobGas(this.parent, blobParams) : 0n;
    const budget = blobParams ? blobBudget(rng, blobParams, excessBlobGas) : 0;
    const senders = new Uint16Array(count);
    const txNonces = new Uint32Array(count);
    const kinds = new Uint8Array(count);
    const blobs = new Uint8Array(count);
    let blobCount = 0;
    let plain = 0;
    for (let i = 0; i < count; i++) {
      const sender = this.u.senders.sample(rng);
      senders[i] = sender;
      txNonces[i] = nonces[sender]!++;
      const r = rng.float();
      if (blobParams && r < BLOB_SHARE && blobCount < budget) {
        kinds[i] = TX_KIND.blob;
        blobs[i] = rng.int(1, Math.min(MAX_BLOBS_PER_TX, budget - blobCount));
        blobCount += blobs[i]!;
      } else if (fork === Fork.Prague && r >= BLOB_SHARE && r < BLOB_SHARE + SET_CODE_SHARE) {
        kinds[i] = TX_KIND.setCode;
      } else {
        kinds[i] = pickPattern(rng);
      }
      if (plainKind(kinds[i]!)) plain++;
    }
    const baseFee = this.parent?.baseFeePerGas !== undefined ? nextBaseFee(this.parent) : REFERENCE_BASE_FEE;
    const forkGasLimit = fork === Fork.Prague ? 36_000_000n : 30_000_000n;
    const gasUsed = blockGas(rng, count, count - plain, forkGasLimit, baseFee);
    const gasLimit = BigInt(gasUsed) > forkGasLimit ? BigInt(Math.ceil(gasUsed / 0.999)) : forkGasLimit;
    return {
      number,
      fork,
      timestamp: GENESIS_TIME + SLOT_SECONDS * (number - this.first),
      senders,
      nonces: txNonces,
      kinds,
      blobs,
      baseFee,
      gasLimit,
      gasUsed,
      blobParams,
      excessBlobGas,
      blobGasUsed: BigInt(blobCount) * GAS_PER_BLOB,
    };
  }
}

/**
 * Blobs a block may carry: around the target, fewer while the excess blob gas is high, so the blob fee stays bounded.
 */
function blobBudget(rng: Random, params: BlobParams, excessBlobGas: bigint): number {
  const excessBlobs = Number(excessBlobGas / GAS_PER_BLOB);
  const budget = Math.round(params.target + 1.5 * rng.normal() - 0.2 * excessBlobs);
  return Math.max(0, Math.min(params.max, budget));
}

/**
 * The gas a block of `count` transactions, `calls` of them contract calls, uses. It aims at a
 * fullness around the EIP-1559 target that falls when the base fee is above its reference level
 * (so the base fee stays mainnet-like), within what its transactions can spend: the intrinsic gas
 * of all, and between MIN_CALL_EXTRA_GAS and MAX_CALL_EXTRA_GAS more per call.
 */
function blockGas(rng: Random, count: number, calls: number, gasLimit: bigint, baseFee: bigint): number {
  const target = Number(gasLimit) / 2;
  const fullness = Math.min(
    1.95,
    Math.max(0.05, 1 + 0.3 * rng.normal() - 0.5 * Math.log(Number(baseFee) / Number(REFERENCE_BASE_FEE))),
  );
  const desired = Math.round(Math.min(target * fullness, Number(gasLimit) * 0.999));
  const least = INTRINSIC_GAS * count + MIN_CALL_EXTRA_GAS * calls;
  const most = INTRINSIC_GAS * count + MAX_CALL_EXTRA_GAS * calls;
  return Math.max(least, Math.min(most, desired));
}
