/**
 * The logs datatype's rows: a RecordRenderer the log engine's raw-record scan (logs/recordScan.ts)
 * hands each matching log to, which appends it to the columns of SCHEMAS.logs straight from the
 * stored record (topics and data words re-padded to their 32 bytes), no log object in between. The
 * columns that hold one value per block (number, hash, timestamp) or per chunk (chain id) are
 * dictionary columns: the value is written once, when its block starts (the scan hands logs over in
 * order), and each log adds only an index. The transaction index is one too, of its distinct values
 * (a few hundred at most), found by a table indexed by the value: its indices are then small and
 * repeat from block to block. The address and topic0 are dictionary columns of their distinct
 * values in the chunk (a few thousand addresses, about a thousand event signatures), found through
 * the record's own address table and topic dictionary (recordDictionary.ts): a value is looked up
 * once per block, not per log. The transaction hash stays plain: an entry per transaction gives
 * indices that rise by one at each, which zstd compresses worse than the repeated hash; topics 1 to
 * 3 too: tens of thousands of distinct values a chunk made their lookups cost more than the
 * compression they saved (docs/export.md).
 */
import type { RecordBlock, RecordLog, RecordRenderer } from '../render/recordLog.js';
import { BoolColumn, BytesColumn, type ColumnData, DictionaryColumn, U32Column, U64Column } from './columns.js';
import { RecordDictionary } from './recordDictionary.js';

/** Bytes of a topic and of a data word. */
const WORD = 32;

/**
 * Transaction indices the entry table first has room for: a block holds a few hundred transactions, so it rarely grows.
 */
const TX_INDEX_TABLE = 1024;

/**
 * Rows the columns make room for at first: a 1,000-block chunk holds about 100k logs at the
 * generator's default density (about 500k on mainnet), so a thread's first chunk grows its columns
 * at most three times instead of seven to ten. Room not yet written is not touched, so a chunk of
 * fewer logs costs no memory for it.
 */
const FIRST_CHUNK_ROWS = 1 << 17;

/** The log columns of one chunk, filled by the scan. */
export class LogRows implements RecordRenderer {
  private readonly blockNumber = new DictionaryColumn(new U32Column('block_number'), FIRST_CHUNK_ROWS);
  private readonly blockHash: DictionaryColumn<BytesColumn>;
  private readonly transactionIndex = new DictionaryColumn(new U32Column('transaction_index'), FIRST_CHUNK_ROWS);
  private readonly logIndex = new U32Column('log_index', FIRST_CHUNK_ROWS);
  private readonly transactionHash: BytesColumn;
  private readonly address: RecordDictionary;
  private readonly topic0: RecordDictionary;
  private readonly topics: BytesColumn[];
  private readonly data: BytesColumn;
  private readonly dataBytes = new U32Column('n_data_bytes', FIRST_CHUNK_ROWS);
  private readonly chainIdColumn = new DictionaryColumn(new U64Column('chain_id'), FIRST_CHUNK_ROWS);
  private readonly timestamp = new DictionaryColumn(new U32Column('block_timestamp'), FIRST_CHUNK_ROWS);
  private readonly removed = new BoolColumn('removed', FIRST_CHUNK_ROWS);
  /** The block of the last row (-1: none yet), whose dictionary entries the next row repeats when it is of the same. */
  private lastBlock = -1;
  /**
   * The transaction of the last row (-1: none in its block yet) and its hash: a transaction's logs are consecutive, so
   * its hash is looked up once.
   */
  private lastTx = -1;
  private lastTxHash: Uint8Array = new Uint8Array(0);
  /** The transaction_index entry of each transaction index seen in the chunk, + 1 (0: none yet). */
  private txIndexEntries = new Int32Array(TX_INDEX_TABLE);

  /** Columns of raw bytes, or of 0x-hex with `hex`; every row carries `chainId`. */
  constructor(
    private readonly hex: boolean,
    private readonly chainId: bigint,
  ) {
    this.blockHash = new DictionaryColumn(new BytesColumn('block_hash', hex), FIRST_CHUNK_ROWS);
    this.transactionHash = new BytesColumn('transaction_hash', hex, FIRST_CHUNK_ROWS);
    this.address = new RecordDictionary('address', hex, 'address', FIRST_CHUNK_ROWS);
    this.topic0 = new RecordDictionary('topic0', hex, 'topic', FIRST_CHUNK_ROWS);
    this.topics = [1, 2, 3].map((t) => new BytesColumn(`topic${t}`, hex, FIRST_CHUNK_ROWS));
    this.data = new BytesColumn('data', hex, FIRST_CHUNK_ROWS);
  }

  /**
   * Whether these columns are of raw bytes or 0x-hex as `hex` asks and carry `chainId`: so reset() makes them the
   * columns a new LogRows(hex, chainId) would be.
   */
  fits(hex: boolean, chainId: bigint): boolean {
    return this.hex === hex && this.chainId === chainId;
  }

  /** Forgets every row, keeping the columns' buffers, so a thread's next chunk does not grow them again. */
  reset(): void {
    for (const c of [
      this.blockNumber,
      this.blockHash,
      this.transactionIndex,
      this.logIndex,
      this.transactionHash,
      this.address,
      this.topic0,
      ...this.topics,
      this.data,
      this.dataBytes,
      this.chainIdColumn,
      this.timestamp,
      this.removed,
    ])
      c.reset();
    this.lastBlock = -1;
    this.lastTx = -1;
    this.txIndexEntries.fill(0);
  }

  /** Rows so far. */
  get rows(): number {
    return this.logIndex.length;
  }

  /** Appends one matched log of `block` (RecordRenderer). */
  render(raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void {
    if (block.number !== this.lastBlock) {
      if (this.lastBlock === -1) this.chainIdColumn.entries.push(this.chainId);
      this.blockNumber.entries.push(block.number);
      this.blockHash.entries.push(blockHash);
      this.timestamp.entries.push(timestamp);
      this.lastBlock = block.number;
      this.lastTx = -1;
      this.address.startBlock();
      this.topic0.startBlock();
    }
    this.blockNumber.repeat();
    this.blockHash.repeat();
    this.transactionIndex.pushEntry(this.txIndexEntry(log.txIndex));
    this.logIndex.push(log.logIndex);
    if (log.txIndex !== this.lastTx) {
      this.lastTx = log.txIndex;
      this.lastTxHash = block.txHash(log.txIndex);
    }
    this.transactionHash.push(this.lastTxHash);
    this.address.push(raw, log.addressIndex, log.addressOffset);
    if (log.topicCount > 0) this.topic0.push(raw, log.topicIndices[0]!, log.topicOffsets[0]!);
    else this.topic0.pushNull();
    for (let t = 1; t < 4; t++) {
      const column = this.topics[t - 1]!;
      if (t >= log.topicCount) {
        column.pushNull();
        continue;
      }
      const off = log.topicOffsets[t]!;
      column.row();
      column.word(raw, off + 1, raw[off]!);
      column.end();
    }
    this.data.row();
    if (!log.dataWords) {
      this.data.bytes(raw, log.dataStart, log.dataStart + log.dataLength);
    } else {
      for (let p = log.dataStart, w = 0; w < log.dataLength; w += WORD) {
        const len = raw[p]!;
        this.data.word(raw, p + 1, len);
        p += 1 + len;
      }
    }
    this.data.end();
    this.dataBytes.push(log.dataLength);
    this.chainIdColumn.repeat();
    this.timestamp.repeat();
    this.removed.push(false);
  }

  /** The transaction_index entry holding `txIndex`, pushed at its first use in the chunk. */
  private txIndexEntry(txIndex: number): number {
    if (txIndex >= this.txIndexEntries.length) {
      let size = this.txIndexEntries.length * 2;
      while (size <= txIndex) size *= 2;
      const next = new Int32Array(size);
      next.set(this.txIndexEntries);
      this.txIndexEntries = next;
    }
    const known = this.txIndexEntries[txIndex]!;
    if (known !== 0) return known - 1;
    this.transactionIndex.entries.push(txIndex);
    this.txIndexEntries[txIndex] = this.transactionIndex.entries.length;
    return this.transactionIndex.entries.length - 1;
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
      this.topic0.finish(),
      ...this.topics.map((c) => c.finish()),
      this.data.finish(),
      this.dataBytes.finish(),
      this.chainIdColumn.finish(),
      this.timestamp.finish(),
      this.removed.finish(),
    ];
  }
}
