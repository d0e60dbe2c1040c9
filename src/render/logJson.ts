/**
 * A log as JSON written straight from its raw record's bytes (the engine's path: the pool's
 * workers and the inline scans); the reference rendering from a decoded log is format.ts's
 * renderLogJson, and the test of log representations keeps the two, the protobuf and the CSV
 * forms equal (see logFields.ts).
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

/**
 * Writes one matched log of a raw record as a JSON-RPC log object (the fields of LOG_FIELDS, in
 * their order): byte-identical to renderLogJson's rendering of the decoded log.
 */
export function writeLogJson(out: JsonWriter, raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void {
  out.bytes(OPEN);
  out.hex(raw, log.addressOffset, log.addressOffset + 20);
  out.bytes(TOPICS);
  for (let t = 0; t < log.topicCount; t++) {
    if (t > 0) out.byte(COMMA);
    const off = log.topicOffsets[t]!;
    const len = raw[off]!;
    out.bytes(QUOTE_0X);
    out.zeros(64 - 2 * len);
    out.hex(raw, off + 1, off + 1 + len);
    out.byte(QUOTE);
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
  out.bytes(NUMBER);
  out.number(block.number);
  out.bytes(TX_HASH);
  const tx = block.txHash(log.txIndex);
  out.hex(tx, 0, 32);
  out.bytes(TX_INDEX);
  out.number(log.txIndex);
  out.bytes(BLOCK_HASH);
  out.hex(blockHash, 0, 32);
  out.bytes(TIMESTAMP);
  out.number(timestamp);
  out.bytes(LOG_INDEX);
  out.number(log.logIndex);
  out.bytes(CLOSE);
}
