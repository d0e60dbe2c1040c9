/**
 * The consensus encoding of signed transactions (EIP-2718 envelopes) and their hashes: legacy
 * transactions are rlp([nonce, gasPrice, gas, to, value, data, v, r, s]); typed ones are the type
 * byte followed by the RLP list of their fields (EIP-2930, EIP-1559, EIP-4844, EIP-7702), with
 * the signature as yParity, r, s. The hash is keccak256 of that encoding.
 */
import { keccak256 } from './keccak.js';
import { type RlpItem, rlpEncode, rlpEncodeAfter, rlpUint } from './rlp.js';
import type { AccessListEntry, Authorization, Transaction } from './types.js';

const EMPTY = new Uint8Array(0);
const TYPE_BYTES = [0, 1, 2, 3, 4].map((t) => Uint8Array.of(t));

function need<T>(value: T | undefined, field: string, tx: Transaction): T {
  if (value === undefined) throw new Error(`a type ${tx.type} transaction needs ${field}`);
  return value;
}

function accessListItem(list: AccessListEntry[]): RlpItem {
  return list.map((e) => [e.address, e.storageKeys]);
}

function authorizationItem(list: Authorization[]): RlpItem {
  return list.map((a) => [
    rlpUint(a.chainId),
    a.address,
    rlpUint(a.nonce),
    rlpUint(a.yParity),
    rlpUint(a.r),
    rlpUint(a.s),
  ]);
}

// Each type's fields are written out with the signature in its list, not spread from an array of its own (one array and
// one spread fewer per transaction).

/** The fields of a legacy (type 0) transaction. */
function legacyFields(tx: Transaction): RlpItem[] {
  return [
    rlpUint(tx.nonce),
    rlpUint(need(tx.gasPrice, 'gasPrice', tx)),
    rlpUint(tx.gas),
    tx.to ?? EMPTY,
    rlpUint(tx.value),
    tx.input,
    rlpUint(tx.v),
    rlpUint(tx.r),
    rlpUint(tx.s),
  ];
}

/** The fields of an EIP-2930 (type 1) transaction. */
function accessListFields(tx: Transaction): RlpItem[] {
  return [
    rlpUint(need(tx.chainId, 'chainId', tx)),
    rlpUint(tx.nonce),
    rlpUint(need(tx.gasPrice, 'gasPrice', tx)),
    rlpUint(tx.gas),
    tx.to ?? EMPTY,
    rlpUint(tx.value),
    tx.input,
    accessListItem(need(tx.accessList, 'accessList', tx)),
    rlpUint(tx.v),
    rlpUint(tx.r),
    rlpUint(tx.s),
  ];
}

/**
 * The fields types 2, 3 and 4 start with, in EIP-1559's order; `to` may be empty (a creation) only when `creates`.
 */
function dynamicFeeFields(tx: Transaction, creates: boolean): RlpItem[] {
  return [
    rlpUint(need(tx.chainId, 'chainId', tx)),
    rlpUint(tx.nonce),
    rlpUint(need(tx.maxPriorityFeePerGas, 'maxPriorityFeePerGas', tx)),
    rlpUint(need(tx.maxFeePerGas, 'maxFeePerGas', tx)),
    rlpUint(tx.gas),
    creates ? (tx.to ?? EMPTY) : need(tx.to ?? undefined, 'to', tx),
    rlpUint(tx.value),
    tx.input,
    accessListItem(need(tx.accessList, 'accessList', tx)),
  ];
}

/** The signature's fields, last in every type. */
function signatureFields(tx: Transaction): RlpItem[] {
  return [rlpUint(tx.v), rlpUint(tx.r), rlpUint(tx.s)];
}

/** The fields of an EIP-1559 (type 2) transaction. */
function feeMarketFields(tx: Transaction): RlpItem[] {
  return [...dynamicFeeFields(tx, true), ...signatureFields(tx)];
}

/** The fields of an EIP-4844 (type 3) transaction. */
function blobFields(tx: Transaction): RlpItem[] {
  return [
    ...dynamicFeeFields(tx, false),
    rlpUint(need(tx.maxFeePerBlobGas, 'maxFeePerBlobGas', tx)),
    need(tx.blobVersionedHashes, 'blobVersionedHashes', tx),
    ...signatureFields(tx),
  ];
}

/** The fields of an EIP-7702 (type 4) transaction. */
function setCodeFields(tx: Transaction): RlpItem[] {
  return [
    ...dynamicFeeFields(tx, false),
    authorizationItem(need(tx.authorizationList, 'authorizationList', tx)),
    ...signatureFields(tx),
  ];
}

/** The RLP fields of a transaction, signature included, in consensus order. */
export function transactionFields(tx: Transaction): RlpItem[] {
  switch (tx.type) {
    case 0:
      return legacyFields(tx);
    case 1:
      return accessListFields(tx);
    case 2:
      return feeMarketFields(tx);
    case 3:
      return blobFields(tx);
    case 4:
      return setCodeFields(tx);
    default:
      throw new Error(
        `a type ${tx.type} transaction is kept as its node gave it; its consensus encoding is not modelled`,
      );
  }
}

/** The consensus encoding of a signed transaction: rlp(fields) for legacy, type ‖ rlp(fields) for typed ones. */
export function encodeTransaction(tx: Transaction): Uint8Array {
  if (tx.type === 0) return rlpEncode(transactionFields(tx));
  return rlpEncodeAfter(TYPE_BYTES[tx.type]!, transactionFields(tx));
}

/** The transaction hash: keccak256 of its consensus encoding. */
export function transactionHash(tx: Transaction): Uint8Array {
  return keccak256(encodeTransaction(tx));
}
