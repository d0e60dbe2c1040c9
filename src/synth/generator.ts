/**
 * The deterministic, mainnet-like synthetic chain (docs/architecture.md §6). A block is built from
 * its plan (plan.ts: what it inherits from the blocks before it, folded cheaply in order) by a pure
 * function of (options, number, plan): its random draws come from streams derived from the seed and
 * the block number, so the same options give byte-identical blocks, blocks can be built in any
 * order by any thread, and generation can resume after any stored block. Linking a block to its
 * parent (parent hash, then its own hash) is the one step left in chain order.
 *
 * A block's fork is fixed by its number (forks.ts: short London, Shanghai and Cancun eras, then
 * Prague), never by the chain's length, so a longer chain of the same options begins with the
 * shorter one's blocks. Post-merge constants are mainnet's.
 * Not modelled: state, receipts and transaction tries. stateRoot, transactionsRoot and receiptsRoot
 * are deterministic pseudo-random words (the empty-trie root when the block has no transactions),
 * and withdrawalsRoot is keccak256(rlp(withdrawals)) instead of the trie root. Everything a client
 * can check against its own data is real: hashes of headers and transactions, block sizes, blooms,
 * the base fee and excess blob gas from the parent's, receipts' gas adding up to the block's.
 */
import { BloomCache } from '../chain/bloomCache.js';
import type { ChainKind } from '../chain/chainKind.js';
import { effectiveGasPrice } from '../chain/gasPrice.js';
import { blockSize, computeBlockHash, withdrawalsItem } from '../chain/headerEncoding.js';
import { hexToBytes } from '../chain/hex.js';
import { keccak256 } from '../chain/keccak.js';
import { rlpEncode } from '../chain/rlp.js';
import type { BlockBundle, BlockHeader, Log, Receipt, Transaction, TxType, Withdrawal } from '../chain/types.js';
import {
  type BlockActivity,
  blobSubmission,
  delegatedCall,
  PATTERNS,
  rareLog,
  runPattern,
  StorageBook,
} from './activity.js';
import { TRANSFER_TOPIC } from './events.js';
import { blobBaseFee, GAS_PER_BLOB } from './fees.js';
import { FORK_SCHEDULE, Fork } from './forks.js';
import { addL1Fee, blockDeposits, openWithDeposits } from './opStack.js';
import { type BlockPlan, ChainPlanner, INTRINSIC_GAS, TX_KIND } from './plan.js';
import { Random } from './random.js';
import { buildTransaction, type Draft, type TxContext } from './transactions.js';
import { type FeeRecipient, rareAddress, Universe } from './universe.js';

export { TRANSFER_TOPIC } from './events.js';
export { genesisParentHash, rareAddress } from './universe.js';

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
  /** The kind of chain (default ethereum); `op` opens every block with deposits and adds L1 fees (opStack.ts). */
  chain?: ChainKind;
}

/**
 * Version of the chain the generator makes: it changes whenever the same options would give other
 * blocks, so a store is never extended with blocks of another version (provenance.ts). Version 1
 * scaled the fork eras with the chain's length; 2 fixes them by block number (forks.ts); 3 draws
 * what a block inherits (senders, transaction kinds, blobs, gas used) from its plan (plan.ts), so
 * blocks can be built in parallel.
 */
export const CHAIN_VERSION = 3;

/** Mainnet's total difficulty at the merge, constant ever since. */
export const TOTAL_DIFFICULTY = 58_750_000_000_000_000_000_000n;
/** keccak256(rlp([])): the uncles hash of every post-merge block. */
export const EMPTY_UNCLES_HASH = hexToBytes('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')!;
/**
 * Root of the empty Merkle-Patricia trie (keccak256(rlp(''))): the transactions and receipts root of an empty block.
 */
export const EMPTY_TRIE_ROOT = hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')!;
/** sha256 of nothing: EIP-7685's requestsHash of a block without execution-layer requests. */
export const EMPTY_REQUESTS_HASH = hexToBytes('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')!;

/** Share of blocks with one log of the rare contract. */
const RARE_SHARE = 0.01;
const WITHDRAWALS_PER_BLOCK = 16;
/** Zero bytes standing for a hash until the block is linked to its parent (linkBlock). */
const UNLINKED = new Uint8Array(32);

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

/**
 * The receipt of drafted transaction `tx` that used `gasUsed`: consistent with its call (reverted, created) and the
 * block's fees.
 */
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

/**
 * Builds blocks from their plans: everything expensive about a block (its calls, logs, storage
 * writes, signed transactions and their hashes, receipts, logsBloom, size) is a pure function of
 * (options, number, plan). The block comes out unlinked: its parent hash and hash are zero until
 * linkBlock (or, for encoded records, linkRecords) chains it to its parent.
 */
export class BlockBuilder {
  /** The world of the chain's seed. */
  readonly u: Universe;
  private readonly chainId: bigint;
  private readonly bloom = new BloomCache();

  /** Builds blocks of the chain `opts` describes. */
  constructor(readonly opts: GeneratorOptions) {
    if (!(opts.density >= 0) || !Number.isFinite(opts.density))
      throw new RangeError('density must be a finite number ≥ 0');
    this.u = universe(opts.seed);
    this.chainId = opts.chainId ?? 1n;
  }

  /** A planner of this chain from its first block. */
  planner(): ChainPlanner {
    return new ChainPlanner(this.u, this.opts.seed, this.opts.density, this.opts.startNumber ?? 0);
  }

  /** The unlinked block of `plan`. */
  build(plan: BlockPlan): BlockBundle {
    const { u } = this;
    const { number, baseFee, blobParams } = plan;
    const rng = Random.derive(this.opts.seed, 'block', number);
    const activity: BlockActivity = { rng, u, logs: [], storage: new StorageBook(), timestamp: plan.timestamp };
    const drafts = draftTransactions(plan, activity);
    const blobFee = blobParams ? blobBaseFee(plan.excessBlobGas, blobParams) : 0n;
    const txCtx: TxContext = { rng, u, chainId: this.chainId, baseFee, blobBaseFee: blobFee };
    const built = buildTransactions(drafts, plan.gasUsed, txCtx);
    let gasUsed = BigInt(plan.gasUsed);
    if (this.opts.chain === 'op') gasUsed += addOpStackParts(this.opts.seed, number, u, built, activity.logs);
    const feeRecipient = u.feeRecipient(rng);
    const logsBloom = this.bloom.logsBloom(activity.logs);
    const header = unlinkedHeader(plan, gasUsed, built.transactions.length, logsBloom, feeRecipient, rng);
    addForkFields(header, plan, u, rng);
    header.size = blockSize(header, built.encoded);
    const { transactions, receipts } = built;
    return { header, transactions, receipts, logs: activity.logs, storage: activity.storage.list() };
  }
}

/**
 * The drafts of a block's transactions, in order. The rare log goes to the drawn transaction, or the
 * next one when that one reverts.
 */
function draftTransactions(plan: BlockPlan, activity: BlockActivity): Draft[] {
  const { rng } = activity;
  const count = plan.senders.length;
  const rareAt = rng.chance(RARE_SHARE) && count > 0 ? rng.int(0, count - 1) : -1;
  const drafts: Draft[] = [];
  let rareLogged = false;
  for (let i = 0; i < count; i++) {
    const draft = draftTransaction(plan, activity, i);
    if (rareAt >= 0 && i >= rareAt && !rareLogged && !draft.call.reverted) {
      rareLog(activity, i);
      rareLogged = true;
    }
    drafts.push(draft);
  }
  return drafts;
}

/** The draft of the plan's transaction `i`: a blob submission, a delegated call, or its pattern's call. */
function draftTransaction(plan: BlockPlan, activity: BlockActivity, i: number): Draft {
  const sender = activity.u.sender(plan.senders[i]!);
  const nonce = BigInt(plan.nonces[i]!);
  const kind = plan.kinds[i]!;
  if (kind === TX_KIND.blob) {
    return { type: 3, protected: true, sender, nonce, call: blobSubmission(activity), blobs: plan.blobs[i]! };
  }
  if (kind === TX_KIND.setCode) {
    return { type: 4, protected: true, sender, nonce, call: delegatedCall(activity, sender, i), blobs: 0 };
  }
  const call = runPattern(PATTERNS[kind]!.kind, activity, sender, nonce, i);
  const ordinary = pickOrdinaryType(activity.rng);
  return { type: ordinary.type, protected: ordinary.protected, sender, nonce, call, blobs: 0 };
}

/** A block's signed transactions, their encodings and their receipts, in order. */
interface BuiltTransactions {
  transactions: Transaction[];
  encoded: Uint8Array[];
  receipts: Receipt[];
}

/** Signs the drafts, their gas summing to the block's `gasUsed`, and makes their receipts. */
function buildTransactions(drafts: Draft[], gasUsed: number, txCtx: TxContext): BuiltTransactions {
  const used = gasPerTx(drafts, gasUsed);
  const built: BuiltTransactions = { transactions: [], encoded: [], receipts: [] };
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!;
    const limit = d.call.plain ? used[i]! : Math.round(used[i]! * (1 + txCtx.rng.float() * 0.5));
    const { tx, encoded } = buildTransaction(txCtx, d, BigInt(limit));
    built.transactions.push(tx);
    built.encoded.push(encoded);
    built.receipts.push(receiptOf(d, tx, used[i]!, txCtx));
  }
  return built;
}

/**
 * An OP-stack block's parts: L1 fees on the receipts, and the deposits opening the block (with their
 * logs); returns the gas the deposits use. Drawn from a stream of its own, so the rest of the block
 * is the Ethereum chain's of the same seed.
 */
function addOpStackParts(seed: string, number: number, u: Universe, built: BuiltTransactions, logs: Log[]): bigint {
  const opRng = Random.derive(seed, 'op', number);
  for (let i = 0; i < built.receipts.length; i++) addL1Fee(opRng, built.receipts[i]!, built.encoded[i]!.length);
  const deposits = blockDeposits(opRng, number, u.sender(0).address);
  openWithDeposits(deposits, built.transactions, built.encoded, built.receipts, logs);
  return deposits.gasUsed;
}

/** The header of `plan`'s block before its fork's fields, its size and its link to the parent. */
function unlinkedHeader(
  plan: BlockPlan,
  gasUsed: bigint,
  txCount: number,
  logsBloom: Uint8Array,
  feeRecipient: FeeRecipient,
  rng: Random,
): BlockHeader {
  const hasTxs = txCount > 0;
  return {
    number: plan.number,
    hash: UNLINKED,
    parentHash: UNLINKED,
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner: feeRecipient.address,
    stateRoot: rng.bytes(32),
    transactionsRoot: hasTxs ? rng.bytes(32) : EMPTY_TRIE_ROOT,
    receiptsRoot: hasTxs ? rng.bytes(32) : EMPTY_TRIE_ROOT,
    logsBloom,
    difficulty: 0n,
    totalDifficulty: TOTAL_DIFFICULTY,
    gasLimit: plan.gasLimit,
    gasUsed,
    timestamp: plan.timestamp,
    extraData: feeRecipient.extraData,
    mixHash: rng.bytes(32),
    nonce: new Uint8Array(8),
    uncles: [],
    size: 0,
    txCount,
    baseFeePerGas: plan.baseFee,
  };
}

/** Adds the header fields of the block's fork: withdrawals, blob gas and beacon root, requests. */
function addForkFields(header: BlockHeader, plan: BlockPlan, u: Universe, rng: Random): void {
  if (plan.fork >= Fork.Shanghai) {
    header.withdrawals = validatorWithdrawals(u, rng, plan.number);
    header.withdrawalsRoot = keccak256(rlpEncode(withdrawalsItem(header.withdrawals)));
  }
  if (plan.fork >= Fork.Cancun) {
    header.blobGasUsed = plan.blobGasUsed;
    header.excessBlobGas = plan.excessBlobGas;
    header.parentBeaconBlockRoot = rng.bytes(32);
  }
  if (plan.fork >= Fork.Prague) header.requestsHash = EMPTY_REQUESTS_HASH;
}

/** Sixteen validator withdrawals with consecutive indexes, sweeping validators in order. */
function validatorWithdrawals(u: Universe, rng: Random, number: number): Withdrawal[] {
  const out: Withdrawal[] = [];
  const first = (number - FORK_SCHEDULE.shanghai) * WITHDRAWALS_PER_BLOCK;
  for (let k = 0; k < WITHDRAWALS_PER_BLOCK; k++) {
    const index = first + k;
    const validatorIndex = Math.floor(index * 1.07) % 1_100_000;
    const amount = rng.chance(0.005)
      ? 32_000_000_000n + BigInt(rng.int(0, 99_999_999))
      : BigInt(rng.int(14_000_000, 20_000_000));
    const address = u.withdrawalAddresses[validatorIndex % u.withdrawalAddresses.length]!;
    out.push({ index: BigInt(index), validatorIndex: BigInt(validatorIndex), address, amount });
  }
  return out;
}

/**
 * Gas used by each transaction, adding up to the block's `gasUsed` exactly: plain transactions
 * spend the intrinsic 21,000, and the calls share the rest in proportion to what their patterns
 * drafted (cumulative rounding, so no gas is lost or made).
 */
function gasPerTx(drafts: Draft[], gasUsed: number): number[] {
  const room = gasUsed - INTRINSIC_GAS * drafts.length;
  let above = 0;
  for (const d of drafts) if (!d.call.plain) above += d.call.gasUsed - INTRINSIC_GAS;
  let drafted = 0;
  let given = 0;
  return drafts.map((d) => {
    if (d.call.plain) return INTRINSIC_GAS;
    drafted += d.call.gasUsed - INTRINSIC_GAS;
    const upTo = Math.round(room * (drafted / above));
    const gas = INTRINSIC_GAS + upTo - given;
    given = upTo;
    return gas;
  });
}

/** Links an unlinked block to its parent: sets its parent hash and computes its hash. */
export function linkBlock(block: BlockBundle, parentHash: Uint8Array): BlockBundle {
  block.header.parentHash = parentHash;
  block.header.hash = computeBlockHash(block.header);
  return block;
}

/** Generates the blocks of one chain in order, and the pending block after any of them. */
export class ChainGenerator {
  /** Number of the chain's first block. */
  readonly first: number;
  private readonly builder: BlockBuilder;
  private readonly planner: ChainPlanner;
  private parentHash: Uint8Array;

  /**
   * Starts at the first block, or right after `after` (a block of this same chain, e.g. the stored head: its number and
   * hash).
   */
  constructor(
    readonly opts: GeneratorOptions,
    after?: Pick<BlockHeader, 'number' | 'hash'>,
  ) {
    this.builder = new BlockBuilder(opts);
    this.first = opts.startNumber ?? 0;
    this.planner = this.builder.planner();
    this.parentHash = this.builder.u.genesisParentHash;
    if (after) {
      if (after.number < this.first)
        throw new RangeError(`block ${after.number} precedes the chain's first block ${this.first}`);
      this.planner.skipTo(after.number + 1);
      this.parentHash = after.hash;
    }
  }

  /** Number of the block next() returns. */
  get nextNumber(): number {
    return this.planner.nextNumber;
  }

  /** The next block; the generator moves past it. */
  next(): BlockBundle {
    const block = linkBlock(this.builder.build(this.planner.next()), this.parentHash);
    this.parentHash = block.header.hash;
    return block;
  }

  /** The pending block: the block that would come next, built without moving the generator. */
  pending(): BlockBundle {
    return linkBlock(this.builder.build(this.planner.peek()), this.parentHash);
  }
}

/** Yields the chain's blocks in order, from startNumber on. */
export function* generateChain(opts: GeneratorOptions): Generator<BlockBundle> {
  const generator = new ChainGenerator(opts);
  for (let i = 0; i < opts.blocks; i++) yield generator.next();
}

/**
 * The pending block after `head` (a block of the chain `opts` describes): number head + 1, with pending transactions.
 */
export function generatePending(opts: GeneratorOptions, head: BlockHeader): BlockBundle {
  return new ChainGenerator(opts, head).pending();
}
