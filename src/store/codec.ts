/**
 * Value codecs for headers, transactions and whole blocks (orphans, the pending block), as
 * encode/decode pairs. A transaction's record starts with its 32-byte hash so readers that only
 * need the hash can slice it without decoding.
 */
import type { AccessListEntry, Authorization, BlockBundle, BlockHeader, Transaction, TxType, Withdrawal } from '../chain/types.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { decodeLogs, encodeLogs } from './logsRecord.js';
import { decodeReceipts, encodeReceipts } from './receiptsRecord.js';

const enum HeaderFlag {
  BaseFee = 1,
  Withdrawals = 2,
  BlobGas = 4,
  BeaconRoot = 8,
  RequestsHash = 16,
}

/** Encodes a block header. */
export function encodeHeader(h: BlockHeader): Buffer {
  const w = new ByteWriter(1024);
  const flags =
    (h.baseFeePerGas !== undefined ? HeaderFlag.BaseFee : 0) |
    (h.withdrawalsRoot !== undefined ? HeaderFlag.Withdrawals : 0) |
    (h.blobGasUsed !== undefined ? HeaderFlag.BlobGas : 0) |
    (h.parentBeaconBlockRoot !== undefined ? HeaderFlag.BeaconRoot : 0) |
    (h.requestsHash !== undefined ? HeaderFlag.RequestsHash : 0);
  w.u8(flags).varint(h.number).fixed(h.hash).fixed(h.parentHash).fixed(h.sha3Uncles).fixed(h.miner);
  w.fixed(h.stateRoot).fixed(h.transactionsRoot).fixed(h.receiptsRoot).fixed(h.logsBloom);
  w.bigint(h.difficulty).bigint(h.totalDifficulty).bigint(h.gasLimit).bigint(h.gasUsed);
  w.varint(h.timestamp).bytes(h.extraData).fixed(h.mixHash).fixed(h.nonce);
  w.varint(h.uncles.length);
  for (const u of h.uncles) w.fixed(u);
  w.varint(h.size).varint(h.txCount);
  if (flags & HeaderFlag.BaseFee) w.bigint(h.baseFeePerGas!);
  if (flags & HeaderFlag.Withdrawals) {
    w.fixed(h.withdrawalsRoot!).varint(h.withdrawals!.length);
    for (const wd of h.withdrawals!) w.bigint(wd.index).bigint(wd.validatorIndex).fixed(wd.address).bigint(wd.amount);
  }
  if (flags & HeaderFlag.BlobGas) w.bigint(h.blobGasUsed!).bigint(h.excessBlobGas!);
  if (flags & HeaderFlag.BeaconRoot) w.fixed(h.parentBeaconBlockRoot!);
  if (flags & HeaderFlag.RequestsHash) w.fixed(h.requestsHash!);
  return w.finish();
}

/** Decodes a block header. */
export function decodeHeader(bytes: Uint8Array): BlockHeader {
  const r = new ByteReader(bytes);
  const flags = r.u8();
  const h: BlockHeader = {
    number: r.varint(),
    hash: r.fixed(32),
    parentHash: r.fixed(32),
    sha3Uncles: r.fixed(32),
    miner: r.fixed(20),
    stateRoot: r.fixed(32),
    transactionsRoot: r.fixed(32),
    receiptsRoot: r.fixed(32),
    logsBloom: r.fixed(256),
    difficulty: r.bigint(),
    totalDifficulty: r.bigint(),
    gasLimit: r.bigint(),
    gasUsed: r.bigint(),
    timestamp: r.varint(),
    extraData: r.bytes(),
    mixHash: r.fixed(32),
    nonce: r.fixed(8),
    uncles: Array.from({ length: r.varint() }, () => r.fixed(32)),
    size: r.varint(),
    txCount: r.varint(),
  };
  if (flags & HeaderFlag.BaseFee) h.baseFeePerGas = r.bigint();
  if (flags & HeaderFlag.Withdrawals) {
    h.withdrawalsRoot = r.fixed(32);
    h.withdrawals = Array.from({ length: r.varint() }, (): Withdrawal => ({
      index: r.bigint(),
      validatorIndex: r.bigint(),
      address: r.fixed(20),
      amount: r.bigint(),
    }));
  }
  if (flags & HeaderFlag.BlobGas) {
    h.blobGasUsed = r.bigint();
    h.excessBlobGas = r.bigint();
  }
  if (flags & HeaderFlag.BeaconRoot) h.parentBeaconBlockRoot = r.fixed(32);
  if (flags & HeaderFlag.RequestsHash) h.requestsHash = r.fixed(32);
  return h;
}

const enum TxFlag {
  To = 1,
  ChainId = 2,
  GasPrice = 4,
  DynamicFee = 8,
  AccessList = 16,
  Blob = 32,
  Authorizations = 64,
}

function writeAccessList(w: ByteWriter, list: AccessListEntry[]): void {
  w.varint(list.length);
  for (const entry of list) {
    w.fixed(entry.address).varint(entry.storageKeys.length);
    for (const key of entry.storageKeys) w.fixed(key);
  }
}

function readAccessList(r: ByteReader): AccessListEntry[] {
  return Array.from({ length: r.varint() }, () => ({
    address: r.fixed(20),
    storageKeys: Array.from({ length: r.varint() }, () => r.fixed(32)),
  }));
}

/** Encodes a transaction; the record starts with the 32-byte hash. */
export function encodeTx(tx: Transaction): Buffer {
  const w = new ByteWriter(256 + tx.input.length);
  const flags =
    (tx.to !== null ? TxFlag.To : 0) |
    (tx.chainId !== undefined ? TxFlag.ChainId : 0) |
    (tx.gasPrice !== undefined ? TxFlag.GasPrice : 0) |
    (tx.maxFeePerGas !== undefined ? TxFlag.DynamicFee : 0) |
    (tx.accessList !== undefined ? TxFlag.AccessList : 0) |
    (tx.blobVersionedHashes !== undefined ? TxFlag.Blob : 0) |
    (tx.authorizationList !== undefined ? TxFlag.Authorizations : 0);
  w.fixed(tx.hash).u8(tx.type).u8(flags).fixed(tx.from);
  if (tx.to !== null) w.fixed(tx.to);
  w.bigint(tx.nonce).bigint(tx.gas).bigint(tx.value).bytes(tx.input).bigint(tx.v).bigint(tx.r).bigint(tx.s);
  if (flags & TxFlag.ChainId) w.bigint(tx.chainId!);
  if (flags & TxFlag.GasPrice) w.bigint(tx.gasPrice!);
  if (flags & TxFlag.DynamicFee) w.bigint(tx.maxFeePerGas!).bigint(tx.maxPriorityFeePerGas!);
  if (flags & TxFlag.AccessList) writeAccessList(w, tx.accessList!);
  if (flags & TxFlag.Blob) {
    w.bigint(tx.maxFeePerBlobGas!).varint(tx.blobVersionedHashes!.length);
    for (const h of tx.blobVersionedHashes!) w.fixed(h);
  }
  if (flags & TxFlag.Authorizations) {
    w.varint(tx.authorizationList!.length);
    for (const a of tx.authorizationList!) w.bigint(a.chainId).fixed(a.address).bigint(a.nonce).u8(a.yParity).bigint(a.r).bigint(a.s);
  }
  return w.finish();
}

/** Decodes a transaction record. */
export function decodeTx(bytes: Uint8Array): Transaction {
  const r = new ByteReader(bytes);
  const hash = r.fixed(32);
  const type = r.u8() as TxType;
  const flags = r.u8();
  const from = r.fixed(20);
  const to = flags & TxFlag.To ? r.fixed(20) : null;
  const tx: Transaction = {
    type,
    hash,
    from,
    to,
    nonce: r.bigint(),
    gas: r.bigint(),
    value: r.bigint(),
    input: r.bytes(),
    v: r.bigint(),
    r: r.bigint(),
    s: r.bigint(),
  };
  if (flags & TxFlag.ChainId) tx.chainId = r.bigint();
  if (flags & TxFlag.GasPrice) tx.gasPrice = r.bigint();
  if (flags & TxFlag.DynamicFee) {
    tx.maxFeePerGas = r.bigint();
    tx.maxPriorityFeePerGas = r.bigint();
  }
  if (flags & TxFlag.AccessList) tx.accessList = readAccessList(r);
  if (flags & TxFlag.Blob) {
    tx.maxFeePerBlobGas = r.bigint();
    tx.blobVersionedHashes = Array.from({ length: r.varint() }, () => r.fixed(32));
  }
  if (flags & TxFlag.Authorizations) {
    tx.authorizationList = Array.from({ length: r.varint() }, (): Authorization => ({
      chainId: r.bigint(),
      address: r.fixed(20),
      nonce: r.bigint(),
      yParity: r.u8(),
      r: r.bigint(),
      s: r.bigint(),
    }));
  }
  return tx;
}

/** Encodes a whole block (header, transactions, receipts, logs; storage writes are not kept) for orphans and the pending block. */
export function encodeBundle(bundle: BlockBundle): Buffer {
  const w = new ByteWriter(64 * 1024);
  w.bytes(encodeHeader(bundle.header)).varint(bundle.transactions.length);
  for (const tx of bundle.transactions) w.bytes(encodeTx(tx));
  w.bytes(encodeLogs(bundle.logs));
  w.bytes(encodeReceipts(bundle.receipts));
  return w.finish();
}

/** Decodes a whole block written by encodeBundle (its storage list is empty). */
export function decodeBundle(bytes: Uint8Array): BlockBundle {
  const r = new ByteReader(bytes);
  const header = decodeHeader(r.bytes());
  const transactions = Array.from({ length: r.varint() }, () => decodeTx(r.bytes()));
  const logs = decodeLogs(r.bytes());
  const receipts = decodeReceipts(r.bytes());
  return { header, transactions, receipts, logs, storage: [] };
}

/** Offset of logsBloom in a header record: flags, varint number, 3 hashes, miner, 3 roots precede it. */
const BLOOM_OFFSET_AFTER_NUMBER = 32 * 3 + 20 + 32 * 3;

/** A view of the 256-byte logsBloom inside an encoded header, without decoding the rest. */
export function headerLogsBloom(raw: Uint8Array): Uint8Array {
  let pos = 1;
  while (raw[pos]! >= 0x80) pos++;
  const start = pos + 1 + BLOOM_OFFSET_AFTER_NUMBER;
  return raw.subarray(start, start + 256);
}

/** Offset of difficulty (the first quantity) after the number in a header record: 3 hashes, miner, 3 roots and logsBloom precede it. */
const DIFFICULTY_OFFSET_AFTER_NUMBER = BLOOM_OFFSET_AFTER_NUMBER + 256;

/** A view of the 32-byte block hash inside an encoded header, without decoding the rest. */
export function headerHash(raw: Uint8Array): Uint8Array {
  const start = readVarintEnd(raw, 1);
  return raw.subarray(start, start + 32);
}

/** The timestamp of an encoded header, skipping the fields before it without decoding them. */
export function headerTimestamp(raw: Uint8Array): number {
  let p = readVarintEnd(raw, 1) + DIFFICULTY_OFFSET_AFTER_NUMBER;
  for (let i = 0; i < 4; i++) p += 1 + raw[p]!;
  return readVarint(raw, p);
}

/** Where the varint at `raw[pos]` ends. */
function readVarintEnd(raw: Uint8Array, pos: number): number {
  while (raw[pos]! >= 0x80) pos++;
  return pos + 1;
}

/** Where the varint last read by readVarint ends. */
let varintEnd = 0;

/** Reads the LEB128 varint at `raw[pos]`; its end is left in `varintEnd`. */
function readVarint(raw: Uint8Array, pos: number): number {
  let result = 0;
  let scale = 1;
  for (;;) {
    const byte = raw[pos++]!;
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varintEnd = pos;
      return result;
    }
    scale *= 0x80;
  }
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
  out.requestsHash = flags & HeaderFlag.RequestsHash ? p : -1;
  return out;
}

/** Offset of the 20-byte sender in a transaction record (after the hash, type and flags). */
export const TX_FROM_OFFSET = 34;

/**
 * Where each field of an encoded transaction sits, filled in place by readTxOffsets. The hash is at
 * 0, the sender at TX_FROM_OFFSET. Quantities are offsets of their length byte (then minimal
 * big-endian bytes); `type` and the counts are values. A field the transaction lacks is -1.
 */
export class TxOffsets {
  type = 0;
  /** Offset of the 20-byte recipient, -1 for a contract creation. */
  to = -1;
  nonce = 0;
  gas = 0;
  value = 0;
  /** Offset of the input's bytes. */
  input = 0;
  inputLength = 0;
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
  /** Offset of the first tuple: quantity chainId, 20-byte address, quantity nonce, a yParity byte, quantities r and s. */
  authorizations = -1;
  authorizationCount = 0;
}

/** Fills `out` with the field offsets of the transaction record `raw` (written by encodeTx), decoding nothing else. */
export function readTxOffsets(raw: Uint8Array, out: TxOffsets): TxOffsets {
  out.type = raw[32]!;
  const flags = raw[33]!;
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
  out.inputLength = readVarint(raw, p);
  out.input = p = varintEnd;
  out.v = p += out.inputLength;
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
    out.authorizations = varintEnd;
  }
  return out;
}
