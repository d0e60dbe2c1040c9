/**
 * A chunk's dictionary column of values that logs take from their block's raw logs record
 * (store/logsRecord.ts): addresses from the record's address table, topics from its topic
 * dictionary. A record lists each of its block's values once and a log names them by index, so a
 * value is looked up in the chunk's dictionary (by its stored bytes) once per block, at its first
 * use, and the block's other logs reuse that entry through the record's own index.
 */
import { ByteKeys } from './byteKeys.js';
import { BytesColumn, type ColumnData, DictionaryColumn } from './columns.js';

/** Bytes of an address. */
const ADDRESS = 20;

/**
 * Record indices the per-block memo first has room for: a block's address table or topic dictionary rarely holds more.
 */
const MEMO_SIZE = 256;

/** How a record stores the column's values. */
export type StoredValue = 'address' | 'topic';

/** A dictionary column filled from raw records, one block after another. */
export class RecordDictionary {
  private readonly column: DictionaryColumn<BytesColumn>;
  /** Each value's entry, numbered by its stored bytes. */
  private readonly entryOf = new ByteKeys();
  /** Per record index: the entry it was found to be in the block whose stamp it carries. */
  private memo = new Int32Array(MEMO_SIZE);
  private stamps = new Int32Array(MEMO_SIZE);
  /** The current block's stamp (never 0, the stamp of an index not looked up yet). */
  private block = 1;

  /**
   * A column called `name` of the values `stored` says, as raw bytes or, with `hex`, 0x-hex text, with room for `rows`
   * rows before it grows.
   */
  constructor(
    name: string,
    hex: boolean,
    private readonly stored: StoredValue,
    rows: number,
  ) {
    this.column = new DictionaryColumn(new BytesColumn(name, hex), rows);
  }

  /** Starts the rows of another block (its record's indices name other values). */
  startBlock(): void {
    this.block++;
  }

  /**
   * Appends a row holding the value of record index `index`, stored at `offset` of `raw` (an address; a topic: its
   * length byte, then its bytes without leading zeros).
   */
  push(raw: Buffer, index: number, offset: number): void {
    if (index >= this.memo.length) this.growMemo(index);
    let entry: number;
    if (this.stamps[index] === this.block) {
      entry = this.memo[index]!;
    } else {
      entry = this.entry(raw, offset);
      this.memo[index] = entry;
      this.stamps[index] = this.block;
    }
    this.column.pushEntry(entry);
  }

  /** Appends a null. */
  pushNull(): void {
    this.column.pushNull();
  }

  /** The entry of the value at `offset` of `raw`, added to the dictionary at its first use in the chunk. */
  private entry(raw: Buffer, offset: number): number {
    const end = this.stored === 'address' ? offset + ADDRESS : offset + 1 + raw[offset]!;
    const entries = this.column.entries;
    const entry = this.entryOf.add(raw, offset, end);
    if (entry < entries.length) return entry;
    entries.row();
    if (this.stored === 'address') entries.bytes(raw, offset, end);
    else entries.word(raw, offset + 1, end - offset - 1);
    entries.end();
    return entry;
  }

  private growMemo(index: number): void {
    let size = this.memo.length * 2;
    while (size <= index) size *= 2;
    const memo = new Int32Array(size);
    memo.set(this.memo);
    const stamps = new Int32Array(size);
    stamps.set(this.stamps);
    this.memo = memo;
    this.stamps = stamps;
  }

  /** Forgets every row and entry, keeping the buffers (a builder reused for the next chunk). */
  reset(): void {
    this.column.reset();
    this.entryOf.clear();
    this.block++;
  }

  /** The finished column. */
  finish(): ColumnData {
    return this.column.finish();
  }
}
