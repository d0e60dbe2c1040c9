/**
 * The transactions datatype's rows: each canonical transaction of a chunk with its receipt and its
 * block's header, read through the store reader, appended to the columns of SCHEMAS.transactions.
 */
import { effectiveGasPrice } from '../chain/gasPrice.js';
import { encodeTransaction } from '../chain/txEncoding.js';
import type { BlockHeader, Receipt, Transaction } from '../chain/types.js';
import { BoolColumn, BytesColumn, type ColumnData, TextColumn, U32Column, U64Column, U256Columns } from './columns.js';

/**
 * The signature's y parity: typed transactions store it as v; legacy ones as 27/28, or 35 + 2·chainId + parity
 * (EIP-155).
 */
function yParity(tx: Transaction): boolean {
  if (tx.type !== 0) return tx.v === 1n;
  return tx.v <= 28n ? tx.v === 28n : (tx.v - 35n) % 2n === 1n;
}

/** Zero bytes in `bytes`. */
function zeroBytes(bytes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0) n++;
  return n;
}

/** The transaction columns of one chunk. */
export class TransactionRows {
  private readonly number = new U32Column('block_number');
  private readonly index = new U64Column('transaction_index');
  private readonly hash: BytesColumn;
  private readonly nonce = new U64Column('nonce');
  private readonly from: BytesColumn;
  private readonly to: BytesColumn;
  private readonly value: U256Columns;
  private readonly input: BytesColumn;
  private readonly gasLimit = new U64Column('gas_limit');
  private readonly gasUsed = new U64Column('gas_used');
  private readonly gasPrice = new U64Column('gas_price');
  private readonly type = new U32Column('transaction_type');
  private readonly maxPriorityFee = new U64Column('max_priority_fee_per_gas');
  private readonly maxFee = new U64Column('max_fee_per_gas');
  private readonly success = new BoolColumn('success');
  private readonly inputBytes = new U32Column('n_input_bytes');
  private readonly inputZeros = new U32Column('n_input_zero_bytes');
  private readonly inputNonZeros = new U32Column('n_input_nonzero_bytes');
  private readonly rlpBytes = new U32Column('n_rlp_bytes');
  private readonly blockHash: BytesColumn;
  private readonly chainIdColumn = new U64Column('chain_id');
  private readonly timestamp = new U32Column('timestamp');
  private readonly r: BytesColumn;
  private readonly s: BytesColumn;
  private readonly v = new BoolColumn('v');
  private readonly maxBlobFee = new U64Column('max_fee_per_blob_gas');
  private readonly blobHashes: BytesColumn;
  private readonly authorizations = new U32Column('n_authorizations');
  private readonly extra = new TextColumn('extra_fields');

  /** Columns of raw bytes, or of 0x-hex with `hex`; every row carries `chainId`. */
  constructor(
    hex: boolean,
    private readonly chainId: bigint,
  ) {
    const bytes = (name: string) => new BytesColumn(name, hex);
    this.hash = bytes('transaction_hash');
    this.from = bytes('from_address');
    this.to = bytes('to_address');
    this.value = new U256Columns('value', hex);
    this.input = bytes('input');
    this.blockHash = bytes('block_hash');
    this.r = bytes('r');
    this.s = bytes('s');
    this.blobHashes = bytes('blob_versioned_hashes');
  }

  /** Rows so far. */
  get rows(): number {
    return this.number.length;
  }

  /** Appends transaction `index` of the block with header `h`, with its receipt. */
  add(h: BlockHeader, index: number, tx: Transaction, receipt: Receipt): void {
    this.number.push(h.number);
    this.index.push(index);
    this.hash.push(tx.hash);
    this.nonce.push(tx.nonce);
    this.from.push(tx.from);
    this.to.pushOptional(tx.to);
    this.value.push(tx.value);
    this.input.push(tx.input);
    this.gasLimit.push(tx.gas);
    this.gasUsed.push(receipt.gasUsed);
    // A type not modelled has no fee fields of its own: its receipt's price is the node's.
    this.gasPrice.push(tx.extra === undefined ? effectiveGasPrice(tx, h.baseFeePerGas) : receipt.effectiveGasPrice);
    this.type.push(tx.type);
    this.maxPriorityFee.pushOptional(tx.maxPriorityFeePerGas);
    this.maxFee.pushOptional(tx.maxFeePerGas);
    this.success.pushOptional(receipt.status === undefined ? undefined : receipt.status === 1);
    const zeros = zeroBytes(tx.input);
    this.inputBytes.push(tx.input.length);
    this.inputZeros.push(zeros);
    this.inputNonZeros.push(tx.input.length - zeros);
    if (tx.extra === undefined) this.rlpBytes.push(encodeTransaction(tx).length);
    else this.rlpBytes.pushNull();
    this.blockHash.push(h.hash);
    this.chainIdColumn.push(this.chainId);
    this.timestamp.push(h.timestamp);
    this.r.pushWord(tx.r);
    this.s.pushWord(tx.s);
    this.v.push(yParity(tx));
    this.maxBlobFee.pushOptional(tx.maxFeePerBlobGas);
    if (tx.blobVersionedHashes === undefined) {
      this.blobHashes.pushNull();
    } else {
      this.blobHashes.row();
      for (const hash of tx.blobVersionedHashes) this.blobHashes.bytes(hash);
      this.blobHashes.end();
    }
    if (tx.authorizationList === undefined) this.authorizations.pushNull();
    else this.authorizations.push(tx.authorizationList.length);
    this.extra.pushOptional(tx.extra === undefined ? undefined : '{' + tx.extra + '}');
  }

  /** The finished columns, in SCHEMAS.transactions order. */
  finish(): ColumnData[] {
    return [
      this.number.finish(),
      this.index.finish(),
      this.hash.finish(),
      this.nonce.finish(),
      this.from.finish(),
      this.to.finish(),
      ...this.value.finish(),
      this.input.finish(),
      this.gasLimit.finish(),
      this.gasUsed.finish(),
      this.gasPrice.finish(),
      this.type.finish(),
      this.maxPriorityFee.finish(),
      this.maxFee.finish(),
      this.success.finish(),
      this.inputBytes.finish(),
      this.inputZeros.finish(),
      this.inputNonZeros.finish(),
      this.rlpBytes.finish(),
      this.blockHash.finish(),
      this.chainIdColumn.finish(),
      this.timestamp.finish(),
      this.r.finish(),
      this.s.finish(),
      this.v.finish(),
      this.maxBlobFee.finish(),
      this.blobHashes.finish(),
      this.authorizations.finish(),
      this.extra.finish(),
    ];
  }
}
