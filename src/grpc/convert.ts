/**
 * Proto messages ⇄ the method layer. A request becomes the JSON-RPC params of the same method (bytes
 * to hex, uint64 to hex quantities, tags to their names), so both fronts share every validation and
 * error message; a method's wire answer (hex strings) becomes the proto message (bytes, uint64 as
 * decimal strings, 256-bit amounts as big-endian bytes, null as an unset field). Message objects are
 * those of @grpc/proto-loader with LOADER_OPTIONS (definition.ts). Blocks, transactions and receipts
 * have no other protobuf writer; test/integration/grpc.test.ts ("unary RPCs answer what the HTTP
 * front answers") holds each message equal to the JSON-RPC answer, field by field.
 */
import { bytesToHex, quantityToHex } from '../chain/hex.js';
import type { LogCursor } from '../logs/stream.js';
import { argError } from '../rpc/params.js';

/** ethlogd.v1.BlockNumberOrTag as decoded: the oneof's member, tags by name (unknown ones by number). */
export interface BlockNumberOrTagMessage {
  tag?: string | number;
  number?: string;
}

/** ethlogd.v1.BlockSelector as decoded. */
export interface BlockSelectorMessage extends BlockNumberOrTagMessage {
  hash?: Uint8Array;
  requireCanonical?: boolean;
}

/** ethlogd.v1.LogFilter as decoded. */
export interface LogFilterMessage {
  fromBlock?: BlockNumberOrTagMessage;
  toBlock?: BlockNumberOrTagMessage;
  blockHash?: Uint8Array;
  addresses?: Uint8Array[];
  topics?: { anyOf?: Uint8Array[] }[];
}

/** ethlogd.v1.Cursor as decoded. */
export interface CursorMessage {
  blockNumber?: string;
  logIndex?: string;
}

/** ethlogd.v1.GetStorageAtRequest as decoded. */
export interface GetStorageAtMessage {
  address?: Uint8Array;
  position?: Uint8Array;
  block?: BlockSelectorMessage;
}

/** ethlogd.v1.GetBlockByNumberRequest as decoded. */
export interface GetBlockByNumberMessage {
  block?: BlockNumberOrTagMessage;
  fullTransactions?: boolean;
}

/** ethlogd.v1.GetTransactionByBlockNumberAndIndexRequest as decoded. */
export interface GetTransactionByBlockNumberAndIndexMessage {
  block?: BlockNumberOrTagMessage;
  index?: string;
}

/** ethlogd.v1.GetTransactionByHashRequest as decoded. */
export interface GetTransactionByHashMessage {
  hash?: Uint8Array;
}

/** ethlogd.v1.GetBlockReceiptsRequest as decoded. */
export interface GetBlockReceiptsMessage {
  block?: BlockSelectorMessage;
}

/** A proto message object to encode. */
export type ProtoObject = Record<string, unknown>;

const TAGS: Readonly<Record<string, string | undefined>> = {
  BLOCK_TAG_UNSPECIFIED: undefined,
  BLOCK_TAG_LATEST: 'latest',
  BLOCK_TAG_EARLIEST: 'earliest',
  BLOCK_TAG_PENDING: 'pending',
  BLOCK_TAG_SAFE: 'safe',
  BLOCK_TAG_FINALIZED: 'finalized',
};

function hex(bytes: Uint8Array | undefined): string {
  return bytesToHex(bytes ?? new Uint8Array(0));
}

function quantity(decimal: string | undefined): string {
  return quantityToHex(BigInt(decimal ?? '0'));
}

/** A block number or tag as the JSON-RPC parameter (unset: undefined, as a missing parameter). */
function blockParam(block: BlockNumberOrTagMessage | undefined, index: number, name: string): string | undefined {
  if (block?.number !== undefined) return quantity(block.number);
  if (block?.tag === undefined) return undefined;
  if (typeof block.tag !== 'string' || !(block.tag in TAGS))
    throw argError(index, name, `unknown block tag ${String(block.tag)}`);
  return TAGS[block.tag];
}

/** eth_getStorageAt's params; an unset block is left out (latest). */
export function storageAtParams(request: GetStorageAtMessage): unknown[] {
  const params: unknown[] = [hex(request.address), hex(request.position)];
  const block = request.block;
  if (block?.hash !== undefined)
    params.push({ blockHash: hex(block.hash), requireCanonical: block.requireCanonical === true });
  else {
    const ref = blockParam(block, 2, 'block parameter');
    if (ref !== undefined) params.push(ref);
  }
  return params;
}

/** eth_getBlockByNumber's params. */
export function blockByNumberParams(request: GetBlockByNumberMessage): unknown[] {
  return [blockParam(request.block, 0, 'block parameter'), request.fullTransactions === true];
}

/** eth_getTransactionByBlockNumberAndIndex's params. */
export function txByBlockNumberAndIndexParams(request: GetTransactionByBlockNumberAndIndexMessage): unknown[] {
  return [blockParam(request.block, 0, 'block parameter'), quantity(request.index)];
}

/** eth_getTransactionByHash's params. */
export function txByHashParams(request: GetTransactionByHashMessage): unknown[] {
  return [hex(request.hash)];
}

/** eth_getBlockReceipts' params: a hash (EIP-1898 object), a number or tag; unset is latest. */
export function blockReceiptsParams(request: GetBlockReceiptsMessage): unknown[] {
  const block = request.block;
  if (block?.hash !== undefined)
    return [{ blockHash: hex(block.hash), requireCanonical: block.requireCanonical === true }];
  return [blockParam(block, 0, 'block parameter') ?? 'latest'];
}

/** eth_getLogs' filter object: unset fields left out, an empty topic position a wildcard (null). */
export function filterObject(filter: LogFilterMessage | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!filter) return out;
  const from = blockParam(filter.fromBlock, 0, 'fromBlock');
  const to = blockParam(filter.toBlock, 0, 'toBlock');
  if (from !== undefined) out.fromBlock = from;
  if (to !== undefined) out.toBlock = to;
  if (filter.blockHash !== undefined && filter.blockHash.length > 0) out.blockHash = hex(filter.blockHash);
  if (filter.addresses !== undefined && filter.addresses.length > 0) out.address = filter.addresses.map(hex);
  if (filter.topics !== undefined && filter.topics.length > 0) {
    out.topics = filter.topics.map((t) => (t.anyOf !== undefined && t.anyOf.length > 0 ? t.anyOf.map(hex) : null));
  }
  return out;
}

function safeNumber(decimal: string | undefined): number {
  const n = BigInt(decimal ?? '0');
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** A stream cursor (numbers past 2^53 clamp: no store holds such blocks or indexes). */
export function cursorOf(cursor: CursorMessage | undefined): LogCursor | undefined {
  if (!cursor) return undefined;
  return { block: safeNumber(cursor.blockNumber), logIndex: safeNumber(cursor.logIndex) };
}

/** How a wire field becomes a proto field: a scalar kind, a nested message, or a list of them. */
type Kind = 'bytes' | 'u64' | 'u32' | 'u256' | 'bool' | 'bytesList' | Shape | readonly [Shape];

/** The kinds of an object's fields, by name (the JSON and proto names agree). */
interface Shape {
  readonly [field: string]: Kind;
}

const MAX_U64 = (1n << 64n) - 1n;

const ACCESS_TUPLE: Shape = { address: 'bytes', storageKeys: 'bytesList' };

const AUTHORIZATION: Shape = { chainId: 'u256', address: 'bytes', nonce: 'u64', yParity: 'u32', r: 'u256', s: 'u256' };

const TRANSACTION: Shape = {
  blockHash: 'bytes',
  blockNumber: 'u64',
  blockTimestamp: 'u64',
  from: 'bytes',
  gas: 'u64',
  gasPrice: 'u256',
  maxFeePerGas: 'u256',
  maxPriorityFeePerGas: 'u256',
  maxFeePerBlobGas: 'u256',
  hash: 'bytes',
  input: 'bytes',
  nonce: 'u64',
  to: 'bytes',
  transactionIndex: 'u64',
  value: 'u256',
  type: 'u32',
  accessList: [ACCESS_TUPLE],
  chainId: 'u256',
  blobVersionedHashes: 'bytesList',
  authorizationList: [AUTHORIZATION],
  v: 'u256',
  r: 'u256',
  s: 'u256',
  yParity: 'u32',
};

const LOG: Shape = {
  blockNumber: 'u64',
  logIndex: 'u64',
  address: 'bytes',
  topics: 'bytesList',
  data: 'bytes',
  transactionHash: 'bytes',
  transactionIndex: 'u64',
  blockHash: 'bytes',
  blockTimestamp: 'u64',
  removed: 'bool',
};

const RECEIPT: Shape = {
  blockHash: 'bytes',
  blockNumber: 'u64',
  contractAddress: 'bytes',
  cumulativeGasUsed: 'u64',
  effectiveGasPrice: 'u256',
  from: 'bytes',
  gasUsed: 'u64',
  logs: [LOG],
  logsBloom: 'bytes',
  root: 'bytes',
  status: 'u32',
  to: 'bytes',
  transactionHash: 'bytes',
  transactionIndex: 'u64',
  type: 'u32',
  blobGasUsed: 'u64',
  blobGasPrice: 'u256',
};

const WITHDRAWAL: Shape = { index: 'u64', validatorIndex: 'u64', address: 'bytes', amount: 'u64' };

const BLOCK: Shape = {
  number: 'u64',
  hash: 'bytes',
  parentHash: 'bytes',
  nonce: 'bytes',
  sha3Uncles: 'bytes',
  logsBloom: 'bytes',
  transactionsRoot: 'bytes',
  stateRoot: 'bytes',
  receiptsRoot: 'bytes',
  miner: 'bytes',
  difficulty: 'u256',
  totalDifficulty: 'u256',
  extraData: 'bytes',
  size: 'u64',
  gasLimit: 'u64',
  gasUsed: 'u64',
  timestamp: 'u64',
  mixHash: 'bytes',
  uncles: 'bytesList',
  baseFeePerGas: 'u256',
  withdrawalsRoot: 'bytes',
  withdrawals: [WITHDRAWAL],
  blobGasUsed: 'u64',
  excessBlobGas: 'u64',
  parentBeaconBlockRoot: 'bytes',
  requestsHash: 'bytes',
};

function dataBytes(value: unknown): Buffer {
  return Buffer.from((value as string).slice(2), 'hex');
}

/** A hex quantity (no leading zeros) as minimal big-endian bytes, empty for zero. */
function quantityBytes(value: string): Buffer {
  const digits = value.slice(2);
  if (digits === '0') return Buffer.alloc(0);
  return Buffer.from(digits.length % 2 ? '0' + digits : digits, 'hex');
}

/** Hex digits that always fit a double exactly (52 bits). */
const EXACT_DIGITS = 13;

/** A hex quantity as a uint64 decimal string. */
function quantityDecimal(value: string): string {
  if (value.length - 2 <= EXACT_DIGITS) return String(parseInt(value.slice(2), 16));
  const n = BigInt(value);
  if (n > MAX_U64) throw new RangeError(`quantity ${value} does not fit a uint64 field`);
  return n.toString();
}

function isList(kind: Shape | readonly [Shape]): kind is readonly [Shape] {
  return Array.isArray(kind);
}

function convert(value: unknown, kind: Kind): unknown {
  if (kind === 'bytes') return dataBytes(value);
  if (kind === 'bytesList') return (value as unknown[]).map(dataBytes);
  if (kind === 'u256') return quantityBytes(value as string);
  if (kind === 'u32') return parseInt((value as string).slice(2), 16);
  if (kind === 'u64') return quantityDecimal(value as string);
  if (kind === 'bool') return value === true;
  if (isList(kind)) return (value as unknown[]).map((item) => message(item as Record<string, unknown>, kind[0]));
  return message(value as Record<string, unknown>, kind);
}

/** The proto object of a wire object: null fields unset, fields the shape does not know left out. */
function message(wire: Record<string, unknown>, shape: Shape): ProtoObject {
  const out: ProtoObject = {};
  for (const key in wire) {
    const value = wire[key];
    const kind = shape[key];
    if (value === null || value === undefined || kind === undefined) continue;
    out[key] = convert(value, kind);
  }
  return out;
}

/**
 * The proto object of a transaction, receipt or block: message()'s, plus `extraJson`, the fields
 * the shape does not know (another chain's, kept as its node gave them) as a JSON object.
 */
function messageWithExtra(wire: Record<string, unknown>, shape: Shape, skip: readonly string[] = []): ProtoObject {
  const out = message(wire, shape);
  const extra: Record<string, unknown> = {};
  let any = false;
  for (const key in wire) {
    if (shape[key] !== undefined || skip.includes(key) || wire[key] === undefined) continue;
    extra[key] = wire[key];
    any = true;
  }
  if (any) out.extraJson = JSON.stringify(extra);
  return out;
}

/** GetStorageAtResponse of eth_getStorageAt's answer. */
export function storageAtResponse(result: unknown): ProtoObject {
  return { value: dataBytes(result) };
}

/** TransactionResponse of a transaction method's answer (null: transaction unset). */
export function transactionResponse(result: unknown): ProtoObject {
  return result === null ? {} : { transaction: messageWithExtra(result as Record<string, unknown>, TRANSACTION) };
}

/** BlockResponse of eth_getBlockByNumber's answer: hashes to transaction_hashes, full transactions to transactions. */
export function blockResponse(result: unknown): ProtoObject {
  if (result === null) return {};
  const wire = result as Record<string, unknown>;
  const block = messageWithExtra(wire, BLOCK, ['transactions']);
  const txs = (wire.transactions ?? []) as unknown[];
  if (txs.length > 0 && typeof txs[0] === 'string') block.transactionHashes = txs.map(dataBytes);
  else block.transactions = txs.map((tx) => messageWithExtra(tx as Record<string, unknown>, TRANSACTION));
  return { block };
}

/** ReceiptResponse of eth_getTransactionReceipt's answer (null: receipt unset). */
export function receiptResponse(result: unknown): ProtoObject {
  return result === null ? {} : { receipt: messageWithExtra(result as Record<string, unknown>, RECEIPT) };
}

/** BlockReceiptsResponse of eth_getBlockReceipts' answer (null: block unset). */
export function blockReceiptsResponse(result: unknown): ProtoObject {
  if (result === null) return {};
  return { block: { receipts: (result as Record<string, unknown>[]).map((r) => messageWithExtra(r, RECEIPT)) } };
}
