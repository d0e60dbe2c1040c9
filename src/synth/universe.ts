/**
 * The fixed cast of the synthetic chain, derived from the seed alone: externally owned accounts,
 * ERC-20 tokens, WETH, a DEX router and its pairs, long-tail contracts with their events, rollup
 * inboxes, EIP-7702 delegates, fee recipients, withdrawal addresses, and the rare contract that
 * logs in about 1% of blocks. Popularity is Zipf-skewed so the top 1% of contracts emit most logs.
 */
import { keccak256 } from '../chain/keccak.js';
import { mappingSlotAt, slotWord } from '../chain/storageSlot.js';
import { CUSTOM_EVENTS, type CustomEvent } from './events.js';
import { Random, Zipf } from './random.js';

/** An address with its 32-byte topic form (left-padded) and a small integer id for cache keys. */
export interface Entity {
  id: number;
  address: Uint8Array;
  topic: Uint8Array;
}

/** A Uniswap-V2-style pair and its two tokens. */
export interface Pair {
  entity: Entity;
  token0: Entity;
  token1: Entity;
}

/** A long-tail contract and the events it emits. */
export interface CustomContract {
  entity: Entity;
  events: CustomEvent[];
}

/** A fee recipient (block builder) and the extraData it writes. */
export interface FeeRecipient {
  address: Uint8Array;
  extraData: Uint8Array;
}

/** Accounts that can send transactions (the first EOAs); their nonces are tracked. */
export const SENDER_COUNT = 20_000;
/** All externally owned accounts (senders, recipients, token holders). */
const EOA_COUNT = 60_000;
const TOKEN_COUNT = 4_000;
const PAIR_COUNT = 1_500;
const CUSTOM_COUNT = 3_000;
const INBOX_COUNT = 6;
const DELEGATE_COUNT = 8;
const WITHDRAWAL_ADDRESS_COUNT = 500;

/**
 * Bytes of each slab the world's addresses and topics are cut from: tens of thousands of small
 * arrays with a backing store each cost more to collect than to build, and a slab this small still
 * clones cheaply when an array of it is structured-cloned.
 */
const SLAB_BYTES = 4096;

const BUILDERS = [
  'beaverbuild.org',
  'Titan (titanbuilder.xyz)',
  'rsync-builder.xyz',
  'Illuminate Dmocratize Dstribute',
  'buildernet',
  'geth go1.23.4 linux',
];

/**
 * Shared ERC-20 storage slots (OpenZeppelin layout: _balances 0, _allowances 1, _totalSupply 2; WETH9: balanceOf 3).
 */
export const SLOT = {
  balances: 0,
  allowances: 1,
  totalSupply: 2,
  wethBalances: 3,
  pairBalances: 1,
  pairReserves: 8,
} as const;

/** The deterministic world a seed describes. */
export class Universe {
  readonly eoas: Entity[] = [];
  readonly tokens: Entity[] = [];
  readonly pairs: Pair[] = [];
  readonly customs: CustomContract[] = [];
  readonly inboxes: Entity[] = [];
  readonly delegates: Entity[] = [];
  readonly feeRecipients: FeeRecipient[] = [];
  readonly withdrawalAddresses: Uint8Array[] = [];
  readonly weth: Entity;
  readonly router: Entity;
  readonly rare: Entity;
  readonly zero: Entity;
  /** The parent hash of the first generated block. */
  readonly genesisParentHash: Uint8Array;

  readonly senders = new Zipf(SENDER_COUNT, 1.0);
  readonly holders = new Zipf(EOA_COUNT, 0.9);
  readonly tokenRank = new Zipf(TOKEN_COUNT, 1.15);
  readonly pairRank = new Zipf(PAIR_COUNT, 1.1);
  readonly customRank = new Zipf(CUSTOM_COUNT, 1.1);
  readonly builderRank = new Zipf(BUILDERS.length, 1.2);

  private nextId = 1;
  private slab = new Uint8Array(0);
  private slabUsed = 0;
  private readonly slotCache = new Map<number, Uint8Array>();
  private readonly plainSlots: Uint8Array[] = Array.from({ length: 16 }, (_, i) => slotWord(BigInt(i)));

  /** Builds the world of `seed`. */
  constructor(readonly seed: string) {
    const rng = Random.derive(seed, 'universe');
    const address = () => rng.fill(this.cut(20));
    for (let i = 0; i < EOA_COUNT; i++) this.eoas.push(this.entity(address()));
    this.zero = this.entity(this.cut(20));
    this.weth = this.entity(address());
    this.router = this.entity(address());
    for (let i = 0; i < TOKEN_COUNT; i++) this.tokens.push(this.entity(address()));
    for (let i = 0; i < PAIR_COUNT; i++) {
      const token0 = rng.chance(0.6) ? this.weth : this.tokens[this.tokenRank.sample(rng)]!;
      let index1 = this.tokenRank.sample(rng);
      if (this.tokens[index1] === token0) index1 = (index1 + 1) % TOKEN_COUNT;
      this.pairs.push({ entity: this.entity(address()), token0, token1: this.tokens[index1]! });
    }
    for (let i = 0; i < CUSTOM_COUNT; i++) {
      const kinds = rng.int(1, 3);
      const events: CustomEvent[] = [];
      for (let k = 0; k < kinds; k++) events.push(rng.pick(CUSTOM_EVENTS));
      this.customs.push({ entity: this.entity(address()), events });
    }
    for (let i = 0; i < INBOX_COUNT; i++) this.inboxes.push(this.entity(address()));
    for (let i = 0; i < DELEGATE_COUNT; i++) this.delegates.push(this.entity(address()));
    for (const name of BUILDERS)
      this.feeRecipients.push({ address: address(), extraData: new Uint8Array(Buffer.from(name, 'utf8')) });
    for (let i = 0; i < WITHDRAWAL_ADDRESS_COUNT; i++) this.withdrawalAddresses.push(address());
    this.rare = this.entity(rareAddress(seed));
    this.genesisParentHash = genesisParentHash(seed);
  }

  /** `length` zero bytes cut from the current slab (a new one when it is full). */
  private cut(length: number): Uint8Array {
    if (this.slabUsed + length > this.slab.length) {
      this.slab = new Uint8Array(SLAB_BYTES);
      this.slabUsed = 0;
    }
    const out = new Uint8Array(this.slab.buffer, this.slabUsed, length);
    this.slabUsed += length;
    return out;
  }

  private entity(address: Uint8Array): Entity {
    const topic = this.cut(32);
    topic.set(address, 12);
    return { id: this.nextId++, address, topic };
  }

  /**
   * How many contracts the world has (tokens, WETH, router, pairs, long-tail contracts, inboxes, delegates, the rare
   * one).
   */
  contractCount(): number {
    return (
      this.tokens.length + this.pairs.length + this.customs.length + this.inboxes.length + this.delegates.length + 3
    );
  }

  /** A sender account by rank. */
  sender(index: number): Entity {
    return this.eoas[index]!;
  }

  /** A token holder or recipient drawn with Zipf popularity. */
  holder(rng: Random): Entity {
    return this.eoas[this.holders.sample(rng)]!;
  }

  /** A token drawn with Zipf popularity. */
  token(rng: Random): Entity {
    return this.tokens[this.tokenRank.sample(rng)]!;
  }

  /** A pair drawn with Zipf popularity. */
  pair(rng: Random): Pair {
    return this.pairs[this.pairRank.sample(rng)]!;
  }

  /** A long-tail contract drawn with Zipf popularity. */
  custom(rng: Random): CustomContract {
    return this.customs[this.customRank.sample(rng)]!;
  }

  /** A fee recipient drawn with skew (a few builders build most blocks). */
  feeRecipient(rng: Random): FeeRecipient {
    return this.feeRecipients[this.builderRank.sample(rng)]!;
  }

  /** The 32-byte key of plain storage slot `n` (n < 16). */
  plainSlot(n: number): Uint8Array {
    return this.plainSlots[n]!;
  }

  /** The storage slot of `mapping[holder]` for a mapping at plain slot `slot`, memoised per (holder, slot). */
  mappingSlot(holder: Entity, slot: number): Uint8Array {
    const key = holder.id * 16 + slot;
    let out = this.slotCache.get(key);
    if (out === undefined) {
      out = mappingSlotAt(holder.topic, this.plainSlots[slot]!);
      this.slotCache.set(key, out);
    }
    return out;
  }

  /** The storage slot of `allowances[owner][spender]` (a nested mapping at slot 1). */
  allowanceSlot(owner: Entity, spender: Entity): Uint8Array {
    return mappingSlotAt(spender.topic, this.mappingSlot(owner, SLOT.allowances));
  }
}

/** The parent hash of the first block of `seed`'s chain. */
export function genesisParentHash(seed: string): Uint8Array {
  return keccak256(new Uint8Array(Buffer.from(`${seed}\u0000genesis`, 'utf8')));
}

/** The contract that logs in about 1% of blocks (one AnswerUpdated log), for selective-query benchmarks. */
export function rareAddress(seed: string): Uint8Array {
  return keccak256(new Uint8Array(Buffer.from(`${seed}\u0000rare`, 'utf8'))).slice(12);
}
