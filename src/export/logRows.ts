/**
 * The logs datatype's rows: a RecordRenderer the log engine's raw-record scan (logs/recordScan.ts)
 * hands each matching log to, which appends it to the columns of SCHEMAS.logs straight from the
 * stored record (topics and data words re-padded to their 32 bytes), no log object in between.
 */
import type { RecordBlock, RecordLog, RecordRenderer } from '../render/recordLog.js';
import { BoolColumn, BytesColumn, U32Column, U64Column, type ColumnData } from './columns.js';

/** Bytes of a topic and of a data word. */
const WORD = 32;

/** The log columns of one chunk, filled by the scan. */
export class LogRows implements RecordRenderer {
  private readonly blockNumber = new U32Column('block_number');
  private readonly blockHash: BytesColumn;
  private readonly transactionIndex = new U32Column('transaction_index');
  private readonly logIndex = new U32Column('log_index');
  private readonly transactionHash: BytesColumn;
  private readonly address: BytesColumn;
  private readonly topics: BytesColumn[];
  private readonly data: BytesColumn;
  private readonly dataBytes = new U32Column('n_data_bytes');
  private readonly chainIdColumn = new U64Column('chain_id');
  private readonly timestamp = new U32Column('block_timestamp');
  private readonly removed = new BoolColumn('removed');

  /** Columns of raw bytes, or of 0x-hex with `hex`; every row carries `chainId`. */
  constructor(
    private readonly hex: boolean,
    private readonly chainId: bigint,
  ) {
    this.blockHash = new BytesColumn('block_hash', hex);
    this.transactionHash = new BytesColumn('transaction_hash', hex);
    this.address = new BytesColumn('address', hex);
    this.topics = [0, 1, 2, 3].map((t) => new BytesColumn(`topic${t}`, hex));
    this.data = new BytesColumn('data', hex);
  }

  /** Whether these columns are of raw bytes or 0x-hex as `hex` asks and carry `chainId`: so reset() makes them the columns a new LogRows(hex, chainId) would be. */
  fits(hex: boolean, chainId: bigint): boolean {
    return this.hex === hex && this.chainId === chainId;
  }

  /** Forgets every row, keeping the columns' buffers, so a thread's next chunk does not grow them again. */
  reset(): void {
    for (const c of [this.blockNumber, this.blockHash, this.transactionIndex, this.logIndex, this.transactionHash, this.address, ...this.topics, this.data, this.dataBytes, this.chainIdColumn, this.timestamp, this.removed]) c.reset();
  }

  /** Rows so far. */
  get rows(): number {
    return this.blockNumber.length;
  }

  /** Appends one matched log of `block` (RecordRenderer). */
  render(raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void {
    this.blockNumber.push(block.number);
    this.blockHash.push(blockHash);
    this.transactionIndex.push(log.txIndex);
    this.logIndex.push(log.logIndex);
    this.transactionHash.push(block.txHash(log.txIndex));
    this.address.row();
    this.address.bytes(raw, log.addressOffset, log.addressOffset + 20);
    this.address.end();
    for (let t = 0; t < 4; t++) {
      const column = this.topics[t]!;
      if (t >= log.topicCount) {
        column.pushNull();
        continue;
      }
      const off = log.topicOffsets[t]!;
      const len = raw[off]!;
      column.row();
      column.zeros(WORD - len);
      column.bytes(raw, off + 1, off + 1 + len);
      column.end();
    }
    this.data.row();
    if (!log.dataWords) {
      this.data.bytes(raw, log.dataStart, log.dataStart + log.dataLength);
    } else {
      for (let p = log.dataStart, w = 0; w < log.dataLength; w += WORD) {
        const len = raw[p]!;
        this.data.zeros(WORD - len);
        this.data.bytes(raw, p + 1, p + 1 + len);
        p += 1 + len;
      }
    }
    this.data.end();
    this.dataBytes.push(log.dataLength);
    this.chainIdColumn.push(this.chainId);
    this.timestamp.push(timestamp);
    this.removed.push(false);
  }

  /** The finished columns, in SCHEMAS.logs order. */
  finish(): ColumnData[] {
    return [
      this.blockNumber.finish(),
      this.blockHash.finish(),
      this.transactionIndex.finish(),
      this.logIndex.finish(),
      this.transactionHash.finish(),
      this.address.finish(),
      ...this.topics.map((c) => c.finish()),
      this.data.finish(),
      this.dataBytes.finish(),
      this.chainIdColumn.finish(),
      this.timestamp.finish(),
      this.removed.finish(),
    ];
  }
}
