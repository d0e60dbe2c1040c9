/**
 * The blocks datatype's rows: each canonical header of a chunk, read through the store reader,
 * appended to the columns of SCHEMAS.blocks.
 */
import type { BlockHeader } from '../chain/types.js';
import { BytesColumn, type ColumnData, U32Column, U64Column, U256Columns } from './columns.js';

/** The block columns of one chunk. */
export class BlockRows {
  private readonly hash: BytesColumn;
  private readonly parentHash: BytesColumn;
  private readonly unclesHash: BytesColumn;
  private readonly author: BytesColumn;
  private readonly stateRoot: BytesColumn;
  private readonly transactionsRoot: BytesColumn;
  private readonly receiptsRoot: BytesColumn;
  private readonly number = new U32Column('block_number');
  private readonly gasUsed = new U64Column('gas_used');
  private readonly gasLimit = new U64Column('gas_limit');
  private readonly extraData: BytesColumn;
  private readonly logsBloom: BytesColumn;
  private readonly timestamp = new U32Column('timestamp');
  private readonly difficulty = new U64Column('difficulty');
  private readonly totalDifficulty: U256Columns;
  private readonly size = new U64Column('size');
  private readonly mixHash: BytesColumn;
  private readonly nonce: BytesColumn;
  private readonly baseFee = new U64Column('base_fee_per_gas');
  private readonly withdrawalsRoot: BytesColumn;
  private readonly chainIdColumn = new U64Column('chain_id');
  private readonly txCount = new U32Column('transaction_count');
  private readonly withdrawals = new U32Column('n_withdrawals');
  private readonly blobGasUsed = new U64Column('blob_gas_used');
  private readonly excessBlobGas = new U64Column('excess_blob_gas');
  private readonly beaconRoot: BytesColumn;
  private readonly requestsHash: BytesColumn;

  /** Columns of raw bytes, or of 0x-hex with `hex`; every row carries `chainId`. */
  constructor(
    hex: boolean,
    private readonly chainId: bigint,
  ) {
    const bytes = (name: string) => new BytesColumn(name, hex);
    this.hash = bytes('block_hash');
    this.parentHash = bytes('parent_hash');
    this.unclesHash = bytes('uncles_hash');
    this.author = bytes('author');
    this.stateRoot = bytes('state_root');
    this.transactionsRoot = bytes('transactions_root');
    this.receiptsRoot = bytes('receipts_root');
    this.extraData = bytes('extra_data');
    this.logsBloom = bytes('logs_bloom');
    this.totalDifficulty = new U256Columns('total_difficulty', hex);
    this.mixHash = bytes('mix_hash');
    this.nonce = bytes('nonce');
    this.withdrawalsRoot = bytes('withdrawals_root');
    this.beaconRoot = bytes('parent_beacon_block_root');
    this.requestsHash = bytes('requests_hash');
  }

  /** Rows so far. */
  get rows(): number {
    return this.number.length;
  }

  /** Appends one block. */
  add(h: BlockHeader): void {
    this.hash.push(h.hash);
    this.parentHash.push(h.parentHash);
    this.unclesHash.push(h.sha3Uncles);
    this.author.push(h.miner);
    this.stateRoot.push(h.stateRoot);
    this.transactionsRoot.push(h.transactionsRoot);
    this.receiptsRoot.push(h.receiptsRoot);
    this.number.push(h.number);
    this.gasUsed.push(h.gasUsed);
    this.gasLimit.push(h.gasLimit);
    this.extraData.push(h.extraData);
    this.logsBloom.push(h.logsBloom);
    this.timestamp.push(h.timestamp);
    this.difficulty.push(h.difficulty);
    this.totalDifficulty.push(h.totalDifficulty);
    this.size.push(h.size);
    this.mixHash.push(h.mixHash);
    this.nonce.push(h.nonce);
    this.baseFee.pushOptional(h.baseFeePerGas);
    this.withdrawalsRoot.pushOptional(h.withdrawalsRoot);
    this.chainIdColumn.push(this.chainId);
    this.txCount.push(h.txCount);
    if (h.withdrawals === undefined) this.withdrawals.pushNull();
    else this.withdrawals.push(h.withdrawals.length);
    this.blobGasUsed.pushOptional(h.blobGasUsed);
    this.excessBlobGas.pushOptional(h.excessBlobGas);
    this.beaconRoot.pushOptional(h.parentBeaconBlockRoot);
    this.requestsHash.pushOptional(h.requestsHash);
  }

  /** The finished columns, in SCHEMAS.blocks order. */
  finish(): ColumnData[] {
    return [
      this.hash.finish(),
      this.parentHash.finish(),
      this.unclesHash.finish(),
      this.author.finish(),
      this.stateRoot.finish(),
      this.transactionsRoot.finish(),
      this.receiptsRoot.finish(),
      this.number.finish(),
      this.gasUsed.finish(),
      this.gasLimit.finish(),
      this.extraData.finish(),
      this.logsBloom.finish(),
      this.timestamp.finish(),
      this.difficulty.finish(),
      ...this.totalDifficulty.finish(),
      this.size.finish(),
      this.mixHash.finish(),
      this.nonce.finish(),
      this.baseFee.finish(),
      this.withdrawalsRoot.finish(),
      this.chainIdColumn.finish(),
      this.txCount.finish(),
      this.withdrawals.finish(),
      this.blobGasUsed.finish(),
      this.excessBlobGas.finish(),
      this.beaconRoot.finish(),
      this.requestsHash.finish(),
    ];
  }
}
