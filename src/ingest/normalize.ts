/**
 * Turns what a node answers (geth-style JSON: a block with full transactions, its receipts, its
 * prestateTracer diffs) into the store's BlockBundle, through src/chain/hex.ts, and checks what it
 * can: every transaction and receipt in its block and position, every log's block hash, number,
 * transaction and index, and the block's logsBloom recomputed from its logs.
 *
 * Decisions: a node that omits `totalDifficulty` (geth since 1.14, post-merge) is stored as 0;
 * absent `mixHash`/`nonce` are stored as zeros; the wire `gasPrice` of types 2-4 is not stored (it
 * is derived from the fee caps and the base fee when rendered, as geth does).
 *
 * Other chains (OP stack, Arbitrum, any new one) never stop ingest: a transaction of a type not
 * modelled (not 0-4) is kept as the node gave it, every member but its position (Transaction.extra),
 * `hash` and `from` as given, never recomputed; the members of a block or receipt that the modelled
 * ones do not cover (L1 fee fields, Arbitrum's l1BlockNumber, sendCount, sendRoot, …) are kept as
 * given too (BlockHeader.extra, Receipt.extra), and so is any member of a receipt of a type not
 * modelled whose value differs from what the modelled receipt would render.
 */

import { logsBloom } from '../chain/bloom.js';
import { effectiveGasPrice } from '../chain/gasPrice.js';
import { bytesEqual, bytesToHex, hexToBytes, nodeQuantityToBigInt, padLeft, quantityToHex } from '../chain/hex.js';
import {
  type AccessListEntry,
  type Authorization,
  type BlockBundle,
  type BlockHeader,
  isModelledTxType,
  type Log,
  type Receipt,
  type StorageWrite,
  type Transaction,
  type Withdrawal,
} from '../chain/types.js';
import { NodeDataError } from './errors.js';

/**
 * What the node answered about one block: the block with full transactions, its receipts, and (optionally) its
 * per-transaction storage diffs.
 */
export interface NodeBlock {
  block: unknown;
  receipts: unknown[];
  /** debug_traceBlockByNumber with prestateTracer in diffMode; undefined when storage is not ingested. */
  traces?: unknown[];
}

/** A block's identity and link, enough to compare chains. */
export interface BlockLink {
  number: number;
  hash: Uint8Array;
  parentHash: Uint8Array;
}

type Json = Record<string, unknown>;

const MAX_TOPICS = 4;
const ZERO_WORD = new Uint8Array(32);

/** Largest transaction type a record holds (one byte; EIP-2718 reserves types up to 0x7f, chains use a few above). */
const MAX_TX_TYPE = 0xff;

/** The members of a node's block the header record models; any other is kept as given (BlockHeader.extra). */
const BLOCK_MEMBERS = new Set([
  'baseFeePerGas',
  'blobGasUsed',
  'difficulty',
  'excessBlobGas',
  'extraData',
  'gasLimit',
  'gasUsed',
  'hash',
  'logsBloom',
  'miner',
  'mixHash',
  'nonce',
  'number',
  'parentBeaconBlockRoot',
  'parentHash',
  'receiptsRoot',
  'requestsHash',
  'sha3Uncles',
  'size',
  'stateRoot',
  'timestamp',
  'totalDifficulty',
  'transactions',
  'transactionsRoot',
  'uncles',
  'withdrawals',
  'withdrawalsRoot',
]);

/** A transaction's position members: rendered from where it is stored, never kept. */
const TX_POSITION_MEMBERS = new Set(['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex']);

/** A receipt's members rendered from its position and its logs, never kept. */
const RECEIPT_POSITION_MEMBERS = new Set(['blockHash', 'blockNumber', 'logs', 'transactionHash', 'transactionIndex']);

/** The members of a receipt the receipts record models (with its position's). */
const RECEIPT_MEMBERS = new Set([
  ...RECEIPT_POSITION_MEMBERS,
  'blobGasPrice',
  'blobGasUsed',
  'contractAddress',
  'cumulativeGasUsed',
  'effectiveGasPrice',
  'from',
  'gasUsed',
  'logsBloom',
  'root',
  'status',
  'to',
  'type',
]);

/**
 * Receipt members not kept: anvil's blockTimestamp (a JSON number), which geth's receipt does not
 * have (its logs carry blockTimestamp, and those are served).
 */
const RECEIPT_DROPPED_MEMBERS = new Set(['blockTimestamp']);

/** Characters outside ASCII (and DEL), escaped in kept members. */
const NON_ASCII = /[\u007f-\uffff]/g;

/**
 * JSON members text (`"name":value,…`) of `entries`, or undefined when there are none. Its text is
 * ASCII, other characters escaped (`\u00e9`): the renderers copy it as bytes into answers they
 * write as ASCII, and the escaped text parses to the same value.
 */
function membersText(entries: [string, unknown][]): string | undefined {
  if (entries.length === 0) return undefined;
  const text = entries.map(([k, v]) => JSON.stringify(k) + ':' + JSON.stringify(v)).join(',');
  return text.replace(NON_ASCII, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Reads typed fields of one JSON object, naming the object and field in errors. */
class Fields {
  private constructor(
    readonly obj: Json,
    readonly where: string,
  ) {}

  static of(value: unknown, where: string): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new NodeDataError('malformed', `${where}: expected an object`);
    }
    return new Fields(value as Json, where);
  }

  fail(name: string, what: string): never {
    throw new NodeDataError(
      'malformed',
      `${this.where}: ${name} ${what} (got ${JSON.stringify(this.obj[name])?.slice(0, 80)})`,
    );
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined && this.obj[name] !== null;
  }

  quantity(name: string): bigint {
    return nodeQuantityToBigInt(this.obj[name]) ?? this.fail(name, 'is not a hex quantity');
  }

  optQuantity(name: string): bigint | undefined {
    return this.has(name) ? this.quantity(name) : undefined;
  }

  number(name: string): number {
    const value = this.quantity(name);
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : this.fail(name, 'is too large');
  }

  data(name: string): Uint8Array {
    return hexToBytes(this.obj[name]) ?? this.fail(name, 'is not hex data');
  }

  fixed(name: string, length: number): Uint8Array {
    return hexToBytes(this.obj[name], length) ?? this.fail(name, `is not ${length} bytes of hex`);
  }

  optFixed(name: string, length: number): Uint8Array | undefined {
    return this.has(name) ? this.fixed(name, length) : undefined;
  }

  array(name: string): unknown[] {
    const value = this.obj[name];
    return Array.isArray(value) ? value : this.fail(name, 'is not an array');
  }

  optArray(name: string): unknown[] | undefined {
    return this.has(name) ? this.array(name) : undefined;
  }
}

function fixedAt(value: unknown, length: number, where: string): Uint8Array {
  return (
    hexToBytes(value, length) ??
    fail('malformed', `${where}: not ${length} bytes of hex (got ${JSON.stringify(value)?.slice(0, 80)})`)
  );
}

function fail(code: 'malformed' | 'inconsistent' | 'log-position' | 'unsupported', message: string): never {
  throw new NodeDataError(code, message);
}

/** Reads a block's number, hash and parent hash. */
export function normalizeBlockLink(value: unknown, where: string): BlockLink {
  const f = Fields.of(value, where);
  return { number: f.number('number'), hash: f.fixed('hash', 32), parentHash: f.fixed('parentHash', 32) };
}

function normalizeHeader(f: Fields, txCount: number): BlockHeader {
  const h: BlockHeader = {
    number: f.number('number'),
    hash: f.fixed('hash', 32),
    parentHash: f.fixed('parentHash', 32),
    sha3Uncles: f.fixed('sha3Uncles', 32),
    miner: f.fixed('miner', 20),
    stateRoot: f.fixed('stateRoot', 32),
    transactionsRoot: f.fixed('transactionsRoot', 32),
    receiptsRoot: f.fixed('receiptsRoot', 32),
    logsBloom: f.fixed('logsBloom', 256),
    difficulty: f.quantity('difficulty'),
    totalDifficulty: f.optQuantity('totalDifficulty') ?? 0n,
    gasLimit: f.quantity('gasLimit'),
    gasUsed: f.quantity('gasUsed'),
    timestamp: f.number('timestamp'),
    extraData: f.data('extraData'),
    mixHash: f.optFixed('mixHash', 32) ?? new Uint8Array(32),
    nonce: f.optFixed('nonce', 8) ?? new Uint8Array(8),
    uncles: (f.optArray('uncles') ?? []).map((u, i) => fixedAt(u, 32, `${f.where}: uncles[${i}]`)),
    size: f.number('size'),
    txCount,
  };
  const baseFee = f.optQuantity('baseFeePerGas');
  if (baseFee !== undefined) h.baseFeePerGas = baseFee;
  const withdrawalsRoot = f.optFixed('withdrawalsRoot', 32);
  if (withdrawalsRoot !== undefined) {
    h.withdrawalsRoot = withdrawalsRoot;
    h.withdrawals = (f.optArray('withdrawals') ?? []).map((w, i): Withdrawal => {
      const wf = Fields.of(w, `${f.where}: withdrawals[${i}]`);
      return {
        index: wf.quantity('index'),
        validatorIndex: wf.quantity('validatorIndex'),
        address: wf.fixed('address', 20),
        amount: wf.quantity('amount'),
      };
    });
  }
  const blobGasUsed = f.optQuantity('blobGasUsed');
  if (blobGasUsed !== undefined) {
    h.blobGasUsed = blobGasUsed;
    h.excessBlobGas = f.optQuantity('excessBlobGas') ?? 0n;
  }
  const beaconRoot = f.optFixed('parentBeaconBlockRoot', 32);
  if (beaconRoot !== undefined) h.parentBeaconBlockRoot = beaconRoot;
  const requestsHash = f.optFixed('requestsHash', 32);
  if (requestsHash !== undefined) h.requestsHash = requestsHash;
  const extra = membersText(Object.entries(f.obj).filter(([k, v]) => !BLOCK_MEMBERS.has(k) && v !== undefined));
  if (extra !== undefined) h.extra = extra;
  return h;
}

function normalizeAccessList(list: unknown[], where: string): AccessListEntry[] {
  return list.map((entry, i) => {
    const f = Fields.of(entry, `${where}: accessList[${i}]`);
    return {
      address: f.fixed('address', 20),
      storageKeys: f.array('storageKeys').map((k, j) => fixedAt(k, 32, `${f.where}: storageKeys[${j}]`)),
    };
  });
}

function normalizeAuthorization(value: unknown, where: string): Authorization {
  const f = Fields.of(value, where);
  return {
    chainId: f.quantity('chainId'),
    address: f.fixed('address', 20),
    nonce: f.quantity('nonce'),
    yParity: Number(f.quantity('yParity')),
    r: f.quantity('r'),
    s: f.quantity('s'),
  };
}

/**
 * A transaction of a type not modelled, kept as the node gave it: every member but its position in
 * `extra`; hash and from as given (required: every node's transaction object has them), the other
 * common fields read where the node gives them in the usual form (zero, or no recipient, where not).
 */
function keptTransaction(f: Fields, type: number): Transaction {
  const lenient = (name: string): bigint => nodeQuantityToBigInt(f.obj[name]) ?? 0n;
  const tx: Transaction = {
    type,
    hash: f.fixed('hash', 32),
    from: f.fixed('from', 20),
    to: hexToBytes(f.obj.to, 20) ?? null,
    nonce: lenient('nonce'),
    gas: lenient('gas'),
    value: lenient('value'),
    input: hexToBytes(f.obj.input) ?? new Uint8Array(0),
    v: lenient('v'),
    r: lenient('r'),
    s: lenient('s'),
    extra: membersText(Object.entries(f.obj).filter(([k, v]) => !TX_POSITION_MEMBERS.has(k) && v !== undefined)) ?? '',
  };
  const gasPrice = nodeQuantityToBigInt(f.obj.gasPrice);
  if (gasPrice !== undefined) tx.gasPrice = gasPrice;
  return tx;
}

function normalizeTransaction(value: unknown, header: BlockHeader, index: number): Transaction {
  const f = Fields.of(value, `block ${header.number} transaction ${index}`);
  const type = f.has('type') ? f.quantity('type') : 0n;
  if (type > BigInt(MAX_TX_TYPE))
    fail(
      'unsupported',
      `${f.where}: type ${quantityToHex(type)} is above ${quantityToHex(MAX_TX_TYPE)}, the largest a record holds`,
    );
  if (
    !bytesEqual(f.fixed('blockHash', 32), header.hash) ||
    f.number('blockNumber') !== header.number ||
    f.number('transactionIndex') !== index
  ) {
    fail('inconsistent', `${f.where}: the node places it at another block or index`);
  }
  if (!isModelledTxType(Number(type))) return keptTransaction(f, Number(type));
  const tx: Transaction = {
    type: Number(type),
    hash: f.fixed('hash', 32),
    from: f.fixed('from', 20),
    to: f.has('to') ? f.fixed('to', 20) : null,
    nonce: f.quantity('nonce'),
    gas: f.quantity('gas'),
    value: f.quantity('value'),
    input: f.data('input'),
    v: f.optQuantity('v') ?? f.quantity('yParity'),
    r: f.quantity('r'),
    s: f.quantity('s'),
  };
  const chainId = f.optQuantity('chainId');
  if (chainId !== undefined) tx.chainId = chainId;
  if (tx.type <= 1) tx.gasPrice = f.quantity('gasPrice');
  else {
    tx.maxFeePerGas = f.quantity('maxFeePerGas');
    tx.maxPriorityFeePerGas = f.quantity('maxPriorityFeePerGas');
  }
  if (tx.type >= 1) tx.accessList = normalizeAccessList(f.optArray('accessList') ?? [], f.where);
  if (tx.type === 3) {
    tx.maxFeePerBlobGas = f.quantity('maxFeePerBlobGas');
    tx.blobVersionedHashes = f
      .array('blobVersionedHashes')
      .map((h, i) => fixedAt(h, 32, `${f.where}: blobVersionedHashes[${i}]`));
  }
  if (tx.type === 4) {
    tx.authorizationList = f
      .array('authorizationList')
      .map((a, i) => normalizeAuthorization(a, `${f.where}: authorizationList[${i}]`));
  }
  return tx;
}

/**
 * What a receipt adds to its transaction: status (or a pre-Byzantium root), gas used (checked
 * against the cumulative gas), the effective gas price (computed when an old node leaves it out),
 * the created contract and the blob gas fields.
 */
function normalizeReceipt(r: Fields, tx: Transaction, header: BlockHeader, cumulative: bigint): Receipt {
  const gasUsed = r.quantity('gasUsed');
  if (r.quantity('cumulativeGasUsed') !== cumulative + gasUsed) {
    fail(
      'inconsistent',
      `${r.where}: cumulativeGasUsed ${String(r.obj.cumulativeGasUsed)} ` +
        "is not the block's gas used so far plus its gasUsed",
    );
  }
  const receipt: Receipt = {
    gasUsed,
    effectiveGasPrice:
      r.optQuantity('effectiveGasPrice') ??
      (tx.extra === undefined || tx.gasPrice !== undefined ? effectiveGasPrice(tx, header.baseFeePerGas) : 0n),
    contractAddress: r.optFixed('contractAddress', 20) ?? null,
  };
  if (r.has('status')) {
    const status = r.quantity('status');
    if (status !== 0n && status !== 1n) r.fail('status', 'is neither 0x0 nor 0x1');
    receipt.status = status === 1n ? 1 : 0;
  } else if (r.has('root')) {
    receipt.root = r.fixed('root', 32);
  } else {
    r.fail('status', 'is missing (and so is a pre-Byzantium root)');
  }
  if (tx.type === 3) {
    receipt.blobGasUsed = r.quantity('blobGasUsed');
    receipt.blobGasPrice = r.quantity('blobGasPrice');
  }
  return receipt;
}

/**
 * The receipt's members kept as the node gave them: those the record does not model; for a
 * transaction of a type not modelled also the modelled ones whose value differs from what the
 * modelled receipt renders (`cumulative` is the block's gas used through it, `logs` its logs).
 */
function keptReceiptMembers(
  r: Fields,
  tx: Transaction,
  receipt: Receipt,
  cumulative: bigint,
  logs: Log[],
): string | undefined {
  const kept = tx.extra !== undefined;
  const ours: Record<string, unknown> = kept
    ? {
        contractAddress: receipt.contractAddress === null ? null : bytesToHex(receipt.contractAddress),
        cumulativeGasUsed: quantityToHex(cumulative),
        effectiveGasPrice: quantityToHex(receipt.effectiveGasPrice),
        from: bytesToHex(tx.from),
        gasUsed: quantityToHex(receipt.gasUsed),
        logsBloom: bytesToHex(logsBloom(logs)),
        root: receipt.root === undefined ? undefined : bytesToHex(receipt.root),
        status: receipt.status === undefined ? undefined : quantityToHex(receipt.status),
        to: tx.to === null ? null : bytesToHex(tx.to),
        type: quantityToHex(tx.type),
      }
    : {};
  return membersText(
    Object.entries(r.obj).filter(([k, v]) => {
      if (v === undefined || RECEIPT_DROPPED_MEMBERS.has(k) || RECEIPT_POSITION_MEMBERS.has(k)) return false;
      if (!RECEIPT_MEMBERS.has(k)) return true;
      return kept && ours[k] !== v;
    }),
  );
}

/** The block's receipts and logs, each checked against its block, transaction and log index. */
function normalizeReceipts(
  raw: unknown[],
  header: BlockHeader,
  txs: Transaction[],
): { receipts: Receipt[]; logs: Log[] } {
  if (raw.length !== txs.length) {
    fail('inconsistent', `block ${header.number}: ${raw.length} receipts for ${txs.length} transactions`);
  }
  const logs: Log[] = [];
  const receipts: Receipt[] = [];
  let cumulative = 0n;
  raw.forEach((receipt, i) => {
    const r = Fields.of(receipt, `block ${header.number} receipt ${i}`);
    if (
      !bytesEqual(r.fixed('transactionHash', 32), txs[i]!.hash) ||
      !bytesEqual(r.fixed('blockHash', 32), header.hash)
    ) {
      fail('inconsistent', `${r.where}: belongs to another transaction or block`);
    }
    receipts.push(normalizeReceipt(r, txs[i]!, header, cumulative));
    cumulative += receipts[i]!.gasUsed;
    const firstLog = logs.length;
    r.array('logs').forEach((value, j) => {
      const l = Fields.of(value, `${r.where} log ${j}`);
      if (!bytesEqual(l.fixed('blockHash', 32), header.hash) || l.number('blockNumber') !== header.number) {
        fail(
          'log-position',
          `${l.where}: blockHash/blockNumber ${String(l.obj.blockHash)}/${String(l.obj.blockNumber)} ` +
            "are not its block's",
        );
      }
      if (
        l.number('transactionIndex') !== i ||
        !bytesEqual(l.fixed('transactionHash', 32), txs[i]!.hash) ||
        l.number('logIndex') !== logs.length
      ) {
        fail('log-position', `${l.where}: transactionIndex/transactionHash/logIndex do not match its position`);
      }
      if (l.obj.removed === true) fail('inconsistent', `${l.where}: marked removed`);
      const topics = l.array('topics').map((t, k) => fixedAt(t, 32, `${l.where}: topics[${k}]`));
      if (topics.length > MAX_TOPICS) l.fail('topics', `has more than ${MAX_TOPICS} entries`);
      logs.push({ address: l.fixed('address', 20), topics, data: l.data('data'), txIndex: i });
    });
    const extra = keptReceiptMembers(r, txs[i]!, receipts[i]!, cumulative, logs.slice(firstLog));
    if (extra !== undefined) receipts[i]!.extra = extra;
  });
  return { receipts, logs };
}

function storageMap(value: unknown, where: string): Json {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) fail('malformed', `${where}: expected an object`);
  return value as Json;
}

/**
 * The block's storage writes from its per-transaction prestateTracer diffs, applied in order: a
 * slot in `post` takes that value; a slot in `pre` but not in `post` was cleared (zero). The last
 * write of a slot in the block wins.
 */
function normalizeStorage(traces: unknown[], header: BlockHeader, txs: Transaction[]): StorageWrite[] {
  if (traces.length !== txs.length)
    fail('inconsistent', `block ${header.number}: ${traces.length} traces for ${txs.length} transactions`);
  const writes = new Map<string, StorageWrite>();
  const put = (address: string, slot: string, value: Uint8Array, where: string) => {
    const a = fixedAt(address.toLowerCase(), 20, where);
    const s = fixedAt(slot.toLowerCase(), 32, where);
    writes.set(bytesToHex(a) + bytesToHex(s).slice(2), { address: a, slot: s, value });
  };
  traces.forEach((trace, i) => {
    const t = Fields.of(trace, `block ${header.number} trace ${i}`);
    if (t.has('error')) fail('malformed', `${t.where}: the node could not trace it: ${String(t.obj.error)}`);
    if (t.has('txHash') && !bytesEqual(t.fixed('txHash', 32), txs[i]!.hash))
      fail('inconsistent', `${t.where}: traces another transaction`);
    const result = Fields.of(t.obj.result, `${t.where} result`);
    const pre = storageMap(result.obj.pre, `${result.where}.pre`);
    const post = storageMap(result.obj.post, `${result.where}.post`);
    for (const [address, account] of Object.entries(pre)) {
      const before = storageMap((account as Json | null)?.storage, `${result.where}.pre[${address}].storage`);
      const after = storageMap(
        (post[address] as Json | undefined)?.storage,
        `${result.where}.post[${address}].storage`,
      );
      for (const slot of Object.keys(before))
        if (!(slot in after)) put(address, slot, ZERO_WORD, `${result.where}.pre[${address}]`);
    }
    for (const [address, account] of Object.entries(post)) {
      const after = storageMap((account as Json | null)?.storage, `${result.where}.post[${address}].storage`);
      for (const [slot, value] of Object.entries(after)) {
        const bytes = hexToBytes(value);
        if (bytes === undefined || bytes.length > 32)
          fail('malformed', `${result.where}.post[${address}].storage[${slot}]: not a 32-byte value`);
        put(address, slot, padLeft(bytes, 32), `${result.where}.post[${address}]`);
      }
    }
  });
  return [...writes.values()];
}

/** Converts and checks one block as the node answered it; `expected` is the number asked for. */
export function normalizeBlock(raw: NodeBlock, expected: number): BlockBundle {
  const f = Fields.of(raw.block, `block ${expected}`);
  const txValues = f.array('transactions');
  const header = normalizeHeader(f, txValues.length);
  if (header.number !== expected) fail('inconsistent', `block ${expected}: the node answered block ${header.number}`);
  const transactions = txValues.map((tx, i) => normalizeTransaction(tx, header, i));
  const { receipts, logs } = normalizeReceipts(raw.receipts, header, transactions);
  if (!bytesEqual(logsBloom(logs), header.logsBloom)) {
    throw new NodeDataError(
      'bloom-mismatch',
      `block ${header.number}: the logsBloom recomputed from its ${logs.length} logs differs from the header's`,
    );
  }
  const storage = raw.traces ? normalizeStorage(raw.traces, header, transactions) : [];
  return { header, transactions, receipts, logs, storage };
}
