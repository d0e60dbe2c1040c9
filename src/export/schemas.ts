/**
 * The columns of each exported datatype, in file order: cryo's names and types (its datasets'
 * column structs, every column of the dataset), then the columns the store has and cryo lacks
 * (marked `extra`). docs/export.md tables them; the row builders write exactly these.
 */

/** The datatypes `export` writes; cryo has no receipts dataset, so that one is ethlogd's, in cryo's conventions. */
export const EXPORT_KINDS = ['logs', 'blocks', 'transactions', 'receipts'] as const;

/** One of EXPORT_KINDS. */
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Whether `name` is one of EXPORT_KINDS. */
export function isExportKind(name: string): name is ExportKind {
  return (EXPORT_KINDS as readonly string[]).includes(name);
}

/** A column's type as documented: `bytes` is Parquet binary, or 0x-hex text with --hex. */
export type SchemaType = 'u32' | 'u64' | 'f64' | 'bool' | 'bytes' | 'string';

/** One column of a datatype. */
export interface SchemaColumn {
  name: string;
  type: SchemaType;
  /** What it holds, one line. */
  meaning: string;
  /** A column of the store that cryo's dataset does not have. */
  extra?: true;
}

/** The three columns cryo writes for a 256-bit value `name` (binary, decimal text, nearest double). */
function u256(name: string, meaning: string): SchemaColumn[] {
  return [
    { name: `${name}_binary`, type: 'bytes', meaning: `${meaning}, 32 bytes big-endian` },
    { name: `${name}_string`, type: 'string', meaning: `${meaning}, in decimal` },
    { name: `${name}_f64`, type: 'f64', meaning: `${meaning}, the nearest double` },
  ];
}

const CHAIN_ID: SchemaColumn = { name: 'chain_id', type: 'u64', meaning: "the store's chain id" };

const EXTRA_FIELDS_TX: SchemaColumn = {
  name: 'extra_fields',
  type: 'string',
  meaning:
    "a type not modelled (OP deposit 0x7e, Arbitrum's, …): the node's transaction as a JSON object, " +
    'positions aside; null otherwise',
  extra: true,
};

/** The columns of each datatype, in file order. */
export const SCHEMAS: Record<ExportKind, readonly SchemaColumn[]> = {
  logs: [
    { name: 'block_number', type: 'u32', meaning: 'number of the block' },
    { name: 'block_hash', type: 'bytes', meaning: 'hash of the block' },
    { name: 'transaction_index', type: 'u32', meaning: "index of the log's transaction in the block" },
    { name: 'log_index', type: 'u32', meaning: 'index of the log in the block' },
    { name: 'transaction_hash', type: 'bytes', meaning: "hash of the log's transaction" },
    { name: 'address', type: 'bytes', meaning: 'the emitting contract (20 bytes)' },
    { name: 'topic0', type: 'bytes', meaning: 'first topic (32 bytes); null when the log has none' },
    { name: 'topic1', type: 'bytes', meaning: 'second topic; null when absent' },
    { name: 'topic2', type: 'bytes', meaning: 'third topic; null when absent' },
    { name: 'topic3', type: 'bytes', meaning: 'fourth topic; null when absent' },
    { name: 'data', type: 'bytes', meaning: 'the non-indexed data' },
    { name: 'n_data_bytes', type: 'u32', meaning: 'length of data in bytes' },
    CHAIN_ID,
    { name: 'block_timestamp', type: 'u32', meaning: 'timestamp of the block (seconds)', extra: true },
    { name: 'removed', type: 'bool', meaning: 'false: the export reads canonical blocks only', extra: true },
  ],
  blocks: [
    { name: 'block_hash', type: 'bytes', meaning: 'hash of the block' },
    { name: 'parent_hash', type: 'bytes', meaning: 'hash of the parent block' },
    { name: 'uncles_hash', type: 'bytes', meaning: 'sha3Uncles: hash of the ommers list' },
    { name: 'author', type: 'bytes', meaning: 'miner / fee recipient (20 bytes)' },
    { name: 'state_root', type: 'bytes', meaning: 'state trie root' },
    { name: 'transactions_root', type: 'bytes', meaning: 'transactions trie root' },
    { name: 'receipts_root', type: 'bytes', meaning: 'receipts trie root' },
    { name: 'block_number', type: 'u32', meaning: 'number of the block' },
    { name: 'gas_used', type: 'u64', meaning: 'gas used by the transactions' },
    { name: 'gas_limit', type: 'u64', meaning: 'gas limit' },
    { name: 'extra_data', type: 'bytes', meaning: 'extra data' },
    { name: 'logs_bloom', type: 'bytes', meaning: 'the 256-byte logs bloom' },
    { name: 'timestamp', type: 'u32', meaning: 'timestamp (seconds)' },
    { name: 'difficulty', type: 'u64', meaning: 'difficulty (low 64 bits)' },
    ...u256('total_difficulty', 'total difficulty'),
    { name: 'size', type: 'u64', meaning: 'size of the RLP-encoded block in bytes' },
    { name: 'mix_hash', type: 'bytes', meaning: 'mix hash (prevRandao since the merge)' },
    { name: 'nonce', type: 'bytes', meaning: 'the 8-byte nonce' },
    { name: 'base_fee_per_gas', type: 'u64', meaning: 'base fee per gas (London on); null before' },
    { name: 'withdrawals_root', type: 'bytes', meaning: 'withdrawals trie root (Shanghai on); null before' },
    CHAIN_ID,
    { name: 'transaction_count', type: 'u32', meaning: 'number of transactions', extra: true },
    { name: 'n_withdrawals', type: 'u32', meaning: 'number of withdrawals (Shanghai on); null before', extra: true },
    { name: 'blob_gas_used', type: 'u64', meaning: 'blob gas used (Cancun on); null before', extra: true },
    { name: 'excess_blob_gas', type: 'u64', meaning: 'excess blob gas (Cancun on); null before', extra: true },
    {
      name: 'parent_beacon_block_root',
      type: 'bytes',
      meaning: 'parent beacon block root (Cancun on); null before',
      extra: true,
    },
    { name: 'requests_hash', type: 'bytes', meaning: 'execution requests hash (Prague on); null before', extra: true },
  ],
  transactions: [
    { name: 'block_number', type: 'u32', meaning: 'number of the block' },
    { name: 'transaction_index', type: 'u64', meaning: 'index in the block' },
    { name: 'transaction_hash', type: 'bytes', meaning: 'hash of the transaction' },
    { name: 'nonce', type: 'u64', meaning: "sender's nonce" },
    { name: 'from_address', type: 'bytes', meaning: 'sender (20 bytes)' },
    { name: 'to_address', type: 'bytes', meaning: 'recipient; null for a contract creation' },
    ...u256('value', 'value transferred in wei'),
    { name: 'input', type: 'bytes', meaning: 'call data' },
    { name: 'gas_limit', type: 'u64', meaning: 'gas limit of the transaction' },
    { name: 'gas_used', type: 'u64', meaning: "gas used (the receipt's)" },
    {
      name: 'gas_price',
      type: 'u64',
      meaning: 'price paid per gas: gasPrice, or base fee + min(priority fee, max fee − base fee)',
    },
    {
      name: 'transaction_type',
      type: 'u32',
      meaning: "EIP-2718 type: 0 to 4, or another chain's (0x7e an OP deposit, 0x64-0x6a and 0x78 Arbitrum's)",
    },
    { name: 'max_priority_fee_per_gas', type: 'u64', meaning: 'types 2 to 4; null otherwise' },
    { name: 'max_fee_per_gas', type: 'u64', meaning: 'types 2 to 4; null otherwise' },
    {
      name: 'success',
      type: 'bool',
      meaning: "the receipt's status is 1; null for a pre-Byzantium receipt (a root, no status)",
    },
    { name: 'n_input_bytes', type: 'u32', meaning: 'length of input' },
    { name: 'n_input_zero_bytes', type: 'u32', meaning: 'zero bytes in input' },
    { name: 'n_input_nonzero_bytes', type: 'u32', meaning: 'non-zero bytes in input' },
    {
      name: 'n_rlp_bytes',
      type: 'u32',
      meaning: 'length of the EIP-2718 encoding; null for a type kept as its node gave it (not 0 to 4)',
    },
    { name: 'block_hash', type: 'bytes', meaning: 'hash of the block' },
    CHAIN_ID,
    { name: 'timestamp', type: 'u32', meaning: 'timestamp of the block (seconds)' },
    { name: 'r', type: 'bytes', meaning: 'signature r, 32 bytes big-endian' },
    { name: 's', type: 'bytes', meaning: 'signature s, 32 bytes big-endian' },
    { name: 'v', type: 'bool', meaning: 'signature y parity (true: odd)' },
    { name: 'max_fee_per_blob_gas', type: 'u64', meaning: 'type 3; null otherwise', extra: true },
    {
      name: 'blob_versioned_hashes',
      type: 'bytes',
      meaning: 'type 3: the versioned hashes, 32 bytes each, concatenated; null otherwise',
      extra: true,
    },
    {
      name: 'n_authorizations',
      type: 'u32',
      meaning: 'type 4: length of the authorization list; null otherwise',
      extra: true,
    },
    EXTRA_FIELDS_TX,
  ],
  receipts: [
    { name: 'block_number', type: 'u32', meaning: 'number of the block' },
    { name: 'block_hash', type: 'bytes', meaning: 'hash of the block' },
    { name: 'transaction_index', type: 'u32', meaning: 'index of the transaction in the block' },
    { name: 'transaction_hash', type: 'bytes', meaning: 'hash of the transaction' },
    {
      name: 'transaction_type',
      type: 'u32',
      meaning: "EIP-2718 type: 0 to 4, or another chain's (0x7e an OP deposit, 0x64-0x6a and 0x78 Arbitrum's)",
    },
    { name: 'from_address', type: 'bytes', meaning: 'sender (20 bytes)' },
    { name: 'to_address', type: 'bytes', meaning: 'recipient; null for a contract creation' },
    { name: 'contract_address', type: 'bytes', meaning: 'the created contract; null unless a creation that succeeded' },
    { name: 'success', type: 'bool', meaning: 'status: true 1, false 0; null before Byzantium (see root)' },
    { name: 'root', type: 'bytes', meaning: 'post-transaction state root of a pre-Byzantium receipt; null after' },
    { name: 'gas_used', type: 'u64', meaning: 'gas used by the transaction' },
    { name: 'cumulative_gas_used', type: 'u64', meaning: 'gas used by the block up to and including it' },
    { name: 'effective_gas_price', type: 'u64', meaning: 'price paid per gas' },
    { name: 'blob_gas_used', type: 'u64', meaning: 'type 3; null otherwise' },
    { name: 'blob_gas_price', type: 'u64', meaning: "type 3: the block's blob base fee; null otherwise" },
    { name: 'n_logs', type: 'u32', meaning: 'logs the transaction emitted' },
    { name: 'logs_bloom', type: 'bytes', meaning: "the 256-byte bloom of the transaction's logs" },
    CHAIN_ID,
    { name: 'block_timestamp', type: 'u32', meaning: 'timestamp of the block (seconds)' },
    {
      name: 'extra_fields',
      type: 'string',
      meaning:
        "the node's receipt fields beyond these, as a JSON object (OP's l1Fee, l1GasPrice, l1GasUsed, …, " +
        "depositNonce; Arbitrum's gasUsedForL1, l1BlockNumber); null when none",
      extra: true,
    },
  ],
};
