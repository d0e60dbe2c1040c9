/**
 * Logs as JSON written straight from their raw record's bytes (the engine's path: the pool's
 * workers and the inline scans); the reference rendering from a decoded log is format.ts's
 * renderLogJson, and the test of log representations keeps the two, the protobuf and the CSV
 * forms equal (see logFields.ts).
 *
 * Most of a log's JSON repeats within its block: its address line is that of every log of the same
 * contract, its topics come from the block's topic dictionary, and everything after its data but
 * the log index is the same for every log of its transaction. LogJsonBlock renders each of those
 * pieces once per block, when a match first needs it, and a log is then a few copies of them, its
 * data's hex digits and its log index.
 */
import { ascii } from '../chain/asciiHex.js';
import { JsonWriter } from './jsonWriter.js';
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

/** Bytes of the fragment buffer a thread starts with: a mainnet block's pieces (about 300 transactions and as many topics and addresses) fit. */
const FRAGMENT_CAPACITY = 256 * 1024;

/** Where a piece starts in the fragment buffer; NONE while it is not rendered in this block. */
const NONE = -1;

/** `array` when it holds `size` entries, else a larger one; the entries are not kept. */
function atLeast(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  return array.length >= size ? array : new Int32Array(Math.max(size, 2 * array.length));
}

/**
 * The JSON writer of one block's matched logs: begin() at the block's first match, then write() for
 * each match in order. Its pieces are valid until the next begin(); a thread's scans run one at a
 * time, so one instance serves them all (jsonLogs).
 */
export class LogJsonBlock {
  /** The pieces of the current block: address lines, topics, transaction tails, each [start, end). */
  private readonly fragments = new JsonWriter(FRAGMENT_CAPACITY);
  private addressStart = new Int32Array(64);
  private topicStart = new Int32Array(256);
  private txStart = new Int32Array(512);
  private txEnd = new Int32Array(512);
  /** The block-wide parts of a transaction's tail: before its hash, and after its index. */
  private beforeTxHash = [0, 0];
  private afterTxIndex = [0, 0];
  private block: RecordBlock | undefined;

  /**
   * Starts block `block` (its hash and timestamp as read), whose record has `addresses` entries in
   * its address table and `topics` in its topic dictionary.
   */
  begin(block: RecordBlock, blockHash: Uint8Array, timestamp: number, addresses: number, topics: number): void {
    this.block = block;
    const f = this.fragments;
    f.reset();
    this.addressStart = atLeast(this.addressStart, addresses);
    this.addressStart.fill(NONE, 0, addresses);
    this.topicStart = atLeast(this.topicStart, topics);
    this.topicStart.fill(NONE, 0, topics);
    // A transaction tail is known by its end; the table grows as higher indexes come (txTail).
    this.txEnd.fill(NONE);
    this.beforeTxHash[0] = f.length;
    f.bytes(NUMBER);
    f.number(block.number);
    f.bytes(TX_HASH);
    this.beforeTxHash[1] = f.length;
    this.afterTxIndex[0] = f.length;
    f.bytes(BLOCK_HASH);
    f.hex(blockHash, 0, 32);
    f.bytes(TIMESTAMP);
    f.number(timestamp);
    f.bytes(LOG_INDEX);
    this.afterTxIndex[1] = f.length;
  }

  /** Writes one matched log of the current block's record `raw` (the fields of LOG_FIELDS, in their order). */
  write(out: JsonWriter, raw: Buffer, log: RecordLog): void {
    const f = this.fragments;
    let start = this.addressStart[log.addressIndex]!;
    if (start === NONE) start = this.addressLine(raw, log.addressIndex, log.addressOffset);
    out.copy(f, start, start + ADDRESS_LINE);
    for (let t = 0; t < log.topicCount; t++) {
      if (t > 0) out.byte(COMMA);
      const index = log.topicIndices[t]!;
      let topic = this.topicStart[index]!;
      if (topic === NONE) topic = this.topic(raw, index, log.topicOffsets[t]!);
      out.copy(f, topic, topic + TOPIC);
    }
    out.bytes(DATA);
    if (!log.dataWords) {
      out.hex(raw, log.dataStart, log.dataStart + log.dataLength);
    } else {
      for (let p = log.dataStart, w = 0; w < log.dataLength; w += 32) {
        const len = raw[p]!;
        out.zeros(64 - 2 * len);
        out.hex(raw, p + 1, p + 1 + len);
        p += 1 + len;
      }
    }
    const tx = log.txIndex;
    if (tx >= this.txEnd.length || this.txEnd[tx] === NONE) this.txTail(tx);
    out.copy(f, this.txStart[tx]!, this.txEnd[tx]!);
    out.number(log.logIndex);
    out.bytes(CLOSE);
  }

  /** Renders the address line of address `index` (at `offset` of `raw`): `{"address":"0x…","topics":[`; returns where it starts. */
  private addressLine(raw: Buffer, index: number, offset: number): number {
    const f = this.fragments;
    const start = f.length;
    f.bytes(OPEN);
    f.hex(raw, offset, offset + 20);
    f.bytes(TOPICS);
    this.addressStart[index] = start;
    return start;
  }

  /** Renders dictionary topic `index` (at `offset` of `raw`: a length byte, then the stripped word) as `"0x…"`; returns where it starts. */
  private topic(raw: Buffer, index: number, offset: number): number {
    const f = this.fragments;
    const start = f.length;
    const len = raw[offset]!;
    f.bytes(QUOTE_0X);
    f.zeros(64 - 2 * len);
    f.hex(raw, offset + 1, offset + 1 + len);
    f.byte(QUOTE);
    this.topicStart[index] = start;
    return start;
  }

  /** Renders the tail of transaction `tx`: from its block number to the log index's `0x`. */
  private txTail(tx: number): void {
    if (tx >= this.txEnd.length) {
      const size = Math.max(tx + 1, 2 * this.txEnd.length);
      this.txStart = new Int32Array(size);
      const ends = new Int32Array(size).fill(NONE);
      ends.set(this.txEnd);
      this.txEnd = ends;
    }
    const f = this.fragments;
    this.txStart[tx] = f.length;
    f.copy(f, this.beforeTxHash[0]!, this.beforeTxHash[1]!);
    f.hex(this.block!.txHash(tx), 0, 32);
    f.bytes(TX_INDEX);
    f.number(tx);
    f.copy(f, this.afterTxIndex[0]!, this.afterTxIndex[1]!);
    this.txEnd[tx] = f.length;
  }
}

/** Bytes of an address line: `{"address":"0x`, 40 digits, `","topics":[`. */
const ADDRESS_LINE = OPEN.length + 40 + TOPICS.length;

/** Bytes of a rendered topic: `"0x`, 64 digits, `"`. */
const TOPIC = QUOTE_0X.length + 64 + 1;
