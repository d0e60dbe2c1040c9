/**
 * The receipts datatype's rows: each receipt of a chunk's canonical blocks with its transaction and
 * the block's logs, read through the store reader, with the fields eth_getBlockReceipts derives
 * (cumulative gas, the logs' count and bloom) computed as it does; appended to SCHEMAS.receipts.
 */
import { logsBloom } from '../chain/bloom.js';
import type { BlockHeader, Log, Receipt, Transaction } from '../chain/types.js';
import { BoolColumn, BytesColumn, type ColumnData, TextColumn, U32Column, U64Column } from './columns.js';

/** The receipt columns of one chunk. */
export class ReceiptRows {
  private readonly number = new U32Column('block_number');
  private readonly blockHash: BytesColumn;
  private readonly index = new U32Column('transaction_index');
  private readonly hash: BytesColumn;
  private readonly type = new U32Column('transaction_type');
  private readonly from: BytesColumn;
  private readonly to: BytesColumn;
  private readonly contract: BytesColumn;
  private readonly success = new BoolColumn('success');
  private readonly root: BytesColumn;
  private readonly gasUsed = new U64Column('gas_used');
  private readonly cumulativeGas = new U64Column('cumulative_gas_used');
  private readonly gasPrice = new U64Column('effective_gas_price');
  private readonly blobGasUsed = new U64Column('blob_gas_used');
  private readonly blobGasPrice = new U64Column('blob_gas_price');
  private readonly logCount = new U32Column('n_logs');
  private readonly bloom: BytesColumn;
  private readonly chainIdColumn = new U64Column('chain_id');
  private readonly timestamp = new U32Column('block_timestamp');
  private readonly extra = new TextColumn('extra_fields');

  /** Columns of raw bytes, or of 0x-hex with `hex`; every row carries `chainId`. */
  constructor(
    hex: boolean,
    private readonly chainId: bigint,
  ) {
    const bytes = (name: string) => new BytesColumn(name, hex);
    this.blockHash = bytes('block_hash');
    this.hash = bytes('transaction_hash');
    this.from = bytes('from_address');
    this.to = bytes('to_address');
    this.contract = bytes('contract_address');
    this.root = bytes('root');
    this.bloom = bytes('logs_bloom');
  }

  /** Rows so far. */
  get rows(): number {
    return this.number.length;
  }

  /** Appends every receipt of the block with header `h`: transaction i is tx(i), `logs` the block's logs in order. */
  addBlock(h: BlockHeader, receipts: readonly Receipt[], tx: (i: number) => Transaction, logs: readonly Log[]): void {
    let cumulative = 0n;
    let log = 0;
    for (let i = 0; i < receipts.length; i++) {
      const receipt = receipts[i]!;
      const transaction = tx(i);
      cumulative += receipt.gasUsed;
      const first = log;
      while (log < logs.length && logs[log]!.txIndex === i) log++;
      this.number.push(h.number);
      this.blockHash.push(h.hash);
      this.index.push(i);
      this.hash.push(transaction.hash);
      this.type.push(transaction.type);
      this.from.push(transaction.from);
      this.to.pushOptional(transaction.to);
      this.contract.pushOptional(receipt.contractAddress);
      this.success.pushOptional(receipt.status === undefined ? undefined : receipt.status === 1);
      this.root.pushOptional(receipt.root);
      this.gasUsed.push(receipt.gasUsed);
      this.cumulativeGas.push(cumulative);
      this.gasPrice.push(receipt.effectiveGasPrice);
      this.blobGasUsed.pushOptional(receipt.blobGasUsed);
      this.blobGasPrice.pushOptional(receipt.blobGasPrice);
      this.logCount.push(log - first);
      this.bloom.push(logsBloom(logs.slice(first, log)));
      this.chainIdColumn.push(this.chainId);
      this.timestamp.push(h.timestamp);
      this.extra.pushOptional(receipt.extra === undefined ? undefined : '{' + receipt.extra + '}');
    }
  }

  /** The finished columns, in SCHEMAS.receipts order. */
  finish(): ColumnData[] {
    return [
      this.number.finish(),
      this.blockHash.finish(),
      this.index.finish(),
      this.hash.finish(),
      this.type.finish(),
      this.from.finish(),
      this.to.finish(),
      this.contract.finish(),
      this.success.finish(),
      this.root.finish(),
      this.gasUsed.finish(),
      this.cumulativeGas.finish(),
      this.gasPrice.finish(),
      this.blobGasUsed.finish(),
      this.blobGasPrice.finish(),
      this.logCount.finish(),
      this.bloom.finish(),
      this.chainIdColumn.finish(),
      this.timestamp.finish(),
      this.extra.finish(),
    ];
  }
}
