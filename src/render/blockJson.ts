/**
 * Renders a canonical block as JSON text straight from its header record and its transaction
 * records (store/codec.ts): the same bytes as JSON.stringify(formatBlock(...)) (format.ts, the
 * reference; test/integration/render.test.ts holds them equal), keys in the order Go's sorted map gives them,
 * with transaction hashes or full transactions, then the node's members the header does not model
 * (BlockHeader.extra) as stored.
 */

import { ascii } from '../chain/asciiHex.js';
import { HeaderOffsets, readHeaderOffsets } from '../store/recordViews.js';
import { dataField, hashList, numberField, quantityField, skipQuantity, writeQuantity } from './fields.js';
import type { JsonWriter } from './jsonWriter.js';
import { TxBlock, writeTxJson } from './txJson.js';

const BASE_FEE = ascii(',"baseFeePerGas":"0x');
const BLOB_GAS_USED = ascii(',"blobGasUsed":"0x');
const DIFFICULTY = ascii(',"difficulty":"0x');
const EXCESS_BLOB_GAS = ascii(',"excessBlobGas":"0x');
const EXTRA_DATA = ascii(',"extraData":"0x');
const GAS_LIMIT = ascii(',"gasLimit":"0x');
const GAS_USED = ascii(',"gasUsed":"0x');
const HASH = ascii(',"hash":"0x');
const LOGS_BLOOM = ascii(',"logsBloom":"0x');
const MINER = ascii(',"miner":"0x');
const MIX_HASH = ascii(',"mixHash":"0x');
const NONCE = ascii(',"nonce":"0x');
const NUMBER = ascii(',"number":"0x');
const PARENT_BEACON_ROOT = ascii(',"parentBeaconBlockRoot":"0x');
const PARENT_HASH = ascii(',"parentHash":"0x');
const RECEIPTS_ROOT = ascii(',"receiptsRoot":"0x');
const REQUESTS_HASH = ascii(',"requestsHash":"0x');
const SHA3_UNCLES = ascii(',"sha3Uncles":"0x');
const SIZE = ascii(',"size":"0x');
const STATE_ROOT = ascii(',"stateRoot":"0x');
const TIMESTAMP = ascii(',"timestamp":"0x');
const TOTAL_DIFFICULTY = ascii(',"totalDifficulty":"0x');
const TRANSACTIONS = ascii(',"transactions":[');
const TRANSACTIONS_ROOT = ascii(',"transactionsRoot":"0x');
const UNCLES = ascii(',"uncles":[');
const WITHDRAWALS = ascii(',"withdrawals":[');
const WITHDRAWAL_INDEX = ascii('{"index":"0x');
const WITHDRAWAL_VALIDATOR = ascii('","validatorIndex":"0x');
const WITHDRAWAL_ADDRESS = ascii('","address":"0x');
const WITHDRAWAL_AMOUNT = ascii('","amount":"0x');
const WITHDRAWAL_CLOSE = ascii('"}');
const WITHDRAWALS_ROOT = ascii(',"withdrawalsRoot":"0x');
const QUOTE_0X = ascii('"0x');
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Reads the block being rendered's transactions: `hashes` its txHashes record (undefined for none), `record` the
 * record of transaction `index` (undefined when not stored); each valid until the next read.
 */
export interface BlockTxSource {
  hashes(): Uint8Array | undefined;
  record(index: number): Uint8Array | undefined;
}

const offsets = new HeaderOffsets();
const txBlock = new TxBlock();
let header = new Uint8Array(4096);
/** The block's transaction hashes, copied out of the read buffer the transaction records are read into. */
let hashCopy = new Uint8Array(32 * 1024);

/** Writes the block's withdrawals array (the header has them). */
function writeWithdrawals(w: JsonWriter, raw: Uint8Array, h: HeaderOffsets): void {
  w.bytes(WITHDRAWALS);
  let at = h.withdrawals;
  for (let i = 0; i < h.withdrawalCount; i++) {
    if (i > 0) w.byte(COMMA);
    w.bytes(WITHDRAWAL_INDEX);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(WITHDRAWAL_VALIDATOR);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(WITHDRAWAL_ADDRESS);
    w.hex(raw, at, at + 20);
    at += 20;
    w.bytes(WITHDRAWAL_AMOUNT);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(WITHDRAWAL_CLOSE);
  }
  w.byte(CLOSE_BRACKET);
}

/**
 * Writes the canonical block whose header record is `record` as geth's RPCMarshalBlock JSON plus
 * totalDifficulty, with its transactions (from `txs`) as hashes or in full. `record` and the hashes
 * may be read buffers that the next read overwrites: each is copied before the next read.
 */
export function writeBlockJson(w: JsonWriter, record: Uint8Array, txs: BlockTxSource, full: boolean): void {
  const length = record.length;
  if (header.length < length) header = new Uint8Array(Math.max(length, 2 * header.length));
  header.set(record.subarray(0, length));
  const raw = header;
  const hashes = txs.hashes();
  const hashBytes = hashes?.length ?? 0;
  if (hashCopy.length < hashBytes) hashCopy = new Uint8Array(Math.max(hashBytes, 2 * hashCopy.length));
  if (hashes !== undefined) hashCopy.set(hashes.subarray(0, hashBytes));
  const h = readHeaderOffsets(raw, offsets);
  const start = w.length;
  if (h.baseFeePerGas >= 0) quantityField(w, BASE_FEE, raw, h.baseFeePerGas);
  if (h.blobGasUsed >= 0) quantityField(w, BLOB_GAS_USED, raw, h.blobGasUsed);
  quantityField(w, DIFFICULTY, raw, h.difficulty);
  if (h.excessBlobGas >= 0) quantityField(w, EXCESS_BLOB_GAS, raw, h.excessBlobGas);
  dataField(w, EXTRA_DATA, raw, h.extraData, h.extraData + h.extraDataLength);
  quantityField(w, GAS_LIMIT, raw, h.gasLimit);
  quantityField(w, GAS_USED, raw, h.gasUsed);
  dataField(w, HASH, raw, h.hash, h.hash + 32);
  dataField(w, LOGS_BLOOM, raw, h.logsBloom, h.logsBloom + 256);
  dataField(w, MINER, raw, h.miner, h.miner + 20);
  dataField(w, MIX_HASH, raw, h.mixHash, h.mixHash + 32);
  dataField(w, NONCE, raw, h.nonce, h.nonce + 8);
  numberField(w, NUMBER, h.number);
  if (h.parentBeaconBlockRoot >= 0)
    dataField(w, PARENT_BEACON_ROOT, raw, h.parentBeaconBlockRoot, h.parentBeaconBlockRoot + 32);
  dataField(w, PARENT_HASH, raw, h.parentHash, h.parentHash + 32);
  dataField(w, RECEIPTS_ROOT, raw, h.receiptsRoot, h.receiptsRoot + 32);
  if (h.requestsHash >= 0) dataField(w, REQUESTS_HASH, raw, h.requestsHash, h.requestsHash + 32);
  dataField(w, SHA3_UNCLES, raw, h.sha3Uncles, h.sha3Uncles + 32);
  numberField(w, SIZE, h.size);
  dataField(w, STATE_ROOT, raw, h.stateRoot, h.stateRoot + 32);
  numberField(w, TIMESTAMP, h.timestamp);
  quantityField(w, TOTAL_DIFFICULTY, raw, h.totalDifficulty);
  w.bytes(TRANSACTIONS);
  if (full) txBlock.load(raw, h);
  for (let i = 0, at = 0; at < hashBytes; i++, at += 32) {
    if (i > 0) w.byte(COMMA);
    if (full) {
      const tx = txs.record(i);
      if (tx === undefined) throw new Error(`transaction ${i} of block ${h.number} is not stored`);
      writeTxJson(w, tx, hashCopy, at, txBlock, i);
    } else {
      w.bytes(QUOTE_0X);
      w.hex(hashCopy, at, at + 32);
      w.byte(QUOTE);
    }
  }
  w.byte(CLOSE_BRACKET);
  dataField(w, TRANSACTIONS_ROOT, raw, h.transactionsRoot, h.transactionsRoot + 32);
  w.bytes(UNCLES);
  hashList(w, raw, h.uncles, h.uncleCount);
  w.byte(CLOSE_BRACKET);
  if (h.withdrawals >= 0) writeWithdrawals(w, raw, h);
  if (h.withdrawalsRoot >= 0) dataField(w, WITHDRAWALS_ROOT, raw, h.withdrawalsRoot, h.withdrawalsRoot + 32);
  if (h.extraLength > 0) {
    w.byte(COMMA);
    w.bytes(raw.subarray(h.extra, h.extra + h.extraLength));
  }
  w.byte(CLOSE_BRACE);
  w.patch(start, OPEN_BRACE);
}
