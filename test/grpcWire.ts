/**
 * gRPC answers turned back into JSON-RPC wire objects, written independently of src/grpc/convert.ts
 * (from ethlogd.proto's comments and geth's field rules), so tests can compare the two fronts'
 * answers with deepEqual. Messages are decoded with the loader options of src/grpc/definition.ts.
 */

/** A decoded message or a wire object. */
export type Obj = Record<string, any>;

const hex = (bytes: Uint8Array | undefined): string => '0x' + Buffer.from(bytes ?? new Uint8Array(0)).toString('hex');
const u64 = (decimal: string | undefined): string => '0x' + BigInt(decimal ?? '0').toString(16);
const u256 = (bytes: Uint8Array | undefined): string =>
  bytes && bytes.length > 0 ? '0x' + BigInt(hex(bytes)).toString(16) : '0x0';
const small = (n: number | undefined): string => '0x' + (n ?? 0).toString(16);
const nullable = <T>(value: T | undefined, render: (v: T) => string): string | null =>
  value === undefined ? null : render(value);

/** A Log message as eth_getLogs renders it. */
export function wireLog(l: Obj): Obj {
  return {
    address: hex(l.address),
    topics: (l.topics ?? []).map(hex),
    data: hex(l.data),
    blockNumber: nullable(l.blockNumber, u64),
    transactionHash: nullable(l.transactionHash, hex),
    transactionIndex: nullable(l.transactionIndex, u64),
    blockHash: nullable(l.blockHash, hex),
    blockTimestamp: nullable(l.blockTimestamp, u64),
    logIndex: nullable(l.logIndex, u64),
    removed: l.removed === true,
  };
}

/** A Transaction message as the transaction methods render it. */
export function wireTransaction(t: Obj): Obj {
  const out: Obj = {
    blockHash: nullable(t.blockHash, hex),
    blockNumber: nullable(t.blockNumber, u64),
    blockTimestamp: nullable(t.blockTimestamp, u64),
    from: hex(t.from),
    gas: u64(t.gas),
    gasPrice: u256(t.gasPrice),
  };
  if (t.maxFeePerGas !== undefined) out.maxFeePerGas = u256(t.maxFeePerGas);
  if (t.maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = u256(t.maxPriorityFeePerGas);
  if (t.maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = u256(t.maxFeePerBlobGas);
  out.hash = hex(t.hash);
  out.input = hex(t.input);
  out.nonce = u64(t.nonce);
  out.to = nullable(t.to, hex);
  out.transactionIndex = nullable(t.transactionIndex, u64);
  out.value = u256(t.value);
  out.type = small(t.type);
  if ((t.type ?? 0) >= 1)
    out.accessList = (t.accessList ?? []).map((e: Obj) => ({
      address: hex(e.address),
      storageKeys: (e.storageKeys ?? []).map(hex),
    }));
  if (t.chainId !== undefined) out.chainId = u256(t.chainId);
  if (t.blobVersionedHashes?.length) out.blobVersionedHashes = t.blobVersionedHashes.map(hex);
  if (t.authorizationList?.length) {
    out.authorizationList = t.authorizationList.map((a: Obj) => ({
      chainId: u256(a.chainId),
      address: hex(a.address),
      nonce: u64(a.nonce),
      yParity: small(a.yParity),
      r: u256(a.r),
      s: u256(a.s),
    }));
  }
  out.v = u256(t.v);
  out.r = u256(t.r);
  out.s = u256(t.s);
  if (t.yParity !== undefined) out.yParity = small(t.yParity);
  return out;
}

/** A Receipt message as eth_getTransactionReceipt renders it (keys in geth's sorted order). */
export function wireReceipt(r: Obj): Obj {
  const out: Obj = {};
  if (r.blobGasUsed !== undefined) {
    out.blobGasPrice = u256(r.blobGasPrice);
    out.blobGasUsed = u64(r.blobGasUsed);
  }
  out.blockHash = nullable(r.blockHash, hex);
  out.blockNumber = nullable(r.blockNumber, u64);
  out.contractAddress = nullable(r.contractAddress, hex);
  out.cumulativeGasUsed = u64(r.cumulativeGasUsed);
  out.effectiveGasPrice = u256(r.effectiveGasPrice);
  out.from = hex(r.from);
  out.gasUsed = u64(r.gasUsed);
  out.logs = (r.logs ?? []).map(wireLog);
  out.logsBloom = hex(r.logsBloom);
  if (r.root !== undefined) out.root = hex(r.root);
  else out.status = small(r.status);
  out.to = nullable(r.to, hex);
  out.transactionHash = hex(r.transactionHash);
  out.transactionIndex = nullable(r.transactionIndex, u64);
  out.type = small(r.type);
  return out;
}

/** A Block message as eth_getBlockByNumber renders it (`full`: with full transactions). */
export function wireBlock(b: Obj, full: boolean): Obj {
  const out: Obj = {
    difficulty: u256(b.difficulty),
    extraData: hex(b.extraData),
    gasLimit: u64(b.gasLimit),
    gasUsed: u64(b.gasUsed),
    hash: nullable(b.hash, hex),
    logsBloom: nullable(b.logsBloom, hex),
    miner: hex(b.miner),
    mixHash: hex(b.mixHash),
    nonce: nullable(b.nonce, hex),
    number: nullable(b.number, u64),
    parentHash: hex(b.parentHash),
    receiptsRoot: hex(b.receiptsRoot),
    sha3Uncles: hex(b.sha3Uncles),
    size: u64(b.size),
    stateRoot: hex(b.stateRoot),
    timestamp: u64(b.timestamp),
    totalDifficulty: u256(b.totalDifficulty),
    transactions: full ? (b.transactions ?? []).map(wireTransaction) : (b.transactionHashes ?? []).map(hex),
    transactionsRoot: hex(b.transactionsRoot),
    uncles: (b.uncles ?? []).map(hex),
  };
  if (b.baseFeePerGas !== undefined) out.baseFeePerGas = u256(b.baseFeePerGas);
  if (b.withdrawalsRoot !== undefined) {
    out.withdrawalsRoot = hex(b.withdrawalsRoot);
    out.withdrawals = (b.withdrawals ?? []).map((w: Obj) => ({
      index: u64(w.index),
      validatorIndex: u64(w.validatorIndex),
      address: hex(w.address),
      amount: u64(w.amount),
    }));
  }
  if (b.blobGasUsed !== undefined) out.blobGasUsed = u64(b.blobGasUsed);
  if (b.excessBlobGas !== undefined) out.excessBlobGas = u64(b.excessBlobGas);
  if (b.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hex(b.parentBeaconBlockRoot);
  if (b.requestsHash !== undefined) out.requestsHash = hex(b.requestsHash);
  return out;
}
