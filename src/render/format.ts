/**
 * Renders domain objects as geth renders them on the wire: blocks (keys in geth's sorted order),
 * transactions (RPCTransaction's fields per type), receipts (MarshalReceipt's), logs (as objects,
 * and as JSON text so workers can render fragments that the main thread splices into a response).
 * The reference of every JSON form: the writers straight from stored records are held equal to it
 * by test/integration/render.test.ts (blocks, transactions) and logRepresentations.test.ts (logs,
 * with the protobuf and CSV forms); receipts have this writer only. Members kept as a node gave
 * them (a type not modelled, other chains' fields: the `extra` of a transaction, receipt or header)
 * are served as stored: a transaction of a type not modelled is its position fields then its kept
 * members; a block's kept members follow its sorted keys; a receipt's join its keys in sorted order,
 * over the modelled ones of the same name.
 */
import { logsBloom } from '../chain/bloom.js';
import { effectiveGasPrice } from '../chain/gasPrice.js';
import { bytesToHex, quantityToHex } from '../chain/hex.js';
import type { AccessListEntry, BlockHeader, Log, LogEntry, Receipt, Transaction } from '../chain/types.js';

/** Where a transaction or log sits; `null` for pending ones (position fields render as null). */
export interface BlockPosition {
  hash: Uint8Array;
  number: number;
  timestamp: number;
  baseFeePerGas?: bigint;
}

/** The wire form of an access list. */
function formatAccessList(list: AccessListEntry[]): unknown[] {
  return list.map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(bytesToHex) }));
}

/** The object of kept JSON members text (`"name":value,…`). */
export function keptMembers(extra: string): Record<string, unknown> {
  return JSON.parse('{' + extra + '}') as Record<string, unknown>;
}

/** Renders a transaction as geth's RPCTransaction; `at` is null for a pending transaction. */
export function formatTransaction(tx: Transaction, at: BlockPosition | null, index: number): Record<string, unknown> {
  if (tx.extra !== undefined) {
    return {
      blockHash: at ? bytesToHex(at.hash) : null,
      blockNumber: at ? quantityToHex(at.number) : null,
      blockTimestamp: at ? quantityToHex(at.timestamp) : null,
      transactionIndex: at ? quantityToHex(index) : null,
      ...keptMembers(tx.extra),
    };
  }
  const dynamic = tx.maxFeePerGas !== undefined;
  const gasPrice = dynamic ? (at ? effectiveGasPrice(tx, at.baseFeePerGas) : tx.maxFeePerGas!) : tx.gasPrice!;
  const out: Record<string, unknown> = {
    blockHash: at ? bytesToHex(at.hash) : null,
    blockNumber: at ? quantityToHex(at.number) : null,
    blockTimestamp: at ? quantityToHex(at.timestamp) : null,
    from: bytesToHex(tx.from),
    gas: quantityToHex(tx.gas),
    gasPrice: quantityToHex(gasPrice),
  };
  if (dynamic) {
    out.maxFeePerGas = quantityToHex(tx.maxFeePerGas!);
    out.maxPriorityFeePerGas = quantityToHex(tx.maxPriorityFeePerGas!);
  }
  if (tx.maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = quantityToHex(tx.maxFeePerBlobGas);
  out.hash = bytesToHex(tx.hash);
  out.input = bytesToHex(tx.input);
  out.nonce = quantityToHex(tx.nonce);
  out.to = tx.to ? bytesToHex(tx.to) : null;
  out.transactionIndex = at ? quantityToHex(index) : null;
  out.value = quantityToHex(tx.value);
  out.type = quantityToHex(tx.type);
  if (tx.accessList !== undefined) out.accessList = formatAccessList(tx.accessList);
  if (tx.chainId !== undefined) out.chainId = quantityToHex(tx.chainId);
  if (tx.blobVersionedHashes !== undefined && tx.blobVersionedHashes.length > 0) {
    out.blobVersionedHashes = tx.blobVersionedHashes.map(bytesToHex);
  }
  if (tx.authorizationList !== undefined && tx.authorizationList.length > 0) {
    out.authorizationList = tx.authorizationList.map((a) => ({
      chainId: quantityToHex(a.chainId),
      address: bytesToHex(a.address),
      nonce: quantityToHex(a.nonce),
      yParity: quantityToHex(a.yParity),
      r: quantityToHex(a.r),
      s: quantityToHex(a.s),
    }));
  }
  out.v = quantityToHex(tx.v);
  out.r = quantityToHex(tx.r);
  out.s = quantityToHex(tx.s);
  if (tx.type !== 0) out.yParity = quantityToHex(tx.v);
  return out;
}

/** What a block response lists: transaction hashes, or full transactions. */
export type BlockTransactions = { hashes: Uint8Array[] } | { full: Transaction[] };

/**
 * Renders a block as geth's RPCMarshalBlock (keys sorted, as Go renders a map) plus the contract's
 * totalDifficulty; a pending block has null hash, logsBloom, nonce and number (docs/api.md §4.1).
 */
export function formatBlock(h: BlockHeader, txs: BlockTransactions, pending: boolean): Record<string, unknown> {
  const at: BlockPosition = { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas };
  const fields: Record<string, unknown> = {
    difficulty: quantityToHex(h.difficulty),
    extraData: bytesToHex(h.extraData),
    gasLimit: quantityToHex(h.gasLimit),
    gasUsed: quantityToHex(h.gasUsed),
    hash: pending ? null : bytesToHex(h.hash),
    logsBloom: pending ? null : bytesToHex(h.logsBloom),
    miner: bytesToHex(h.miner),
    mixHash: bytesToHex(h.mixHash),
    nonce: pending ? null : bytesToHex(h.nonce),
    number: pending ? null : quantityToHex(h.number),
    parentHash: bytesToHex(h.parentHash),
    receiptsRoot: bytesToHex(h.receiptsRoot),
    sha3Uncles: bytesToHex(h.sha3Uncles),
    size: quantityToHex(h.size),
    stateRoot: bytesToHex(h.stateRoot),
    timestamp: quantityToHex(h.timestamp),
    totalDifficulty: quantityToHex(h.totalDifficulty),
    transactions:
      'hashes' in txs
        ? txs.hashes.map(bytesToHex)
        : txs.full.map((tx, i) => formatTransaction(tx, pending ? null : at, i)),
    transactionsRoot: bytesToHex(h.transactionsRoot),
    uncles: h.uncles.map(bytesToHex),
  };
  if (h.baseFeePerGas !== undefined) fields.baseFeePerGas = quantityToHex(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) fields.withdrawalsRoot = bytesToHex(h.withdrawalsRoot);
  if (h.withdrawals !== undefined) {
    fields.withdrawals = h.withdrawals.map((w) => ({
      index: quantityToHex(w.index),
      validatorIndex: quantityToHex(w.validatorIndex),
      address: bytesToHex(w.address),
      amount: quantityToHex(w.amount),
    }));
  }
  if (h.blobGasUsed !== undefined) fields.blobGasUsed = quantityToHex(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) fields.excessBlobGas = quantityToHex(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) fields.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) fields.requestsHash = bytesToHex(h.requestsHash);
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(fields).sort()) sorted[key] = fields[key];
  return h.extra === undefined ? sorted : Object.assign(sorted, keptMembers(h.extra));
}

/** A log as eth_getLogs answers it (null positions for a pending log). */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string | null;
  transactionHash: string | null;
  transactionIndex: string | null;
  blockHash: string | null;
  blockTimestamp: string | null;
  logIndex: string | null;
  removed: boolean;
}

/** A log as eth_getLogs answers it: the fields of LOG_FIELDS (logFields.ts), in that order. */
export function formatLog(log: LogEntry): RpcLog {
  const quantity = (n: number | null) => (n === null ? null : quantityToHex(n));
  const bytes = (b: Uint8Array | null) => (b === null ? null : bytesToHex(b));
  return {
    address: bytesToHex(log.address),
    topics: log.topics.map(bytesToHex),
    data: bytesToHex(log.data),
    blockNumber: quantity(log.blockNumber),
    transactionHash: bytes(log.transactionHash),
    transactionIndex: quantity(log.transactionIndex),
    blockHash: bytes(log.blockHash),
    blockTimestamp: quantity(log.blockTimestamp),
    logIndex: quantity(log.logIndex),
    removed: log.removed,
  };
}

/** The block context a log renders with; `null` position fields for a pending log. */
export interface LogContext {
  /** Hex of the block hash, or null when pending. */
  blockHash: string | null;
  /** Hex block number, or null when pending. */
  blockNumber: string | null;
  /** Hex block timestamp, or null when pending. */
  blockTimestamp: string | null;
  /** Transaction hash (hex) of each transaction index, or null when pending. */
  txHash: (txIndex: number) => string | null;
  /** Whether the block was removed by a reorganisation. */
  removed: boolean;
  /** Whether the log is pending (log and transaction index render as null). */
  pending: boolean;
}

/** Renders one log as JSON text, in geth's field order plus blockTimestamp. */
export function renderLogJson(log: Log, logIndex: number, ctx: LogContext): string {
  let topics = '';
  for (let i = 0; i < log.topics.length; i++) topics += (i ? ',"' : '"') + bytesToHex(log.topics[i]!) + '"';
  const str = (v: string | null) => (v === null ? 'null' : '"' + v + '"');
  return (
    '{"address":"' +
    bytesToHex(log.address) +
    '","topics":[' +
    topics +
    '],"data":"' +
    bytesToHex(log.data) +
    '","blockNumber":' +
    str(ctx.blockNumber) +
    ',"transactionHash":' +
    str(ctx.txHash(log.txIndex)) +
    ',"transactionIndex":' +
    (ctx.pending ? 'null' : '"' + quantityToHex(log.txIndex) + '"') +
    ',"blockHash":' +
    str(ctx.blockHash) +
    ',"blockTimestamp":' +
    str(ctx.blockTimestamp) +
    ',"logIndex":' +
    (ctx.pending ? 'null' : '"' + quantityToHex(logIndex) + '"') +
    ',"removed":' +
    (ctx.removed ? 'true' : 'false') +
    '}'
  );
}

/** A transaction's receipt as it is served: the stored receipt with what the block gives it. */
export interface ReceiptView {
  tx: Transaction;
  receipt: Receipt;
  /** The block's gas used by this transaction and the ones before it. */
  cumulativeGasUsed: bigint;
  /** The transaction's logs, in order. */
  logs: readonly Log[];
  /** The block-wide index of its first log. */
  firstLogIndex: number;
  /** Its index in the block. */
  index: number;
}

/**
 * Renders a receipt as JSON text as geth's MarshalReceipt does (keys sorted, as Go renders a map;
 * root instead of status before Byzantium; blob gas for type 3), its logs as eth_getLogs renders
 * them; `ctx` gives the block, with null positions for a receipt of the pending block.
 */
export function renderReceiptJson(view: ReceiptView, ctx: LogContext): string {
  const { tx, receipt } = view;
  const str = (v: string | null) => (v === null ? 'null' : '"' + v + '"');
  let logs = '';
  for (let i = 0; i < view.logs.length; i++)
    logs += (i ? ',' : '') + renderLogJson(view.logs[i]!, view.firstLogIndex + i, ctx);
  let out = '{';
  if (receipt.blobGasUsed !== undefined)
    out +=
      '"blobGasPrice":"' +
      quantityToHex(receipt.blobGasPrice!) +
      '","blobGasUsed":"' +
      quantityToHex(receipt.blobGasUsed) +
      '",';
  out +=
    '"blockHash":' +
    str(ctx.blockHash) +
    ',"blockNumber":' +
    str(ctx.blockNumber) +
    ',"contractAddress":' +
    (receipt.contractAddress === null ? 'null' : '"' + bytesToHex(receipt.contractAddress) + '"') +
    ',"cumulativeGasUsed":"' +
    quantityToHex(view.cumulativeGasUsed) +
    '","effectiveGasPrice":"' +
    quantityToHex(receipt.effectiveGasPrice) +
    '","from":"' +
    bytesToHex(tx.from) +
    '","gasUsed":"' +
    quantityToHex(receipt.gasUsed) +
    '","logs":[' +
    logs +
    '],"logsBloom":"' +
    bytesToHex(logsBloom(view.logs)) +
    '",';
  out +=
    receipt.root !== undefined
      ? '"root":"' + bytesToHex(receipt.root) + '",'
      : '"status":"' + quantityToHex(receipt.status!) + '",';
  out +=
    '"to":' +
    (tx.to === null ? 'null' : '"' + bytesToHex(tx.to) + '"') +
    ',"transactionHash":"' +
    bytesToHex(tx.hash) +
    '","transactionIndex":' +
    (ctx.pending ? 'null' : '"' + quantityToHex(view.index) + '"') +
    ',"type":"' +
    quantityToHex(tx.type) +
    '"}';
  return receipt.extra === undefined ? out : withKeptMembers(out, receipt.extra);
}

/** The JSON object text `json` with the kept members `extra` over its own, keys sorted (as Go renders a map). */
function withKeptMembers(json: string, extra: string): string {
  const fields = Object.assign(JSON.parse(json) as Record<string, unknown>, keptMembers(extra));
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(fields).sort()) sorted[key] = fields[key];
  return JSON.stringify(sorted);
}

/** The parts of a block its receipts render from. */
export interface ReceiptBlock {
  /** Transaction `index` of the block (read only for the receipts rendered). */
  tx(index: number): Transaction;
  /** One per transaction. */
  receipts: readonly Receipt[];
  /** Every log of the block, in order. */
  logs: readonly Log[];
}

/**
 * Receipts `from`..`to` (exclusive) of `block` as JSON texts, with cumulative gas and log indexes counted from the
 * block's start.
 */
export function renderBlockReceipts(
  block: ReceiptBlock,
  ctx: LogContext,
  from = 0,
  to = block.receipts.length,
): string[] {
  const out: string[] = [];
  let cumulative = 0n;
  let log = 0;
  for (let i = 0; i < to; i++) {
    const receipt = block.receipts[i]!;
    cumulative += receipt.gasUsed;
    const firstLogIndex = log;
    while (log < block.logs.length && block.logs[log]!.txIndex === i) log++;
    if (i < from) continue;
    const logs = block.logs.slice(firstLogIndex, log);
    out.push(
      renderReceiptJson(
        { tx: block.tx(i), receipt, cumulativeGasUsed: cumulative, logs, firstLogIndex, index: i },
        ctx,
      ),
    );
  }
  return out;
}
