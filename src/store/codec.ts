/**
 * Value codecs for headers, transactions and whole blocks (orphans, the pending block), as
 * encode/decode pairs. A canonical transaction's record holds no hash: the block's txHashes record
 * holds each hash once, and a reader takes it from there. Members of a node's object kept as given
 * (`extra`: other chains' fields, types not modelled) close a record as UTF-8 JSON text,
 * length-prefixed.
 */
import type {
  AccessListEntry,
  Authorization,
  BlockBundle,
  BlockHeader,
  Transaction,
  Withdrawal,
} from '../chain/types.js';
import { ByteReader, ByteWriter, extraBytes, extraText, wordsShorter } from './bytes.js';
import { decodeLogs, encodeLogs } from './logsRecord.js';
import { decodeReceipts, encodeReceipts } from './receiptsRecord.js';

/** The flags byte of a header record: which fork fields follow. */
export const enum HeaderFlag {
  BaseFee = 1,
  Withdrawals = 2,
  BlobGas = 4,
  BeaconRoot = 8,
  RequestsHash = 16,
  /** The node's members the header does not model (BlockHeader.extra). */
  Extra = 32,
}

/** Encodes a block header. */
export function encodeHeader(h: BlockHeader): Buffer {
  const w = new ByteWriter(1024);
  writeHeader(w, h);
  return w.finish();
}

/** Writes a block header's record (encodeHeader's bytes) to `w`. */
export function writeHeader(w: ByteWriter, h: BlockHeader): void {
  const flags =
    (h.baseFeePerGas !== undefined ? HeaderFlag.BaseFee : 0) |
    (h.withdrawalsRoot !== undefined ? HeaderFlag.Withdrawals : 0) |
    (h.blobGasUsed !== undefined ? HeaderFlag.BlobGas : 0) |
    (h.parentBeaconBlockRoot !== undefined ? HeaderFlag.BeaconRoot : 0) |
    (h.requestsHash !== undefined ? HeaderFlag.RequestsHash : 0) |
    (h.extra !== undefined ? HeaderFlag.Extra : 0);
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
  if (flags & HeaderFlag.Extra) w.bytes(extraBytes(h.extra!));
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
    h.withdrawals = Array.from(
      { length: r.varint() },
      (): Withdrawal => ({
        index: r.bigint(),
        validatorIndex: r.bigint(),
        address: r.fixed(20),
        amount: r.bigint(),
      }),
    );
  }
  if (flags & HeaderFlag.BlobGas) {
    h.blobGasUsed = r.bigint();
    h.excessBlobGas = r.bigint();
  }
  if (flags & HeaderFlag.BeaconRoot) h.parentBeaconBlockRoot = r.fixed(32);
  if (flags & HeaderFlag.RequestsHash) h.requestsHash = r.fixed(32);
  if (flags & HeaderFlag.Extra) h.extra = extraText(r.bytes());
  return h;
}

/** The flags byte of a transaction record: which optional fields follow. */
export const enum TxFlag {
  To = 1,
  ChainId = 2,
  GasPrice = 4,
  DynamicFee = 8,
  AccessList = 16,
  Blob = 32,
  Authorizations = 64,
  /** The node's object of a type not modelled (Transaction.extra). */
  Extra = 128,
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

/**
 * The forms of a transaction record. TxForm.Stored is the txs database's: no hash (the block's
 * txHashes record holds it), the input in the word form when shorter (bytes.ts). The others start
 * with the 32-byte hash: TxForm.Hashed is layout 5's records, TxForm.Bytes (the input as bytes)
 * layout 3's and the transactions of orphans and the pending block, kept as layout 3 wrote them;
 * `ethlogd migrate` rewrites the older layouts' records as TxForm.Stored.
 */
export const enum TxForm {
  Stored = 0,
  Hashed = 1,
  Bytes = 2,
}

/** Encodes a transaction as a record of `form`. */
export function encodeTx(tx: Transaction, form = TxForm.Stored): Buffer {
  const w = new ByteWriter(256 + tx.input.length);
  writeTx(w, tx, form);
  return w.finish();
}

/** Writes a transaction's record of `form` (encodeTx's bytes) to `w`. */
export function writeTx(w: ByteWriter, tx: Transaction, form = TxForm.Stored): void {
  const flags =
    (tx.to !== null ? TxFlag.To : 0) |
    (tx.chainId !== undefined ? TxFlag.ChainId : 0) |
    (tx.gasPrice !== undefined ? TxFlag.GasPrice : 0) |
    (tx.maxFeePerGas !== undefined ? TxFlag.DynamicFee : 0) |
    (tx.accessList !== undefined ? TxFlag.AccessList : 0) |
    (tx.blobVersionedHashes !== undefined ? TxFlag.Blob : 0) |
    (tx.authorizationList !== undefined ? TxFlag.Authorizations : 0) |
    (tx.extra !== undefined ? TxFlag.Extra : 0);
  if (tx.type > 0xff) throw new RangeError(`transaction type ${tx.type} does not fit the record's type byte`);
  if (form !== TxForm.Stored) w.fixed(tx.hash);
  w.u8(tx.type).u8(flags).fixed(tx.from);
  if (tx.to !== null) w.fixed(tx.to);
  w.bigint(tx.nonce).bigint(tx.gas).bigint(tx.value);
  if (form === TxForm.Bytes) w.bytes(tx.input);
  else w.words(tx.input, wordsShorter(tx.input));
  w.bigint(tx.v).bigint(tx.r).bigint(tx.s);
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
    for (const a of tx.authorizationList!)
      w.bigint(a.chainId).fixed(a.address).bigint(a.nonce).u8(a.yParity).bigint(a.r).bigint(a.s);
  }
  if (flags & TxFlag.Extra) w.bytes(extraBytes(tx.extra!));
}

/** Decodes a record of TxForm.Stored, whose transaction has hash `hash` (from the block's txHashes record). */
export function decodeTx(bytes: Uint8Array, hash: Uint8Array): Transaction {
  return readTx(new ByteReader(bytes), hash, TxForm.Stored);
}

/** Decodes a record that starts with its hash (TxForm.Hashed or TxForm.Bytes). */
export function decodeHashedTx(bytes: Uint8Array, form: TxForm.Hashed | TxForm.Bytes): Transaction {
  const r = new ByteReader(bytes);
  return readTx(r, r.fixed(32), form);
}

/** Reads a transaction record of `form` from `r`, past its hash when it has one. */
function readTx(r: ByteReader, hash: Uint8Array, form: TxForm): Transaction {
  const type = r.u8();
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
    input: form === TxForm.Bytes ? r.bytes() : r.words(),
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
    tx.authorizationList = Array.from(
      { length: r.varint() },
      (): Authorization => ({
        chainId: r.bigint(),
        address: r.fixed(20),
        nonce: r.bigint(),
        yParity: r.u8(),
        r: r.bigint(),
        s: r.bigint(),
      }),
    );
  }
  if (flags & TxFlag.Extra) tx.extra = extraText(r.bytes());
  return tx;
}

/**
 * Encodes a whole block (header, transactions, receipts, logs; storage writes are not kept) for orphans and the pending
 * block.
 */
export function encodeBundle(bundle: BlockBundle): Buffer {
  const w = new ByteWriter(64 * 1024);
  w.bytes(encodeHeader(bundle.header)).varint(bundle.transactions.length);
  for (const tx of bundle.transactions) w.bytes(encodeTx(tx, TxForm.Bytes));
  w.bytes(encodeLogs(bundle.logs));
  w.bytes(encodeReceipts(bundle.receipts));
  return w.finish();
}

/** Decodes a whole block written by encodeBundle (its storage list is empty). */
export function decodeBundle(bytes: Uint8Array): BlockBundle {
  const r = new ByteReader(bytes);
  const header = decodeHeader(r.bytes());
  const transactions = Array.from({ length: r.varint() }, () => decodeHashedTx(r.bytes(), TxForm.Bytes));
  const logs = decodeLogs(r.bytes());
  const receipts = decodeReceipts(r.bytes());
  return { header, transactions, receipts, logs, storage: [] };
}
