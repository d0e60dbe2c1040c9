/**
 * Logs as JSON written straight from their raw record's bytes (the engine's path: the pool's
 * workers and the inline scans); the reference rendering from a decoded log is format.ts's
 * renderLogJson, and the test of log representations keeps the two, the protobuf and the CSV
 * forms equal (see logFields.ts).
 *
 * Most of a log's JSON repeats within its block: its address line is that of every log of the same
 * contract, its topics come from the block's topic dictionary, and everything after its data but
 * the log index is the same for every log of its transaction. LogJsonBlock renders each of those
 * pieces where a match first needs it and remembers where it wrote it; a later log of the block
 * copies it from there (one native copy within the output), so a log is a few copies, its data's
 * hex digits and its log index.
 */
import { ascii } from '../chain/asciiHex.js';
import type { JsonWriter } from './jsonWriter.js';
import type { RecordBlock, RecordLog } from './recordLog.js';

const OPEN = ascii('{"address":"0x');
const TOPICS = ascii('","topics":[');
const DATA = ascii('],"data":"0x');
const NUMBER = ascii('","blockNumber":"0x');
const TX_HASH = ascii('","transactionHash":"0x');
const TX_INDEX = ascii('","transactionIndex":"0x');
const BLOCK_HASH = ascii('","blockHash":"0x');
const TIMESTAMP = ascii('","blockTimestamp":"0x');
const LOG_INDEX = ascii('","logIndex":"0x');
const CLOSE = ascii('","removed":false}');
const QUOTE_0X = ascii('"0x');
const QUOTE = 0x22;
const COMMA = 0x2c;

/** Bytes of an address line: `{"address":"0x`, 40 digits, `","topics":[`. */
const ADDRESS_LINE = OPEN.length + 40 + TOPICS.length;

/** Bytes of a rendered topic: `"0x`, 64 digits, `"`. */
const TOPIC = QUOTE_0X.length + 64 + 1;

/** Where a piece starts in the output; NONE while it is not written in this block. */
const NONE = -1;

/** `array` when it holds `size` entries, else a larger one; the entries are not kept. */
function atLeast(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  return array.length >= size ? array : new Int32Array(Math.max(size, 2 * array.length));
}

/**
 * The JSON writer of one block's matched logs: begin() at the block's first match, then write() for
 * each match in order, all into the same output, which must keep what it holds until the block
 * ends (its pieces are copied from there). A thread's scans run one at a time, so one instance
 * serves them all.
 */
export class LogJsonBlock {
  /** Per address of the block's table, where its address line starts in the output. */
  private addressAt = new Int32Array(64);
  /** Per topic of the block's dictionary, where its rendering starts. */
  private topicAt = new Int32Array(256);
  /** Per transaction index, where its tail (block number ... the log index's `0x`) starts, and its length. */
  private txAt = new Int32Array(512);
  private txLength = new Int32Array(512);
  /**
   * Where the block-wide parts of a tail were first written: before its transaction hash, and after its index ([start,
   * length]).
   */
  private readonly beforeTxHash = [NONE, 0];
  private readonly afterTxIndex = [NONE, 0];
  private block: RecordBlock | undefined;
  private blockHash: Uint8Array | undefined;
  private timestamp = 0;

  /**
   * Starts block `block` (its hash and timestamp as read), whose record has `addresses` entries in
   * its address table and `topics` in its topic dictionary.
   */
  begin(block: RecordBlock, blockHash: Uint8Array, timestamp: number, addresses: number, topics: number): void {
    this.block = block;
    this.blockHash = blockHash;
    this.timestamp = timestamp;
    this.addressAt = atLeast(this.addressAt, addresses);
    this.addressAt.fill(NONE, 0, addresses);
    this.topicAt = atLeast(this.topicAt, topics);
    this.topicAt.fill(NONE, 0, topics);
    // The transaction table grows as higher indexes come (tail).
    this.txAt.fill(NONE);
    this.beforeTxHash[0] = NONE;
    this.afterTxIndex[0] = NONE;
  }

  /** Writes one matched log of the current block's record `raw` (the fields of LOG_FIELDS, in their order). */
  write(out: JsonWriter, raw: Buffer, log: RecordLog): void {
    const address = this.addressAt[log.addressIndex]!;
    if (address !== NONE) out.repeat(address, ADDRESS_LINE);
    else {
      this.addressAt[log.addressIndex] = out.length;
      out.bytes(OPEN);
      out.hex(raw, log.addressOffset, log.addressOffset + 20);
      out.bytes(TOPICS);
    }
    for (let t = 0; t < log.topicCount; t++) {
      if (t > 0) out.byte(COMMA);
      const index = log.topicIndices[t]!;
      const topic = this.topicAt[index]!;
      if (topic !== NONE) out.repeat(topic, TOPIC);
      else {
        this.topicAt[index] = out.length;
        const offset = log.topicOffsets[t]!;
        const len = raw[offset]!;
        out.bytes(QUOTE_0X);
        out.zeros(64 - 2 * len);
        out.hex(raw, offset + 1, offset + 1 + len);
        out.byte(QUOTE);
      }
    }
    out.bytes(DATA);
    if (!log.dataWords) out.hex(raw, log.dataStart, log.dataStart + log.dataLength);
    else out.wordsHex(raw, log.dataStart, log.dataLength);
    const tx = log.txIndex;
    if (tx < this.txAt.length && this.txAt[tx] !== NONE) out.repeat(this.txAt[tx]!, this.txLength[tx]!);
    else this.tail(out, tx);
    out.number(log.logIndex);
    out.bytes(CLOSE);
  }

  /** Writes the tail of transaction `tx`, from its block number to the log index's `0x`, and remembers where. */
  private tail(out: JsonWriter, tx: number): void {
    if (tx >= this.txAt.length) {
      const size = Math.max(tx + 1, 2 * this.txAt.length);
      const at = new Int32Array(size).fill(NONE);
      at.set(this.txAt);
      this.txAt = at;
      const lengths = new Int32Array(size);
      lengths.set(this.txLength);
      this.txLength = lengths;
    }
    const start = out.length;
    const before = this.beforeTxHash;
    if (before[0] !== NONE) out.repeat(before[0]!, before[1]!);
    else {
      before[0] = out.length;
      out.bytes(NUMBER);
      out.number(this.block!.number);
      out.bytes(TX_HASH);
      before[1] = out.length - before[0]!;
    }
    out.hex(this.block!.txHash(tx), 0, 32);
    out.bytes(TX_INDEX);
    out.number(tx);
    const after = this.afterTxIndex;
    if (after[0] !== NONE) out.repeat(after[0]!, after[1]!);
    else {
      after[0] = out.length;
      out.bytes(BLOCK_HASH);
      out.hex(this.blockHash!, 0, 32);
      out.bytes(TIMESTAMP);
      out.number(this.timestamp);
      out.bytes(LOG_INDEX);
      after[1] = out.length - after[0]!;
    }
    this.txAt[tx] = start;
    this.txLength[tx] = out.length - start;
  }
}
