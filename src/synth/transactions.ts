/**
 * Turns a drafted call into a signed-looking transaction of a given type: fee fields from the
 * block's base fee, access and authorization lists, a random signature (r below the secp256k1
 * order, s in its lower half, as EIP-2 requires), and the hash of the consensus encoding.
 */
import { keccak256 } from '../chain/keccak.js';
import { encodeTransaction } from '../chain/txEncoding.js';
import type { AccessListEntry, Authorization, Transaction, TxType } from '../chain/types.js';
import type { Call } from './activity.js';
import type { Random } from './random.js';
import type { Entity, Universe } from './universe.js';

/** The secp256k1 group order n. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP256K1_N / 2n;

const GWEI = 1_000_000_000n;
const PRIORITY_FEES = [
  0n,
  1_000_000n,
  10_000_000n,
  50_000_000n,
  100_000_000n,
  100_000_000n,
  500_000_000n,
  GWEI,
  GWEI,
  2n * GWEI,
  3n * GWEI,
];
const MAX_FEE_MULTIPLIERS = [125n, 150n, 200n, 200n, 300n];

/** A transaction before it is signed and hashed. */
export interface Draft {
  type: TxType;
  /** Type 0 only: whether it carries an EIP-155 chain id. */
  protected: boolean;
  sender: Entity;
  nonce: bigint;
  call: Call;
  blobs: number;
}

/** Block-level inputs of every transaction's fields. */
export interface TxContext {
  rng: Random;
  u: Universe;
  chainId: bigint;
  baseFee: bigint;
  blobBaseFee: bigint;
}

function scalar(rng: Random, bits: number, below: bigint): bigint {
  for (;;) {
    const v = rng.bigBits(bits);
    if (v > 0n && v < below) return v;
  }
}

function accessList(ctx: TxContext, d: Draft, often: boolean): AccessListEntry[] {
  const { rng, u } = ctx;
  if (!rng.chance(often ? 0.8 : 0.1)) return [];
  const entries: AccessListEntry[] = [];
  const n = rng.int(1, 3);
  for (let i = 0; i < n; i++) {
    const address = i === 0 && d.call.to !== null ? d.call.to : u.token(rng).address;
    const storageKeys: Uint8Array[] = [];
    const k = rng.int(0, 3);
    for (let j = 0; j < k; j++)
      storageKeys.push(rng.chance(0.5) ? u.mappingSlot(d.sender, 0) : u.plainSlot(rng.int(0, 9)));
    entries.push({ address, storageKeys });
  }
  return entries;
}

function authorizations(ctx: TxContext, d: Draft): Authorization[] {
  const { rng, u } = ctx;
  const n = rng.int(1, 2);
  const list: Authorization[] = [];
  for (let i = 0; i < n; i++) {
    list.push({
      chainId: rng.chance(0.1) ? 0n : ctx.chainId,
      address: rng.pick(u.delegates).address,
      nonce: d.nonce + 1n + BigInt(i),
      yParity: rng.int(0, 1),
      r: scalar(rng, 256, SECP256K1_N),
      s: scalar(rng, 255, HALF_N + 1n),
    });
  }
  return list;
}

function versionedHashes(rng: Random, blobs: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < blobs; i++) {
    const h = rng.bytes(32);
    h[0] = 0x01;
    out.push(h);
  }
  return out;
}

// Each type's transaction is a literal object, not a spread of the shared fields: spreading cost more than the rest of
// building a transaction. The shared fields are read from the draft in each (from, to, value, input, nonce, chainId);
// the draws made for every type come in as parameters, drawn in the order they always were (fees, parity, r, s).

/** A legacy (type 0) transaction of `d`, with EIP-155 replay protection when the draft asks for it. */
function legacyTransaction(
  ctx: TxContext,
  d: Draft,
  gas: bigint,
  priority: bigint,
  parity: number,
  r: bigint,
  s: bigint,
): Transaction {
  const hash = new Uint8Array(32);
  const from = d.sender.address;
  const { to, value, input } = d.call;
  const { nonce } = d;
  const { chainId } = ctx;
  return d.protected
    ? {
        type: 0,
        hash,
        from,
        to,
        nonce,
        gas,
        value,
        input,
        r,
        s,
        chainId,
        gasPrice: ctx.baseFee + priority,
        v: chainId * 2n + 35n + BigInt(parity),
      }
    : {
        type: 0,
        hash,
        from,
        to,
        nonce,
        gas,
        value,
        input,
        r,
        s,
        gasPrice: ctx.baseFee + priority,
        v: 27n + BigInt(parity),
      };
}

/** An EIP-2930 (type 1) transaction of `d`. */
function accessListTransaction(
  ctx: TxContext,
  d: Draft,
  gas: bigint,
  priority: bigint,
  parity: number,
  r: bigint,
  s: bigint,
): Transaction {
  const { to, value, input } = d.call;
  return {
    type: 1,
    hash: new Uint8Array(32),
    from: d.sender.address,
    to,
    nonce: d.nonce,
    gas,
    value,
    input,
    r,
    s,
    chainId: ctx.chainId,
    gasPrice: ctx.baseFee + priority,
    accessList: accessList(ctx, d, true),
    v: BigInt(parity),
  };
}

/**
 * The fields a fee-market transaction (type 2, 3 or 4) of `d` shares, in the order they are drawn and listed: its
 * access list drawn here, after whatever the caller drew before.
 */
function feeMarketFields(
  ctx: TxContext,
  d: Draft,
  type: 2 | 3 | 4,
  gas: bigint,
  priority: bigint,
  maxFee: bigint,
  r: bigint,
  s: bigint,
): Omit<Transaction, 'v'> {
  const { to, value, input } = d.call;
  return {
    type,
    hash: new Uint8Array(32),
    from: d.sender.address,
    to,
    nonce: d.nonce,
    gas,
    value,
    input,
    r,
    s,
    chainId: ctx.chainId,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: priority,
    accessList: accessList(ctx, d, false),
  };
}

/** Builds the transaction of `d` with gas limit `gas`, computes its hash and returns it with its encoding. */
export function buildTransaction(ctx: TxContext, d: Draft, gas: bigint): { tx: Transaction; encoded: Uint8Array } {
  const { rng } = ctx;
  const priority = rng.pick(PRIORITY_FEES);
  const maxFee = (ctx.baseFee * rng.pick(MAX_FEE_MULTIPLIERS)) / 100n + priority;
  const parity = rng.int(0, 1);
  const r = scalar(rng, 256, SECP256K1_N);
  const s = scalar(rng, 255, HALF_N + 1n);
  let tx: Transaction;
  switch (d.type) {
    case 0:
      tx = legacyTransaction(ctx, d, gas, priority, parity, r, s);
      break;
    case 1:
      tx = accessListTransaction(ctx, d, gas, priority, parity, r, s);
      break;
    case 2:
      tx = { ...feeMarketFields(ctx, d, 2, gas, priority, maxFee, r, s), v: BigInt(parity) };
      break;
    case 3: {
      // EIP-4844: the blob fee drawn before the access list, the versioned hashes after (the chain's version pins it).
      const maxFeePerBlobGas = ctx.blobBaseFee * 2n + BigInt(rng.int(1, 5)) * GWEI;
      const fields = feeMarketFields(ctx, d, 3, gas, priority, maxFee, r, s);
      tx = { ...fields, maxFeePerBlobGas, blobVersionedHashes: versionedHashes(rng, d.blobs), v: BigInt(parity) };
      break;
    }
    case 4: {
      // EIP-7702: the authorizations are drawn after the access list.
      const fields = feeMarketFields(ctx, d, 4, gas, priority, maxFee, r, s);
      tx = { ...fields, authorizationList: authorizations(ctx, d), v: BigInt(parity) };
      break;
    }
  }
  const encoded = encodeTransaction(tx);
  tx.hash = keccak256(encoded);
  return { tx, encoded };
}
