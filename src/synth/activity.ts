/**
 * What the transactions of a synthetic block do: each pattern (ETH transfer, ERC-20 transfer and
 * approval, Uniswap-V2 swaps, WETH wrapping, long-tail contract calls, contract creations, reverted
 * calls, blob submissions, EIP-7702 calls) yields the call (to, input, value, gas used) and appends
 * the logs it emits and the storage slots it writes, in Solidity's layout.
 */
import { bytesToBigInt } from '../chain/hex.js';
import { keccak256 } from '../chain/keccak.js';
import { rlpEncode, rlpUint } from '../chain/rlp.js';
import type { Log, StorageWrite } from '../chain/types.js';
import {
  ANSWER_UPDATED_TOPIC,
  APPROVAL_TOPIC,
  type CustomEvent,
  DEPOSIT_TOPIC,
  OWNERSHIP_TRANSFERRED_TOPIC,
  SWAP_TOPIC,
  SYNC_TOPIC,
  TRANSFER_TOPIC,
  WITHDRAWAL_TOPIC,
} from './events.js';
import type { Random } from './random.js';
import { type Entity, SLOT, type Universe } from './universe.js';

/** The call a transaction makes; `plain` calls use exactly 21,000 gas and are never rescaled. */
export interface Call {
  to: Uint8Array | null;
  input: Uint8Array;
  value: bigint;
  gasUsed: number;
  plain: boolean;
  /** Set when the call reverts (its receipt's status is 0). */
  reverted?: true;
  /** The contract a creation makes (its receipt's contractAddress). */
  created?: Uint8Array;
}

/** The storage writes of one block, one entry per (address, slot), the last value winning. */
export class StorageBook {
  private readonly byKey = new Map<number, StorageWrite>();
  private readonly fresh: StorageWrite[] = [];

  /** Writes `value` to `slot` of the known contract `contract`; `slotKey` identifies the slot within it (< 2^25). */
  write(contract: Entity, slotKey: number, slot: Uint8Array, value: Uint8Array): void {
    const key = contract.id * 33554432 + slotKey;
    const known = this.byKey.get(key);
    if (known) known.value = value;
    else this.byKey.set(key, { address: contract.address, slot, value });
  }

  /** Writes a slot of a contract created in this block (never written before). */
  writeFresh(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    this.fresh.push({ address, slot, value });
  }

  /** All writes, in first-write order. */
  list(): StorageWrite[] {
    return [...this.byKey.values(), ...this.fresh];
  }
}

/** Everything a pattern needs: the block's random stream, the world, and the block's logs and storage. */
export interface BlockActivity {
  rng: Random;
  u: Universe;
  logs: Log[];
  storage: StorageBook;
  timestamp: number;
}

const EMPTY = new Uint8Array(0);
const MAX_WORD = new Uint8Array(32).fill(0xff);
const POW10 = Array.from({ length: 19 }, (_, i) => 10n ** BigInt(i));

const selector = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
const SEL = {
  transfer: selector('a9059cbb'),
  approve: selector('095ea7b3'),
  swapExactTokensForTokens: selector('38ed1739'),
  swapExactETHForTokens: selector('7ff36ab5'),
  deposit: selector('d0e30db0'),
  withdraw: selector('2e1a7d4d'),
  initcode: selector('6080604052'),
};

/** A 32-byte ABI word holding an amount of `minBytes`..`maxBytes` significant bytes. */
function amountWord(rng: Random, minBytes = 6, maxBytes = 12): Uint8Array {
  const word = new Uint8Array(32);
  const n = rng.int(minBytes, maxBytes);
  rng.fill(word, 32 - n, n);
  if (word[32 - n] === 0) word[32 - n] = 1;
  return word;
}

/** A data word of the long tail: mostly small amounts, sometimes addresses or full 256-bit values. */
function mixedWord(rng: Random): Uint8Array {
  const r = rng.float();
  if (r < 0.6) return amountWord(rng, 1, 12);
  if (r < 0.8) return amountWord(rng, 20, 20);
  return rng.bytes(32);
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

function emit(a: BlockActivity, address: Uint8Array, topics: Uint8Array[], data: Uint8Array, txIndex: number): void {
  a.logs.push({ address, topics, data, txIndex });
}

function balanceSlot(a: BlockActivity, token: Entity): number {
  if (token === a.u.weth) return SLOT.wethBalances;
  return SLOT.balances;
}

function writeBalance(a: BlockActivity, token: Entity, holder: Entity): void {
  const slot = balanceSlot(a, token);
  a.storage.write(token, (holder.id + 1) * 16 + slot, a.u.mappingSlot(holder, slot), amountWord(a.rng, 4, 12));
}

function erc20Transfer(
  a: BlockActivity,
  token: Entity,
  from: Entity,
  to: Entity,
  amount: Uint8Array,
  txIndex: number,
): void {
  emit(a, token.address, [TRANSFER_TOPIC, from.topic, to.topic], amount, txIndex);
  if (from !== a.u.zero) writeBalance(a, token, from);
  else a.storage.write(token, SLOT.totalSupply, a.u.plainSlot(SLOT.totalSupply), amountWord(a.rng, 10, 14));
  writeBalance(a, token, to);
}

/** A plain ETH transfer to an account: no logs. */
export function ethTransfer(a: BlockActivity): Call {
  const value = BigInt(a.rng.int(1, 9999)) * POW10[a.rng.int(13, 18)]!;
  return { to: a.u.holder(a.rng).address, input: EMPTY, value, gasUsed: 21_000, plain: true };
}

/** An ERC-20 transfer (sometimes a mint from the zero address): one Transfer log, two balance writes. */
export function tokenTransfer(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const token = a.u.token(a.rng);
  const to = a.u.holder(a.rng);
  const amount = amountWord(a.rng);
  const from = a.rng.chance(0.02) ? a.u.zero : sender;
  erc20Transfer(a, token, from, to, amount, txIndex);
  return {
    to: token.address,
    input: concat([SEL.transfer, to.topic, amount]),
    value: 0n,
    gasUsed: a.rng.int(30_000, 60_000),
    plain: false,
  };
}

/** An ERC-20 approval of the router or a contract: one Approval log, one nested-mapping write. */
export function tokenApprove(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const token = a.u.token(a.rng);
  const spender = a.rng.chance(0.6) ? a.u.router : a.u.custom(a.rng).entity;
  const amount = a.rng.chance(0.4) ? MAX_WORD : amountWord(a.rng);
  emit(a, token.address, [APPROVAL_TOPIC, sender.topic, spender.topic], amount, txIndex);
  a.storage.writeFresh(token.address, a.u.allowanceSlot(sender, spender), amount);
  return {
    to: token.address,
    input: concat([SEL.approve, spender.topic, amount]),
    value: 0n,
    gasUsed: a.rng.int(24_000, 46_000),
    plain: false,
  };
}

function reservesWord(a: BlockActivity, r0: Uint8Array, r1: Uint8Array): Uint8Array {
  const word = new Uint8Array(32);
  const ts = a.timestamp >>> 0;
  word[0] = ts >>> 24;
  word[1] = ts >>> 16;
  word[2] = ts >>> 8;
  word[3] = ts;
  word.set(r1.subarray(18), 4);
  word.set(r0.subarray(18), 18);
  return word;
}

/** One hop through a pair: tokenIn arrives at the pair, tokenOut leaves to `to`, then Sync and Swap. */
function hop(
  a: BlockActivity,
  pairIndex: { entity: Entity; token0: Entity; token1: Entity },
  zeroForOne: boolean,
  to: Entity,
  amountIn: Uint8Array,
  txIndex: number,
): Uint8Array {
  const pair = pairIndex.entity;
  const tokenOut = zeroForOne ? pairIndex.token1 : pairIndex.token0;
  const amountOut = amountWord(a.rng);
  erc20Transfer(a, tokenOut, pair, to, amountOut, txIndex);
  const r0 = amountWord(a.rng, 9, 13);
  const r1 = amountWord(a.rng, 9, 13);
  emit(a, pair.address, [SYNC_TOPIC], concat([r0, r1]), txIndex);
  a.storage.write(pair, SLOT.pairReserves, a.u.plainSlot(SLOT.pairReserves), reservesWord(a, r0, r1));
  const zero = new Uint8Array(32);
  const data = zeroForOne ? [amountIn, zero, zero, amountOut] : [zero, amountIn, amountOut, zero];
  emit(a, pair.address, [SWAP_TOPIC, a.u.router.topic, to.topic], concat(data), txIndex);
  return amountOut;
}

/** A router swap through one pair, sometimes paying ETH (WETH Deposit first): 4-5 logs. */
export function swap(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const p = a.u.pair(a.rng);
  const zeroForOne = a.rng.chance(0.5);
  const tokenIn = zeroForOne ? p.token0 : p.token1;
  const amountIn = amountWord(a.rng);
  let value = 0n;
  if (tokenIn === a.u.weth && a.rng.chance(0.5)) {
    value = bytesToBigInt(amountIn);
    emit(a, a.u.weth.address, [DEPOSIT_TOPIC, a.u.router.topic], amountIn, txIndex);
    erc20Transfer(a, tokenIn, a.u.router, p.entity, amountIn, txIndex);
  } else {
    erc20Transfer(a, tokenIn, sender, p.entity, amountIn, txIndex);
  }
  hop(a, p, zeroForOne, sender, amountIn, txIndex);
  const deadline = amountWord(a.rng, 4, 4);
  const path = [tokenIn.topic, (zeroForOne ? p.token1 : p.token0).topic];
  const input =
    value > 0n
      ? concat([SEL.swapExactETHForTokens, amountWord(a.rng), wordOf(0x80), sender.topic, deadline, wordOf(2), ...path])
      : concat([
          SEL.swapExactTokensForTokens,
          amountIn,
          amountWord(a.rng),
          wordOf(0xa0),
          sender.topic,
          deadline,
          wordOf(2),
          ...path,
        ]);
  return { to: a.u.router.address, input, value, gasUsed: a.rng.int(90_000, 150_000), plain: false };
}

/** A two-pair route, sometimes unwrapping WETH at the end: 7-8 logs. */
export function multiHopSwap(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const p1 = a.u.pair(a.rng);
  let p2 = a.u.pair(a.rng);
  if (p2 === p1) p2 = a.u.pairs[(a.u.pairs.indexOf(p1) + 1) % a.u.pairs.length]!;
  const zeroForOne = a.rng.chance(0.5);
  const tokenIn = zeroForOne ? p1.token0 : p1.token1;
  const amountIn = amountWord(a.rng);
  erc20Transfer(a, tokenIn, sender, p1.entity, amountIn, txIndex);
  const mid = hop(a, p1, zeroForOne, p2.entity, amountIn, txIndex);
  const unwrap = a.rng.chance(0.3);
  const out = hop(a, p2, a.rng.chance(0.5), unwrap ? a.u.router : sender, mid, txIndex);
  if (unwrap) emit(a, a.u.weth.address, [WITHDRAWAL_TOPIC, a.u.router.topic], out, txIndex);
  const words = [
    amountIn,
    amountWord(a.rng),
    wordOf(0xa0),
    sender.topic,
    amountWord(a.rng, 4, 4),
    wordOf(3),
    tokenIn.topic,
    p2.token0.topic,
    p2.token1.topic,
  ];
  return {
    to: a.u.router.address,
    input: concat([SEL.swapExactTokensForTokens, ...words]),
    value: 0n,
    gasUsed: a.rng.int(150_000, 250_000),
    plain: false,
  };
}

/** WETH deposit or withdrawal: one log, one balance write. */
export function wrap(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const wad = amountWord(a.rng, 7, 10);
  const deposit = a.rng.chance(0.5);
  emit(a, a.u.weth.address, [deposit ? DEPOSIT_TOPIC : WITHDRAWAL_TOPIC, sender.topic], wad, txIndex);
  writeBalance(a, a.u.weth, sender);
  const input = deposit ? SEL.deposit : concat([SEL.withdraw, wad]);
  return {
    to: a.u.weth.address,
    input,
    value: deposit ? bytesToBigInt(wad) : 0n,
    gasUsed: a.rng.int(27_000, 45_000),
    plain: false,
  };
}

function customLog(a: BlockActivity, address: Uint8Array, ev: CustomEvent, sender: Entity, txIndex: number): void {
  const topics: Uint8Array[] = ev.topic0 ? [ev.topic0] : [];
  for (const isAddress of ev.addressTopics) {
    if (isAddress) topics.push(a.rng.chance(0.3) ? sender.topic : a.u.holder(a.rng).topic);
    else topics.push(a.rng.chance(0.5) ? amountWord(a.rng, 1, 8) : a.rng.bytes(32));
  }
  const n = a.rng.int(ev.words[0], ev.words[1]);
  const words: Uint8Array[] = [];
  for (let i = 0; i < n; i++) words.push(mixedWord(a.rng));
  emit(a, address, topics, concat(words), txIndex);
}

function callInput(a: BlockActivity, minWords: number, maxWords: number): Uint8Array {
  const parts = [a.rng.bytes(4)];
  const n = a.rng.int(minWords, maxWords);
  for (let i = 0; i < n; i++) parts.push(mixedWord(a.rng));
  return concat(parts);
}

/** A call to a long-tail contract: 1 to ~12 of its events (mean ~4), and sometimes a plain slot write. */
export function customCall(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const c = a.u.custom(a.rng);
  const n = Math.min(12, 1 + Math.floor(-Math.log(1 - a.rng.float()) * 3.5));
  for (let i = 0; i < n; i++) customLog(a, c.entity.address, a.rng.pick(c.events), sender, txIndex);
  if (a.rng.chance(0.5)) {
    const slot = a.rng.int(0, 9);
    a.storage.write(c.entity, slot, a.u.plainSlot(slot), mixedWord(a.rng));
  }
  return {
    to: c.entity.address,
    input: callInput(a, 1, 10),
    value: 0n,
    gasUsed: a.rng.int(40_000, 160_000),
    plain: false,
  };
}

/** A reverted call: gas spent, no logs, no storage. */
export function revertedCall(a: BlockActivity): Call {
  return {
    to: a.u.custom(a.rng).entity.address,
    input: callInput(a, 1, 6),
    value: 0n,
    gasUsed: a.rng.int(22_000, 60_000),
    plain: false,
    reverted: true,
  };
}

/**
 * A contract creation (to = null, init code as input); the new contract often logs OwnershipTransferred and stores its
 * owner.
 */
export function createContract(a: BlockActivity, sender: Entity, nonce: bigint, txIndex: number): Call {
  const address = keccak256(rlpEncode([sender.address, rlpUint(nonce)])).slice(12);
  if (a.rng.chance(0.6)) emit(a, address, [OWNERSHIP_TRANSFERRED_TOPIC, a.u.zero.topic, sender.topic], EMPTY, txIndex);
  a.storage.writeFresh(address, a.u.plainSlot(0), sender.topic);
  const code = a.rng.bytes(a.rng.chance(0.8) ? a.rng.int(300, 1500) : a.rng.int(1500, 6000));
  return {
    to: null,
    input: concat([SEL.initcode, code]),
    value: 0n,
    gasUsed: a.rng.int(120_000, 900_000),
    plain: false,
    created: address,
  };
}

/** A blob submission to a rollup inbox (type 3): empty calldata, no logs. */
export function blobSubmission(a: BlockActivity): Call {
  return { to: a.rng.pick(a.u.inboxes).address, input: EMPTY, value: 0n, gasUsed: 21_000, plain: true };
}

/** An EIP-7702 call into delegated code (type 4): the account itself logs 0-2 events. */
export function delegatedCall(a: BlockActivity, sender: Entity, txIndex: number): Call {
  const self = a.rng.chance(0.6);
  const target = self ? sender : a.u.holder(a.rng);
  const n = a.rng.int(0, 2);
  for (let i = 0; i < n; i++) customLog(a, target.address, a.rng.pick(a.u.custom(a.rng).events), sender, txIndex);
  return {
    to: target.address,
    input: callInput(a, 1, 8),
    value: 0n,
    gasUsed: a.rng.int(46_000, 200_000),
    plain: false,
  };
}

/** The rare contract's log: one AnswerUpdated(current, roundId, updatedAt). */
export function rareLog(a: BlockActivity, txIndex: number): void {
  emit(
    a,
    a.u.rare.address,
    [ANSWER_UPDATED_TOPIC, amountWord(a.rng, 4, 8), amountWord(a.rng, 2, 4)],
    wordOf(a.timestamp),
    txIndex,
  );
}

/** A 32-byte word holding a small non-negative integer. */
function wordOf(value: number): Uint8Array {
  const word = new Uint8Array(32);
  for (let i = 31, v = value; i >= 0 && v > 0; i--, v = Math.floor(v / 256)) word[i] = v % 256;
  return word;
}

/** The transaction patterns drawn for ordinary (type 0-2) transactions, with their weights. */
export const PATTERNS: readonly { weight: number; kind: PatternKind }[] = [
  { weight: 0.28, kind: 'eth' },
  { weight: 0.28, kind: 'transfer' },
  { weight: 0.07, kind: 'approve' },
  { weight: 0.12, kind: 'swap' },
  { weight: 0.05, kind: 'multihop' },
  { weight: 0.03, kind: 'wrap' },
  { weight: 0.15, kind: 'custom' },
  { weight: 0.01, kind: 'create' },
  { weight: 0.01, kind: 'revert' },
];

/** The ordinary transaction patterns. */
export type PatternKind =
  | 'eth'
  | 'transfer'
  | 'approve'
  | 'swap'
  | 'multihop'
  | 'wrap'
  | 'custom'
  | 'create'
  | 'revert';

/** Runs pattern `kind` for `sender` at `txIndex`. */
export function runPattern(kind: PatternKind, a: BlockActivity, sender: Entity, nonce: bigint, txIndex: number): Call {
  switch (kind) {
    case 'eth':
      return ethTransfer(a);
    case 'transfer':
      return tokenTransfer(a, sender, txIndex);
    case 'approve':
      return tokenApprove(a, sender, txIndex);
    case 'swap':
      return swap(a, sender, txIndex);
    case 'multihop':
      return multiHopSwap(a, sender, txIndex);
    case 'wrap':
      return wrap(a, sender, txIndex);
    case 'custom':
      return customCall(a, sender, txIndex);
    case 'create':
      return createContract(a, sender, nonce, txIndex);
    case 'revert':
      return revertedCall(a);
  }
}
