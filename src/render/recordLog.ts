/**
 * What a scan of a raw logs record (logs/recordScan.ts) hands the log writers that render from the
 * record's bytes (logJson.ts, logProto.ts): the matched log as offsets into the record, and the
 * values of its block.
 */

/** The per-block values a rendered log carries (read lazily: only blocks with a match pay for them). */
export interface RecordBlock {
  number: number;
  /** The block's 32-byte hash. */
  hash(): Uint8Array;
  timestamp(): number;
  /** Transaction `i`'s 32-byte hash. */
  txHash(i: number): Uint8Array;
  /**
   * The record as a buffer the reads of hash(), timestamp() and txHash() leave intact, asked for at
   * the first match (a copy when the record is a view of the store's reusable read buffer, so a
   * block without a match is scanned in place); absent when the record is stable already.
   */
  keep?(raw: Buffer): Buffer;
}

/**
 * A matched log, as offsets into its raw record. scanRecord reuses one object from log to log: a
 * renderer reads it during render() and keeps nothing.
 */
export interface RecordLog {
  /** Position in the block. */
  logIndex: number;
  txIndex: number;
  /** Offset of the 20-byte address. */
  addressOffset: number;
  /** Index of the address in the record's address table (a block's addresses, each once). */
  addressIndex: number;
  /** How many topics the log has (at most 4). */
  topicCount: number;
  /** Per topic, the offset of its dictionary entry: a length byte, then the topic without leading zeros. */
  topicOffsets: Int32Array;
  /** Per topic, the index of that entry in the record's topic dictionary (a block's topics, each once). */
  topicIndices: Int32Array;
  /** Offset of the stored data. */
  dataStart: number;
  /** Length of the data once decoded. */
  dataLength: number;
  /** Whether the data is stored as 32-byte words, each a length byte then the word without leading zeros. */
  dataWords: boolean;
}

/** Renders the matches of a record scan into an output other than JSON text (protobuf messages: logProto.ts). */
export interface RecordRenderer {
  /** Renders one matched log of `block`, whose hash and timestamp are read once per block. */
  render(raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void;
}
