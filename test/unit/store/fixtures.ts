/**
 * Hand-built fixtures for the store tests: a tiny seeded PRNG (mulberry32) and builders for
 * headers, transactions, logs and block bundles whose bytes come from it.
 */
import type { BlockBundle, BlockHeader, Log, Receipt, StorageWrite, Transaction } from '#src/chain/types.js';

/** A seeded 32-bit PRNG (mulberry32): the same seed gives the same sequence. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform u32. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return this.u32() % n;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.u32() / 0x100000000 < p;
  }

  /** `length` random bytes. */
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** A random element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A random non-negative bigint of at most `bytes` bytes (sometimes 0). */
  bigint(bytes = 32): bigint {
    const n = this.int(bytes + 1);
    if (n === 0) return 0n;
    return BigInt('0x' + Buffer.from(this.bytes(n)).toString('hex'));
  }
}

/** `length` bytes all equal to `value`. */
export function filled(length: number, value: number): Uint8Array {
  return new Uint8Array(length).fill(value);
}

/** A header for block `number` with child-of-`parentHash` linkage and every fork field absent. */
export function makeHeader(rng: Rng, number: number, parentHash: Uint8Array, txCount = 0): BlockHeader {
  return {
    number,
    hash: rng.bytes(32),
    parentHash,
    sha3Uncles: rng.bytes(32),
    miner: rng.bytes(20),
    stateRoot: rng.bytes(32),
    transactionsRoot: rng.bytes(32),
    receiptsRoot: rng.bytes(32),
    logsBloom: rng.bytes(256),
    difficulty: 0n,
    totalDifficulty: 58750003716598352816469n,
    gasLimit: 30_000_000n,
    gasUsed: 12_345_678n,
    timestamp: 1_700_000_000 + number * 12,
    extraData: rng.bytes(rng.int(33)),
    mixHash: rng.bytes(32),
    nonce: new Uint8Array(8),
    uncles: [],
    size: 1000 + rng.int(100_000),
    txCount,
  };
}

/** An EIP-1559 (type 2) transaction with random hash, addresses and input. */
export function makeTx(rng: Rng): Transaction {
  return {
    type: 2,
    hash: rng.bytes(32),
    from: rng.bytes(20),
    to: rng.bytes(20),
    nonce: BigInt(rng.int(1000)),
    gas: 21000n + BigInt(rng.int(100_000)),
    value: rng.bigint(12),
    input: rng.bytes(rng.int(100)),
    v: BigInt(rng.int(2)),
    r: rng.bigint(32),
    s: rng.bigint(32),
    chainId: 1n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    accessList: [],
  };
}

/**
 * A receipt with random gas and fees: a status (sometimes a pre-Byzantium root), sometimes a created contract or blob
 * gas.
 */
export function makeReceipt(rng: Rng): Receipt {
  const receipt: Receipt = {
    gasUsed: 21000n + BigInt(rng.int(1_000_000)),
    effectiveGasPrice: rng.bigint(6),
    contractAddress: rng.int(4) === 0 ? rng.bytes(20) : null,
  };
  if (rng.int(8) === 0) receipt.root = rng.bytes(32);
  else receipt.status = rng.int(5) === 0 ? 0 : 1;
  if (rng.int(4) === 0) {
    receipt.blobGasUsed = 131072n * BigInt(rng.int(7));
    receipt.blobGasPrice = rng.bigint(4);
  }
  return receipt;
}

/** A log from one of `addresses` with 0-4 topics from `topics` and random data. */
export function makeLog(rng: Rng, txIndex: number, addresses: Uint8Array[], topics: Uint8Array[]): Log {
  const topicCount = rng.int(5);
  return {
    address: rng.pick(addresses),
    topics: Array.from({ length: topicCount }, () => rng.pick(topics)),
    data: rng.bytes(rng.pick([0, 1, 31, 32, 33, 64, 96])),
    txIndex,
  };
}

/** A block bundle for `number` under `parentHash` with `txCount` transactions, a few logs, and `storage`. */
export function makeBundle(
  rng: Rng,
  number: number,
  parentHash: Uint8Array,
  txCount: number,
  storage: StorageWrite[] = [],
): BlockBundle {
  const transactions = Array.from({ length: txCount }, () => makeTx(rng));
  const addresses = [rng.bytes(20), rng.bytes(20)];
  const topics = [rng.bytes(32), rng.bytes(32), rng.bytes(32)];
  const logs: Log[] = [];
  for (let i = 0; i < txCount; i++) {
    const n = rng.int(3);
    for (let j = 0; j < n; j++) logs.push(makeLog(rng, i, addresses, topics));
  }
  return {
    header: makeHeader(rng, number, parentHash, txCount),
    transactions,
    receipts: transactions.map(() => makeReceipt(rng)),
    logs,
    storage,
  };
}
