/**
 * Domain types: chain data as the store keeps it (bytes, numbers, bigints), never wire hex.
 * Addresses are 20 bytes, hashes, topics and slots 32 bytes.
 */

/** A validator withdrawal (Shanghai and later). */
export interface Withdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  amount: bigint;
}

/** A block header with the fields every fork up to Prague carries; absent fork fields are undefined. */
export interface BlockHeader {
  number: number;
  hash: Uint8Array;
  parentHash: Uint8Array;
  sha3Uncles: Uint8Array;
  miner: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  totalDifficulty: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: number;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  uncles: Uint8Array[];
  size: number;
  txCount: number;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  withdrawals?: Withdrawal[];
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
  /**
   * The members of the node's block this header does not model (Arbitrum's l1BlockNumber, sendCount
   * and sendRoot, …), as the node gave them: JSON members text (`"name":value,…`, no braces).
   */
  extra?: string;
}

/** An EIP-2930 access list entry. */
export interface AccessListEntry {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** An EIP-7702 authorization tuple. */
export interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: number;
  r: bigint;
  s: bigint;
}

/** Transaction types 0 (legacy), 1 (EIP-2930), 2 (EIP-1559), 3 (EIP-4844 blob), 4 (EIP-7702 set-code). */
export type TxType = 0 | 1 | 2 | 3 | 4;

/** Whether ethlogd models transactions of `type` field by field (0-4); any other type is kept as the node gave it. */
export function isModelledTxType(type: number): type is TxType {
  return type >= 0 && type <= 4;
}

/** OP-stack deposit transactions (op-geth's DepositTxType). */
export const OP_DEPOSIT_TX_TYPE = 0x7e;

/**
 * A transaction; which optional fields are set depends on its type. A type ethlogd does not model
 * (OP-stack deposits, Arbitrum's types, any other: not 0-4) keeps the node's object in `extra` and
 * is served from it; its hash, from, to, nonce, gas, value, input and signature are read from that
 * object where present (zero where not), for receipts, exports and indexes.
 */
export interface Transaction {
  type: number;
  hash: Uint8Array;
  from: Uint8Array;
  to: Uint8Array | null;
  nonce: bigint;
  gas: bigint;
  value: bigint;
  input: Uint8Array;
  v: bigint;
  r: bigint;
  s: bigint;
  /** Types 0 (EIP-155 protected) and 1-4. */
  chainId?: bigint;
  /** Types 0 and 1. */
  gasPrice?: bigint;
  /** Types 2, 3, 4. */
  maxFeePerGas?: bigint;
  /** Types 2, 3, 4. */
  maxPriorityFeePerGas?: bigint;
  /** Types 1-4. */
  accessList?: AccessListEntry[];
  /** Type 3. */
  maxFeePerBlobGas?: bigint;
  /** Type 3. */
  blobVersionedHashes?: Uint8Array[];
  /** Type 4. */
  authorizationList?: Authorization[];
  /**
   * A type not modelled (not 0-4): every member of the node's object but the position fields
   * (blockHash, blockNumber, blockTimestamp, transactionIndex), as the node gave them, as JSON
   * members text (`"name":value,…`, no braces). Never set on types 0-4.
   */
  extra?: string;
}

/** A log as stored: its position in the block is its index in the block's log list. */
export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  txIndex: number;
}

/**
 * A log where a query found it: its block and position (null for a log of the pending block) and
 * whether a reorganisation removed its block.
 */
export interface LogEntry {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  blockNumber: number | null;
  blockHash: Uint8Array | null;
  blockTimestamp: number | null;
  transactionHash: Uint8Array | null;
  transactionIndex: number | null;
  logIndex: number | null;
  removed: boolean;
}

/** One storage slot's new value, written by a block. */
export interface StorageWrite {
  address: Uint8Array;
  slot: Uint8Array;
  value: Uint8Array;
}

/**
 * What a transaction's receipt adds to the transaction and its logs: the outcome of its execution.
 * The rest of a receipt is derived where it is served: cumulativeGasUsed (the running sum of gasUsed
 * in the block), logsBloom (the bloom of its logs), the logs themselves and the positions.
 */
export interface Receipt {
  /** 1 when it succeeded, 0 when it reverted; absent before Byzantium, where `root` is set instead. */
  status?: 0 | 1;
  /** The post-transaction state root of a pre-Byzantium receipt (32 bytes). */
  root?: Uint8Array;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  /** The created contract of a creation that succeeded; null otherwise. */
  contractAddress: Uint8Array | null;
  /** Blob transactions (type 3) only. */
  blobGasUsed?: bigint;
  /** Blob transactions (type 3) only: the block's blob base fee. */
  blobGasPrice?: bigint;
  /**
   * Members of the node's receipt beyond the modelled ones (OP's L1 fee fields and deposit nonce,
   * Arbitrum's gasUsedForL1 and l1BlockNumber, …), and for a transaction type not modelled also those
   * whose value differs from the modelled rendering: JSON members text, served over the modelled ones.
   */
  extra?: string;
}

/**
 * A whole block as the writer appends it: header, transactions and their receipts in order, logs in order, storage
 * writes.
 */
export interface BlockBundle {
  header: BlockHeader;
  transactions: Transaction[];
  /** One per transaction, in the same order. */
  receipts: Receipt[];
  logs: Log[];
  storage: StorageWrite[];
}

/** The block tags (docs/api.md §3 defines what each resolves to). */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

/** A block named by tag, by number, or (EIP-1898) by hash. */
export type BlockId = { tag: BlockTag } | { number: number } | { hash: Uint8Array; requireCanonical: boolean };

/** Chain-level markers kept in the store's meta database. */
export interface ChainMeta {
  chainId: bigint;
  earliest: number;
  head: number;
  safe: number;
  finalized: number;
}
