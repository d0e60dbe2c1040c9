/**
 * Renders a canonical transaction as JSON text straight from its binary record (store/codec.ts) and
 * its block's header record: the same bytes as JSON.stringify(formatTransaction(...)) (format.ts,
 * the reference; test/integration/render.test.ts holds them equal), without decoding into objects or
 * BigInts. The effective gas price of a fee-market transaction is summed and compared on the
 * stored big-endian bytes. A type not modelled (not 0-4) is its position fields and then the node's
 * members as stored (Transaction.extra).
 */

import { ascii } from '../chain/asciiHex.js';
import { readVarint, varintEnd } from '../chain/varint.js';
import { type HeaderOffsets, readTxOffsets, TX_FROM_OFFSET, TxOffsets } from '../store/recordViews.js';
import { dataField, hashList, numberField, quantityField, skipQuantity, writeQuantity } from './fields.js';
import { JsonWriter } from './jsonWriter.js';

const BLOCK_HASH = ascii('{"blockHash":"0x');
const BLOCK_NUMBER = ascii('","blockNumber":"0x');
const BLOCK_TIMESTAMP = ascii('","blockTimestamp":"0x');
const FROM = ascii('","from":"0x');
const GAS = ascii('","gas":"0x');
const GAS_PRICE = ascii('","gasPrice":"0x');
const MAX_FEE = ascii(',"maxFeePerGas":"0x');
const MAX_PRIORITY_FEE = ascii(',"maxPriorityFeePerGas":"0x');
const MAX_BLOB_FEE = ascii(',"maxFeePerBlobGas":"0x');
const HASH = ascii(',"hash":"0x');
const INPUT = ascii(',"input":"0x');
const NONCE = ascii(',"nonce":"0x');
const TO = ascii(',"to":"0x');
const TO_NULL = ascii(',"to":null');
const INDEX = ascii(',"transactionIndex":"0x');
const VALUE = ascii(',"value":"0x');
const TYPE = ascii(',"type":"0x');
const ACCESS_LIST = ascii(',"accessList":[');
const ENTRY_ADDRESS = ascii('{"address":"0x');
const STORAGE_KEYS = ascii('","storageKeys":[');
const ENTRY_CLOSE = ascii(']}');
const CHAIN_ID = ascii(',"chainId":"0x');
const BLOB_HASHES = ascii(',"blobVersionedHashes":[');
const AUTHORIZATIONS = ascii(',"authorizationList":[');
const AUTH_CHAIN_ID = ascii('{"chainId":"0x');
const AUTH_ADDRESS = ascii('","address":"0x');
const AUTH_NONCE = ascii('","nonce":"0x');
const AUTH_Y_PARITY = ascii('","yParity":"0x');
const AUTH_R = ascii('","r":"0x');
const AUTH_S = ascii('","s":"0x');
const AUTH_CLOSE = ascii('"}');
const V = ascii(',"v":"0x');
const R = ascii(',"r":"0x');
const S = ascii(',"s":"0x');
const Y_PARITY = ascii(',"yParity":"0x');
const KEPT_INDEX = ascii('","transactionIndex":"0x');
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Longest stored quantity: a one-byte length prefix. */
const MAX_QUANTITY_BYTES = 255;

/**
 * The block fields a canonical transaction renders with, loaded once per block: the JSON from the
 * opening brace up to the sender's digits, and the block's base fee.
 */
export class TxBlock {
  private readonly head = new JsonWriter(256);
  /** The JSON from the opening brace up to the transaction index's digits, for a type not modelled. */
  private readonly keptHead = new JsonWriter(256);
  private readonly hash = new Uint8Array(32);
  private number = -1;
  private timestamp = -1;
  private readonly baseFee = new Uint8Array(MAX_QUANTITY_BYTES);
  private baseFeeLength = -1;
  private readonly sum = new Uint8Array(MAX_QUANTITY_BYTES + 1);

  /**
   * Loads the fields of the header record `header`, whose offsets are `h` (nothing to do when they are those loaded).
   */
  load(header: Uint8Array, h: HeaderOffsets): this {
    if (this.holds(header, h)) return this;
    const w = this.head;
    w.reset();
    w.bytes(BLOCK_HASH);
    w.hex(header, h.hash, h.hash + 32);
    w.bytes(BLOCK_NUMBER);
    w.number(h.number);
    w.bytes(BLOCK_TIMESTAMP);
    w.number(h.timestamp);
    w.bytes(FROM);
    const k = this.keptHead;
    k.reset();
    k.bytes(BLOCK_HASH);
    k.hex(header, h.hash, h.hash + 32);
    k.bytes(BLOCK_NUMBER);
    k.number(h.number);
    k.bytes(BLOCK_TIMESTAMP);
    k.number(h.timestamp);
    k.bytes(KEPT_INDEX);
    this.hash.set(header.subarray(h.hash, h.hash + 32));
    this.number = h.number;
    this.timestamp = h.timestamp;
    if (h.baseFeePerGas < 0) this.baseFeeLength = -1;
    else {
      const length = header[h.baseFeePerGas]!;
      this.baseFee.set(header.subarray(h.baseFeePerGas + 1, h.baseFeePerGas + 1 + length));
      this.baseFeeLength = length;
    }
    return this;
  }

  /** Whether `header` has the hash, number, timestamp and base fee already loaded (all a rendering reads from it). */
  private holds(header: Uint8Array, h: HeaderOffsets): boolean {
    if (h.number !== this.number || h.timestamp !== this.timestamp) return false;
    for (let i = 0; i < 32; i++) if (header[h.hash + i] !== this.hash[i]) return false;
    if (h.baseFeePerGas < 0) return this.baseFeeLength < 0;
    const length = header[h.baseFeePerGas]!;
    if (length !== this.baseFeeLength) return false;
    for (let i = 0; i < length; i++) if (header[h.baseFeePerGas + 1 + i] !== this.baseFee[i]) return false;
    return true;
  }

  /** Writes the JSON from the opening brace up to the sender's digits. */
  writeHead(w: JsonWriter): void {
    w.append(this.head);
  }

  /** Writes the JSON from the opening brace up to the transaction index's digits (a type not modelled). */
  writeKeptHead(w: JsonWriter): void {
    w.append(this.keptHead);
  }

  /**
   * Writes the digits of a fee-market transaction's price in this block: min(tip + baseFee, feeCap),
   * the fee cap when the block has no base fee. `feeCap` and `tip` are quantity offsets in `raw`.
   */
  writeEffectiveGasPrice(w: JsonWriter, raw: Uint8Array, feeCap: number, tip: number): void {
    const capStart = feeCap + 1;
    const capEnd = capStart + raw[feeCap]!;
    if (this.baseFeeLength < 0) {
      w.quantity(raw, capStart, capEnd);
      return;
    }
    const tipLength = raw[tip]!;
    const baseLength = this.baseFeeLength;
    const base = this.baseFee;
    const sum = this.sum;
    const n = Math.max(tipLength, baseLength) + 1;
    const sumStart = sum.length - n;
    let carry = 0;
    for (let i = 1; i <= n; i++) {
      const a = i <= tipLength ? raw[tip + 1 + tipLength - i]! : 0;
      const b = i <= baseLength ? base[baseLength - i]! : 0;
      const digit = a + b + carry;
      sum[sum.length - i] = digit & 0xff;
      carry = digit >> 8;
    }
    if (compareUnsigned(sum, sumStart, sum.length, raw, capStart, capEnd) < 0) w.quantity(sum, sumStart, sum.length);
    else w.quantity(raw, capStart, capEnd);
  }
}

/** Compares two big-endian unsigned integers held in byte ranges (leading zeros allowed). */
function compareUnsigned(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
): number {
  while (aStart < aEnd && a[aStart] === 0) aStart++;
  while (bStart < bEnd && b[bStart] === 0) bStart++;
  if (aEnd - aStart !== bEnd - bStart) return aEnd - aStart - (bEnd - bStart);
  for (; aStart < aEnd; aStart++, bStart++) {
    if (a[aStart] !== b[bStart]) return a[aStart]! - b[bStart]!;
  }
  return 0;
}

const offsets = new TxOffsets();

/**
 * Writes the canonical transaction record `raw` as geth's RPCTransaction JSON: transaction `index`
 * of the block loaded into `block`, whose hash is the 32 bytes of `hashes` at `hashAt` (the
 * block's txHashes record holds them; the record does not). Throws on a record with neither a gas
 * price nor a fee cap, as the reference does.
 */
export function writeTxJson(
  w: JsonWriter,
  raw: Uint8Array,
  hashes: Uint8Array,
  hashAt: number,
  block: TxBlock,
  index: number,
): void {
  const o = readTxOffsets(raw, offsets);
  if (o.extra >= 0) {
    writeKeptTx(w, raw, o, block, index);
    return;
  }
  block.writeHead(w);
  w.hex(raw, TX_FROM_OFFSET, TX_FROM_OFFSET + 20);
  w.bytes(GAS);
  writeQuantity(w, raw, o.gas);
  writeFees(w, raw, o, block);
  dataField(w, HASH, hashes, hashAt, hashAt + 32);
  if (!o.inputWords) dataField(w, INPUT, raw, o.input, o.input + o.inputLength);
  else {
    w.bytes(INPUT);
    w.wordsHex(raw, o.input, o.inputLength);
    w.byte(QUOTE);
  }
  quantityField(w, NONCE, raw, o.nonce);
  if (o.to >= 0) dataField(w, TO, raw, o.to, o.to + 20);
  else w.bytes(TO_NULL);
  numberField(w, INDEX, index);
  quantityField(w, VALUE, raw, o.value);
  numberField(w, TYPE, o.type);
  if (o.accessList >= 0) writeAccessList(w, raw, o);
  if (o.chainId >= 0) quantityField(w, CHAIN_ID, raw, o.chainId);
  if (o.blobHashCount > 0) {
    w.bytes(BLOB_HASHES);
    hashList(w, raw, o.blobHashes, o.blobHashCount);
    w.byte(CLOSE_BRACKET);
  }
  if (o.authorizationCount > 0) writeAuthorizations(w, raw, o);
  quantityField(w, V, raw, o.v);
  quantityField(w, R, raw, o.r);
  quantityField(w, S, raw, o.s);
  if (o.type !== 0) quantityField(w, Y_PARITY, raw, o.v);
  w.byte(CLOSE_BRACE);
}

/** Writes a transaction of a type not modelled: its position fields, then the node's members as stored. */
function writeKeptTx(w: JsonWriter, raw: Uint8Array, o: TxOffsets, block: TxBlock, index: number): void {
  block.writeKeptHead(w);
  w.number(index);
  w.byte(QUOTE);
  if (o.extraLength > 0) w.byte(COMMA);
  w.bytes(raw.subarray(o.extra, o.extra + o.extraLength));
  w.byte(CLOSE_BRACE);
}

/** Writes gasPrice (the effective price of a fee-market transaction) and the fee caps the record holds. */
function writeFees(w: JsonWriter, raw: Uint8Array, o: TxOffsets, block: TxBlock): void {
  w.bytes(GAS_PRICE);
  if (o.maxFeePerGas >= 0) block.writeEffectiveGasPrice(w, raw, o.maxFeePerGas, o.maxPriorityFeePerGas);
  else if (o.gasPrice >= 0) writeQuantity(w, raw, o.gasPrice);
  else throw new TypeError('transaction record has neither a gas price nor a fee cap');
  w.byte(QUOTE);
  if (o.maxFeePerGas >= 0) {
    quantityField(w, MAX_FEE, raw, o.maxFeePerGas);
    quantityField(w, MAX_PRIORITY_FEE, raw, o.maxPriorityFeePerGas);
  }
  if (o.maxFeePerBlobGas >= 0) quantityField(w, MAX_BLOB_FEE, raw, o.maxFeePerBlobGas);
}

/** Writes the accessList member: each entry's address and storage keys. */
function writeAccessList(w: JsonWriter, raw: Uint8Array, o: TxOffsets): void {
  w.bytes(ACCESS_LIST);
  let at = o.accessList;
  for (let i = 0; i < o.accessListCount; i++) {
    if (i > 0) w.byte(COMMA);
    w.bytes(ENTRY_ADDRESS);
    w.hex(raw, at, at + 20);
    w.bytes(STORAGE_KEYS);
    const keys = readVarint(raw, at + 20);
    at = varintEnd;
    hashList(w, raw, at, keys);
    at += 32 * keys;
    w.bytes(ENTRY_CLOSE);
  }
  w.byte(CLOSE_BRACKET);
}

/** Writes the authorizationList member of a set-code transaction. */
function writeAuthorizations(w: JsonWriter, raw: Uint8Array, o: TxOffsets): void {
  w.bytes(AUTHORIZATIONS);
  let at = o.authorizations;
  for (let i = 0; i < o.authorizationCount; i++) {
    if (i > 0) w.byte(COMMA);
    w.bytes(AUTH_CHAIN_ID);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(AUTH_ADDRESS);
    w.hex(raw, at, at + 20);
    at += 20;
    w.bytes(AUTH_NONCE);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(AUTH_Y_PARITY);
    w.number(raw[at++]!);
    w.bytes(AUTH_R);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(AUTH_S);
    writeQuantity(w, raw, at);
    at = skipQuantity(raw, at);
    w.bytes(AUTH_CLOSE);
  }
  w.byte(CLOSE_BRACKET);
}
