/**
 * OP-stack deposit transactions (type 0x7e): their consensus encoding, 0x7e ‖ rlp([sourceHash,
 * from, to, mint, value, gas, isSystemTx, data]), whose keccak256 is their hash, and their JSON as
 * op-geth renders it (RPCTransaction without the position fields: nonce and depositReceiptVersion
 * from the receipt, mint when set, isSystemTx only when true, v, r and s zero).
 */
import { bytesToHex, quantityToHex } from './hex.js';
import { keccak256 } from './keccak.js';
import { rlpEncodeAfter, rlpUint } from './rlp.js';
import { OP_DEPOSIT_TX_TYPE } from './types.js';

/** A deposit's own fields. */
export interface Deposit {
  sourceHash: Uint8Array;
  from: Uint8Array;
  /** Null for a contract creation. */
  to: Uint8Array | null;
  /** ETH minted on L2 to `from`; undefined for none. */
  mint?: bigint;
  value: bigint;
  gas: bigint;
  isSystemTx: boolean;
  input: Uint8Array;
}

const TYPE_BYTE = Uint8Array.of(OP_DEPOSIT_TX_TYPE);
const EMPTY = new Uint8Array(0);

/** The consensus encoding of a deposit. */
export function encodeDeposit(d: Deposit): Uint8Array {
  return rlpEncodeAfter(TYPE_BYTE, [
    d.sourceHash,
    d.from,
    d.to ?? EMPTY,
    rlpUint(d.mint ?? 0n),
    rlpUint(d.value),
    rlpUint(d.gas),
    d.isSystemTx ? Uint8Array.of(1) : EMPTY,
    d.input,
  ]);
}

/** A deposit's hash: keccak256 of its encoding. */
export function depositHash(d: Deposit): Uint8Array {
  return keccak256(encodeDeposit(d));
}

/** The deposit's members as op-geth renders the transaction (positions aside): a Transaction's `extra`. */
export function depositMembers(d: Deposit, hash: Uint8Array, nonce: bigint, receiptVersion: bigint): string {
  const out: Record<string, unknown> = {
    from: bytesToHex(d.from),
    gas: quantityToHex(d.gas),
    gasPrice: '0x0',
    hash: bytesToHex(hash),
    input: bytesToHex(d.input),
    nonce: quantityToHex(nonce),
    to: d.to === null ? null : bytesToHex(d.to),
    value: quantityToHex(d.value),
    type: quantityToHex(OP_DEPOSIT_TX_TYPE),
    v: '0x0',
    r: '0x0',
    s: '0x0',
    sourceHash: bytesToHex(d.sourceHash),
  };
  if (d.mint !== undefined) out.mint = quantityToHex(d.mint);
  if (d.isSystemTx) out.isSystemTx = true;
  out.depositReceiptVersion = quantityToHex(receiptVersion);
  return JSON.stringify(out).slice(1, -1);
}
