/**
 * The deterministic, mainnet-like synthetic chain (docs/architecture.md §6). A block is a pure
 * function of (options, number, parent header, sender nonces): its random draws come from streams
 * derived from the seed and the block number, so the same options give byte-identical blocks, and
 * generation can resume after any stored block (the nonces are replayed from the cheap per-block
 * sender stream).
 *
 * A block's fork is fixed by its number (forks.ts: short London, Shanghai and Cancun eras, then
 * Prague), never by the chain's length, so a longer chain of the same options begins with the
 * shorter one's blocks. Post-merge constants are mainnet's.
 * Not modelled: state, receipts and transaction tries. stateRoot, transactionsRoot and receiptsRoot
 * are deterministic pseudo-random words (the empty-trie root when the block has no transactions),
 * and withdrawalsRoot is keccak256(rlp(withdrawals)) instead of the trie root. Everything a client
 * can check against its own data is real: hashes of headers and transactions, block sizes, blooms.
 */
import { BloomCache } from '../chain/bloomCache.js';
import { blockSize, computeBlockHash, withdrawalsItem } from '../chain/headerEncoding.js';
import { hexToBytes } from '../chain/hex.js';
import { keccak256 } from '../chain/keccak.js';
import { rlpEncode } from '../chain/rlp.js';
import { effectiveGasPrice } from '../chain/gasPrice.js';
import type { BlockBundle, BlockHeader, Receipt, Transaction, TxType, Withdrawal } from '../chain/types.js';
import {
  blobSubmission,
  delegatedCall,
  PATTERNS,
  rareLog,
  runPattern,
  StorageBook,
  type BlockActivity,
  type PatternKind,
} from './activity.js';
import { TRANSFER_TOPIC } from './events.js';
import { blobBaseFee, CANCUN_BLOBS, GAS_PER_BLOB, nextBaseFee, nextExcessBlobGas, PRAGUE_BLOBS, type BlobParams } from './fees.js';
import { Random } from './random.js';
import { Fork, FORK_SCHEDULE, forkOf } from './forks.js';
import { buildTransaction, type Draft, type TxContext } from './transactions.js';
import { rareAddress, SENDER_COUNT, Universe } from './universe.js';

export { TRANSFER_TOPIC } from './events.js';
export { rareAddress } from './universe.js';

/** How to generate a chain. */
export interface GeneratorOptions {
  blocks: number;
  seed: string;
  /** 1.0 = mainnet: ~265 transactions and ~500 logs per block. */
  density: number;
  /** Default 1n. */
  chainId?: bigint;
  /** Whether a pending block is stored (default true); the generator itself ignores it. */
  pending?: boolean;
  /** Number of the first block (default 0). */
  startNumber?: number;
}

/**
 * Version of the chain the generator makes: it changes whenever the same options would give other
 * blocks, so a store is never extended with blocks of another version (provenance.ts). Version 1
 * scaled the fork eras with the chain's length; 2 fixes them by block number (forks.ts).
 */
export const CHAIN_VERSION = 2;

/** Mainnet's total difficulty at the merge, constant ever since. */
export const TOTAL_DIFFICULTY = 58_750_000_000_000_000_000_000n;
/** keccak256(rlp([])): the uncles hash of every post-merge block. */
export const EMPTY_UNCLES_HASH = hexToBytes('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')!;
/** Root of the empty Merkle-Patricia trie (keccak256(rlp(''))): the transactions and receipts root of an empty block. */
export const EMPTY_TRIE_ROOT = hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')!;
/** sha256 of nothing: EIP-7685's requestsHash of a block without execution-layer requests. */
export const EMPTY_REQUESTS_HASH = hexToBytes('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')!;

/** Timestamp of the first block; each next block is 12 s later. */
const GENESIS_TIME = 1_700_000_000;
const SLOT_SECONDS = 12;
/** Mean transactions per block at density 1. */
const TXS_PER_BLOCK = 265;
/** Base fee of the first block and the level the fee market reverts to. */
const REFERENCE_BASE_FEE = 12_000_000_000n;
/** Share of blocks with one log of the rare contract. */
const RARE_SHARE = 0.01;
const WITHDRAWALS_PER_BLOCK = 16;
const PATTERN_CDF = cumulative(PATTERNS.map((p) => p.weight));

function cumulative(weights: number[]): number[] {
  const out: number[] = [];
  let sum = 0;
  for (const w of weights) out.push((sum += w));
  return out.map((x) => x / sum);
}

/** The safe and finalized markers for a head: head − 32 and head − 64 (one and two epochs), not below earliest. */
export function markers(head: number, earliest: number): { safe: number; finalized: number } {
  return { safe: Math.max(earliest, head - 32), finalized: Math.max(earliest, head - 64) };
}

/** Facts about a generated dataset that benchmarks and tests query by. */
export interface DatasetDescription {
  chainId: bigint;
  /** A contract with one log in about 1% of blocks. */
  rareAddress: Uint8Array;
  /** topic0 of ERC-20 Transfer, the hottest topic. */
  transferTopic: Uint8Array;
  /** The hottest contracts: WETH, the router (it logs nothing itself), the most popular token and pair. */
  weth: Uint8Array;
  router: Uint8Array;
  hotToken: Uint8Array;
  hotPair: Uint8Array;
  /** Contracts the world has, created ones aside. */
  contracts: number;
}

/** Describes the dataset `opts` generates, without generating it. */
export function describeDataset(opts: GeneratorOptions): DatasetDescription {
  const u = universe(opts.seed);
  return {
    chainId: opts.chainId ?? 1n,
    rareAddress: rareAddress(opts.seed),
    transferTopic: TRANSFER_TOPIC,
    weth: u.weth.address,
    router: u.router.address,
    hotToken: u.tokens[0]!.address,
    hotPair: u.pairs[0]!.entity.address,
    contracts: u.contractCount(),
  };
}

let cachedUniverse: Universe | undefined;

function universe(seed: string): Universe {
  if (cachedUniverse?.seed !== seed) cachedUniverse = new Universe(seed);
  return cachedUniverse;
}

/** The senders of block `number`'s transactions, in order: the only draws nonces depend on. */
function drawSenders(u: Universe, seed: string, density: number, number: number): Uint16Array {
  const rng = Random.derive(seed, 'senders', number);
  const n = Math.max(0, Math.round(TXS_PER_BLOCK * density * (0.6 + 0.8 * rng.float())));
  const out = new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = u.senders.sample(rng);
  return out;
}

function pickPattern(rng: Random): PatternKind {
  const r = rng.float();
  for (let i = 0; i < PATTERN_CDF.length; i++) if (r < PATTERN_CDF[i]!) return PATTERNS[i]!.kind;
  return PATTERNS[PATTERNS.length - 1]!.kind;
}

/** The receipt of drafted transaction `tx` that used `gasUsed`: consistent with its call (reverted, created) and the block's fees. */
function receiptOf(d: Draft, tx: Transaction, gasUsed: number, ctx: TxContext): Receipt {
  const receipt: Receipt = {
    status: d.call.reverted ? 0 : 1,
    gasUsed: BigInt(gasUsed),
    effectiveGasPrice: effectiveGasPrice(tx, ctx.baseFee),
    contractAddress: d.call.created ?? null,
  };
  if (tx.type === 3) {
    receipt.blobGasUsed = BigInt(d.blobs) * GAS_PER_BLOB;
    receipt.blobGasPrice = ctx.blobBaseFee;
  }
  return receipt;
}

function pickOrdinaryType(rng: Random): { type: TxType; protected: boolean } {
  const r = rng.float();
  if (r < 0.16) return { type: 0, protected: !rng.chance(0.1) };
  if (r < 0.19) return { type: 1, protected: true };
  return { type: 2, protected: true };
}

/** Generates the blocks of one chain in order, and the pending block after any of them. */
export class ChainGenerator {
  /** Number of the chain's first block. */
  readonly first: number;
  private readonly u: Universe;
  private readonly chainId: bigint;
  private readonly nonces = new Uint32Array(SENDER_COUNT);
  private readonly bloom = new BloomCache();
  private parent: BlockHeader | undefined;
  private number: number;

  /** Starts at the first block, or right after `after` (a block of this same chain, e.g. the stored head). */
  constructor(readonly opts: GeneratorOptions, after?: BlockHeader) {
    if (!(opts.density >= 0) || !Number.isFinite(opts.density)) throw new RangeError('density must be a finite number ≥ 0');
    this.first = opts.startNumber ?? 0;
    this.u = universe(opts.seed);
    this.chainId = opts.chainId ?? 1n;
    this.number = this.first;
    if (after) {
      if (after.number < this.first) throw new RangeError(`block ${after.number} precedes the chain's first block ${this.first}`);
      for (let b = this.first; b <= after.number; b++) {
        for (const s of drawSenders(this.u, opts.seed, opts.density, b)) this.nonces[s]!++;
      }
      this.parent = after;
      this.number = after.number + 1;
    }
  }

  /** Number of the block next() returns. */
  get nextNumber(): number {
    return this.number;
  }

  /** The next block; the generator moves past it. */
  next(): BlockBundle {
    const block = this.build(this.number, this.parent, this.nonces);
    this.parent = block.header;
    this.number++;
    return block;
  }

  /** The pending block: the block that would come next, built without moving the generator. */
  pending(): BlockBundle {
    return this.build(this.number, this.parent, this.nonces.slice());
  }

  private build(number: number, parent: BlockHeader | undefined, nonces: Uint32Array): BlockBundle {
    const { u, opts } = this;
    const fork = forkOf(number);
    const senders = drawSenders(u, opts.seed, opts.density, number);
    const rng = Random.derive(opts.seed, 'block', number);
    const timestamp = parent ? parent.timestamp + SLOT_SECONDS : GENESIS_TIME + SLOT_SECONDS * (number - this.first);
    let gasLimit = fork === Fork.Prague ? 36_000_000n : 30_000_000n;
    const baseFee = parent?.baseFeePerGas !== undefined ? nextBaseFee(parent) : REFERENCE_BASE_FEE;
    const blobParams: BlobParams | undefined = fork === Fork.Prague ? PRAGUE_BLOBS : fork === Fork.Cancun ? CANCUN_BLOBS : undefined;
    const excessBlobGas = blobParams ? nextExcessBlobGas(parent, blobParams) : 0n;

    const activity: BlockActivity = { rng, u, logs: [], storage: new StorageBook(), timestamp };
    const rareAt = rng.chance(RARE_SHARE) && senders.length > 0 ? rng.int(0, senders.length - 1) : -1;
    const blobBudget = blobParams ? this.blobBudget(rng, blobParams, excessBlobGas) : 0;
    const drafts: Draft[] = [];
    let rareLogged = false;
    let blobs = 0;
    for (let i = 0; i < senders.length; i++) {
      const sender = u.sender(senders[i]!);
      const nonce = BigInt(nonces[senders[i]!]!++);
      const r = rng.float();
      let draft: Draft;
      if (blobParams && r < 0.015 && blobs < blobBudget) {
        const count = rng.int(1, Math.min(6, blobBudget - blobs));
        blobs += count;
        draft = { type: 3, protected: true, sender, nonce, call: blobSubmission(activity), blobs: count };
      } else if (fork === Fork.Prague && r >= 0.015 && r < 0.025) {
        draft = { type: 4, protected: true, sender, nonce, call: delegatedCall(activity, sender, i), blobs: 0 };
      } else {
        const call = runPattern(pickPattern(rng), activity, sender, nonce, i);
        draft = { ...pickOrdinaryType(rng), sender, nonce, call, blobs: 0 };
      }
      // The rare log goes to the drawn transaction, or the next one when that one reverts.
      if (rareAt >= 0 && i >= rareAt && !rareLogged && !draft.call.reverted) {
        rareLog(activity, i);
        rareLogged = true;
      }
      drafts.push(draft);
    }

    const used = this.gasUsedPerTx(rng, drafts, gasLimit, baseFee);
    let gasUsed = 0;
    for (const g of used) gasUsed += g;
    if (BigInt(gasUsed) > gasLimit) gasLimit = BigInt(Math.ceil(gasUsed / 0.999));

    const txCtx: TxContext = { rng, u, chainId: this.chainId, baseFee, blobBaseFee: blobParams ? blobBaseFee(excessBlobGas, blobParams) : 0n };
    const transactions = [];
    const receipts: Receipt[] = [];
    const encoded: Uint8Array[] = [];
    for (let i = 0; i < drafts.length; i++) {
      const d = drafts[i]!;
      const limit = d.call.plain ? used[i]! : Math.round(used[i]! * (1 + rng.float() * 0.5));
      const built = buildTransaction(txCtx, d, BigInt(limit));
      transactions.push(built.tx);
      encoded.push(built.encoded);
      receipts.push(receiptOf(d, built.tx, used[i]!, txCtx));
    }

    const builder = u.feeRecipient(rng);
    const hasTxs = transactions.length > 0;
    const header: BlockHeader = {
      number,
      hash: new Uint8Array(32),
      parentHash: parent ? parent.hash : u.genesisParentHash,
      sha3Uncles: EMPTY_UNCLES_HASH,
      miner: builder.address,
      stateRoot: rng.bytes(32),
      transactionsRoot: hasTxs ? rng.bytes(32) : EMPTY_TRIE_ROOT,
      receiptsRoot: hasTxs ? rng.bytes(32) : EMPTY_TRIE_ROOT,
      logsBloom: this.bloom.logsBloom(activity.logs),
      difficulty: 0n,
      totalDifficulty: TOTAL_DIFFICULTY,
      gasLimit,
      gasUsed: BigInt(gasUsed),
      timestamp,
      extraData: builder.extraData,
      mixHash: rng.bytes(32),
      nonce: new Uint8Array(8),
      uncles: [],
      size: 0,
      txCount: transactions.length,
      baseFeePerGas: baseFee,
    };
    if (fork >= Fork.Shanghai) {
      header.withdrawals = this.withdrawals(rng, number);
      header.withdrawalsRoot = keccak256(rlpEncode(withdrawalsItem(header.withdrawals)));
    }
    if (fork >= Fork.Cancun) {
      header.blobGasUsed = BigInt(blobs) * GAS_PER_BLOB;
      header.excessBlobGas = excessBlobGas;
      header.parentBeaconBlockRoot = rng.bytes(32);
    }
    if (fork >= Fork.Prague) header.requestsHash = EMPTY_REQUESTS_HASH;
    header.size = blockSize(header, encoded);
    header.hash = computeBlockHash(header);
    return { header, transactions, receipts, logs: activity.logs, storage: activity.storage.list() };
  }

  /** Blobs this block may carry: around the target, fewer while the excess blob gas is high, so the blob fee stays bounded. */
  private blobBudget(rng: Random, params: BlobParams, excessBlobGas: bigint): number {
    const excessBlobs = Number(excessBlobGas / GAS_PER_BLOB);
    const budget = Math.round(params.target + 1.5 * rng.normal() - 0.2 * excessBlobs);
    return Math.max(0, Math.min(params.max, budget));
  }

  /**
   * Gas used by each transaction. The block aims at a fullness around the EIP-1559 target that
   * falls when the base fee is above its reference level (so the base fee stays mainnet-like), and
   * the non-plain transactions' gas above the 21,000 intrinsic cost is scaled to reach it.
   */
  private gasUsedPerTx(rng: Random, drafts: Draft[], gasLimit: bigint, baseFee: bigint): number[] {
    const target = Number(gasLimit) / 2;
    const fullness = Math.min(1.95, Math.max(0.05, 1 + 0.3 * rng.normal() - 0.5 * Math.log(Number(baseFee) / Number(REFERENCE_BASE_FEE))));
    const desired = Math.min(target * fullness, Number(gasLimit) * 0.999);
    let plain = 0;
    let flexCount = 0;
    let flexAbove = 0;
    for (const d of drafts) {
      if (d.call.plain) plain += d.call.gasUsed;
      else {
        flexCount++;
        flexAbove += d.call.gasUsed - 21_000;
      }
    }
    const room = desired - plain - 21_000 * flexCount;
    const k = flexAbove > 0 ? Math.min(40, Math.max(0.05, room / flexAbove)) : 1;
    return drafts.map((d: Draft) => (d.call.plain ? d.call.gasUsed : Math.round(21_000 + (d.call.gasUsed - 21_000) * k)));
  }

  /** Sixteen validator withdrawals with consecutive indexes, sweeping validators in order. */
  private withdrawals(rng: Random, number: number): Withdrawal[] {
    const out: Withdrawal[] = [];
    const first = (number - FORK_SCHEDULE.shanghai) * WITHDRAWALS_PER_BLOCK;
    for (let k = 0; k < WITHDRAWALS_PER_BLOCK; k++) {
      const index = first + k;
      const validatorIndex = Math.floor(index * 1.07) % 1_100_000;
      const amount = rng.chance(0.005) ? 32_000_000_000n + BigInt(rng.int(0, 99_999_999)) : BigInt(rng.int(14_000_000, 20_000_000));
      out.push({ index: BigInt(index), validatorIndex: BigInt(validatorIndex), address: this.u.withdrawalAddresses[validatorIndex % this.u.withdrawalAddresses.length]!, amount });
    }
    return out;
  }
}

/** Yields the chain's blocks in order, from startNumber on. */
export function* generateChain(opts: GeneratorOptions): Generator<BlockBundle> {
  const generator = new ChainGenerator(opts);
  for (let i = 0; i < opts.blocks; i++) yield generator.next();
}

/** The pending block after `head` (a block of the chain `opts` describes): number head + 1, with pending transactions. */
export function generatePending(opts: GeneratorOptions, head: BlockHeader): BlockBundle {
  return new ChainGenerator(opts, head).pending();
}
