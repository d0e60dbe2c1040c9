/**
 * Views into stored records without decoding them: where each field of a header or transaction
 * record sits (for the renderers that write JSON straight from the bytes), and the few fields
 * scans read alone (the stored block hash, logsBloom, timestamp). The layout is codec.ts's.
 */

import { readVarint, skipVarint, varintEnd } from '../chain/varint.js';
import { wordsEnd } from './bytes.js';
import { HeaderFlag, TxFlag } from './codec.js';

/** Offset of logsBloom in a header record: flags, varint number, 3 hashes, miner, 3 roots precede it. */
const BLOOM_OFFSET_AFTER_NUMBER = 32 * 3 + 20 + 32 * 3;

/** A view of the 256-byte logsBloom inside an encoded header, without decoding the rest. */
export function headerLogsBloom(raw: Uint8Array): Uint8Array {
  let pos = 1;
  while (raw[pos]! >= 0x80) pos++;
  const start = pos + 1 + BLOOM_OFFSET_AFTER_NUMBER;
  return raw.subarray(start, start + 256);
}

/**
 * Offset of difficulty (the first quantity) after the number in a header record: 3 hashes, miner, 3 roots and logsBloom
 * precede it.
 */
const DIFFICULTY_OFFSET_AFTER_NUMBER = BLOOM_OFFSET_AFTER_NUMBER + 256;

/** The 32-byte block hash stored in an encoded header (a view, nothing decoded or computed). */
export function storedBlockHash(raw: Uint8Array): Uint8Array {
  const start = skipVarint(raw, 1);
  return raw.subarray(start, start + 32);
}

/** The 32-byte parent hash stored in an encoded header (a view, as storedBlockHash). */
export function storedParentHash(raw: Uint8Array): Uint8Array {
  const start = skipVarint(raw, 1) + 32;
  return raw.subarray(start, start + 32);
}

/** The timestamp of an encoded header, skipping the fields before it without decoding them. */
export function headerTimestamp(raw: Uint8Array): number {
  let p = skipVarint(raw, 1) + DIFFICULTY_OFFSET_AFTER_NUMBER;
  for (let i = 0; i < 4; i++) p += 1 + raw[p]!;
  return readVarint(raw, p);
}

/**
 * Where each field of an encoded header sits, filled in place by readHeaderOffsets so renderers
 * read fields straight from the record. Fixed-width fields are offsets of their bytes; quantities
 * are offsets of their length byte (then minimal big-endian bytes); `number`, `timestamp`,
 * `uncleCount`, `size`, `txCount` and `withdrawalCount` are values. A field its fork lacks is -1.
 */
export class HeaderOffsets {
  number = 0;
  hash = 0;
  parentHash = 0;
  sha3Uncles = 0;
  miner = 0;
  stateRoot = 0;
  transactionsRoot = 0;
  receiptsRoot = 0;
  logsBloom = 0;
  difficulty = 0;
  totalDifficulty = 0;
  gasLimit = 0;
  gasUsed = 0;
  timestamp = 0;
  /** Offset of extraData's bytes. */
  extraData = 0;
  extraDataLength = 0;
  mixHash = 0;
  nonce = 0;
  /** Offset of the first uncle hash (32 bytes each). */
  uncles = 0;
  uncleCount = 0;
  size = 0;
  txCount = 0;
  baseFeePerGas = -1;
  withdrawalsRoot = -1;
  /** Offset of the first withdrawal: quantities index and validatorIndex, a 20-byte address, quantity amount. */
  withdrawals = -1;
  withdrawalCount = 0;
  blobGasUsed = -1;
  excessBlobGas = -1;
  parentBeaconBlockRoot = -1;
  requestsHash = -1;
  /** Offset of the kept members' UTF-8 text (BlockHeader.extra), -1 when the header has none. */
  extra = -1;
  extraLength = 0;
}

/** Fills `out` with the field offsets of the header record `raw` (written by encodeHeader), decoding nothing else. */
export function readHeaderOffsets(raw: Uint8Array, out: HeaderOffsets): HeaderOffsets {
  const flags = raw[0]!;
  out.number = readVarint(raw, 1);
  let p = varintEnd;
  out.hash = p;
  out.parentHash = p += 32;
  out.sha3Uncles = p += 32;
  out.miner = p += 32;
  out.stateRoot = p += 20;
  out.transactionsRoot = p += 32;
  out.receiptsRoot = p += 32;
  out.logsBloom = p += 32;
  out.difficulty = p += 256;
  out.totalDifficulty = p += 1 + raw[p]!;
  out.gasLimit = p += 1 + raw[p]!;
  out.gasUsed = p += 1 + raw[p]!;
  p += 1 + raw[p]!;
  out.timestamp = readVarint(raw, p);
  out.extraDataLength = readVarint(raw, varintEnd);
  out.extraData = p = varintEnd;
  out.mixHash = p += out.extraDataLength;
  out.nonce = p += 32;
  out.uncleCount = readVarint(raw, p + 8);
  out.uncles = p = varintEnd;
  out.size = readVarint(raw, p + 32 * out.uncleCount);
  out.txCount = readVarint(raw, varintEnd);
  p = varintEnd;
  out.baseFeePerGas = -1;
  if (flags & HeaderFlag.BaseFee) {
    out.baseFeePerGas = p;
    p += 1 + raw[p]!;
  }
  out.withdrawalsRoot = out.withdrawals = -1;
  out.withdrawalCount = 0;
  if (flags & HeaderFlag.Withdrawals) {
    out.withdrawalsRoot = p;
    out.withdrawalCount = readVarint(raw, p + 32);
    out.withdrawals = p = varintEnd;
    for (let i = 0; i < out.withdrawalCount; i++) {
      p += 1 + raw[p]!;
      p += 1 + raw[p]! + 20;
      p += 1 + raw[p]!;
    }
  }
  out.blobGasUsed = out.excessBlobGas = -1;
  if (flags & HeaderFlag.BlobGas) {
    out.blobGasUsed = p;
    p += 1 + raw[p]!;
    out.excessBlobGas = p;
    p += 1 + raw[p]!;
  }
  out.parentBeaconBlockRoot = -1;
  if (flags & HeaderFlag.BeaconRoot) {
    out.parentBeaconBlockRoot = p;
    p += 32;
  }
  out.requestsHash = -1;
  if (flags & HeaderFlag.RequestsHash) {
    out.requestsHash = p;
    p += 32;
  }
  out.extra = -1;
  out.extraLength = 0;
  if (flags & HeaderFlag.Extra) {
    out.extraLength = readVarint(raw, p);
    out.extra = varintEnd;
  }
  return out;
}

/** Offset of the 20-byte sender in a transaction record (after the type and flags). */
export const TX_FROM_OFFSET = 2;

/**
 * Where each field of a stored transaction record (TxForm.Stored: no hash) sits, filled in place by
 * readTxOffsets. The type is at 0, the flags at 1, the sender at TX_FROM_OFFSET. Quantities are
 * offsets of their length byte (then minimal big-endian bytes); `type` and the counts are values. A
 * field the transaction lacks is -1.
 */
export class TxOffsets {
  type = 0;
  /** Offset of the 20-byte recipient, -1 for a contract creation. */
  to = -1;
  nonce = 0;
  gas = 0;
  value = 0;
  /** Offset of the input's stored bytes, its length (unpacked), and whether it is in the word form (bytes.ts). */
  input = 0;
  inputLength = 0;
  inputWords = false;
  v = 0;
  r = 0;
  s = 0;
  chainId = -1;
  gasPrice = -1;
  maxFeePerGas = -1;
  maxPriorityFeePerGas = -1;
  /** Offset of the first entry: a 20-byte address, a varint key count, then 32-byte keys. */
  accessList = -1;
  accessListCount = 0;
  maxFeePerBlobGas = -1;
  /** Offset of the first 32-byte blob versioned hash. */
  blobHashes = -1;
  blobHashCount = 0;
  /**
   * Offset of the first tuple: quantity chainId, 20-byte address, quantity nonce, a yParity byte, quantities r and s.
   */
  authorizations = -1;
  authorizationCount = 0;
  /** Offset of the kept members' UTF-8 text (Transaction.extra: a type not modelled), -1 when none. */
  extra = -1;
  extraLength = 0;
}

/** Fills `out` with the field offsets of the stored transaction record `raw` (encodeTx's), decoding nothing else. */
export function readTxOffsets(raw: Uint8Array, out: TxOffsets): TxOffsets {
  out.type = raw[0]!;
  const flags = raw[1]!;
  let p = TX_FROM_OFFSET + 20;
  out.to = -1;
  if (flags & TxFlag.To) {
    out.to = p;
    p += 20;
  }
  out.nonce = p;
  out.gas = p += 1 + raw[p]!;
  out.value = p += 1 + raw[p]!;
  p += 1 + raw[p]!;
  const inputTag = readVarint(raw, p);
  out.inputLength = Math.floor(inputTag / 2);
  out.inputWords = inputTag % 2 === 1;
  out.input = p = varintEnd;
  out.v = p = out.inputWords ? wordsEnd(raw, p, out.inputLength) : p + out.inputLength;
  out.r = p += 1 + raw[p]!;
  out.s = p += 1 + raw[p]!;
  p += 1 + raw[p]!;
  out.chainId = out.gasPrice = out.maxFeePerGas = out.maxPriorityFeePerGas = -1;
  if (flags & TxFlag.ChainId) {
    out.chainId = p;
    p += 1 + raw[p]!;
  }
  if (flags & TxFlag.GasPrice) {
    out.gasPrice = p;
    p += 1 + raw[p]!;
  }
  if (flags & TxFlag.DynamicFee) {
    out.maxFeePerGas = p;
    p += 1 + raw[p]!;
    out.maxPriorityFeePerGas = p;
    p += 1 + raw[p]!;
  }
  out.accessList = -1;
  out.accessListCount = 0;
  if (flags & TxFlag.AccessList) {
    out.accessListCount = readVarint(raw, p);
    out.accessList = p = varintEnd;
    for (let i = 0; i < out.accessListCount; i++) {
      const keys = readVarint(raw, p + 20);
      p = varintEnd + 32 * keys;
    }
  }
  out.maxFeePerBlobGas = out.blobHashes = -1;
  out.blobHashCount = 0;
  if (flags & TxFlag.Blob) {
    out.maxFeePerBlobGas = p;
    p += 1 + raw[p]!;
    out.blobHashCount = readVarint(raw, p);
    out.blobHashes = p = varintEnd;
    p += 32 * out.blobHashCount;
  }
  out.authorizations = -1;
  out.authorizationCount = 0;
  if (flags & TxFlag.Authorizations) {
    out.authorizationCount = readVarint(raw, p);
    out.authorizations = p = varintEnd;
    // Tuples are skipped only to reach kept members after them (never both on one transaction today).
    if (flags & TxFlag.Extra) {
      for (let i = 0; i < out.authorizationCount; i++) {
        p += 1 + raw[p]! + 20;
        p += 1 + raw[p]! + 1;
        p += 1 + raw[p]!;
        p += 1 + raw[p]!;
      }
    }
  }
  out.extra = -1;
  out.extraLength = 0;
  if (flags & TxFlag.Extra) {
    out.extraLength = readVarint(raw, p);
    out.extra = varintEnd;
  }
  return out;
}
