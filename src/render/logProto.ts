/**
 * Logs rendered as protobuf: each log an `ethlogd.v1.Log` message (src/grpc/ethlogd.proto) written
 * as field 1 of the enclosing message, so the output of several scans concatenates into a valid
 * GetLogsResponse or LogBatch body. Rendered from raw records in the workers (the same matches as
 * the JSON path) and from whole blocks (pending, orphaned) in the main thread. Beside the bytes it
 * keeps, per log, where the log ends and its position (block number, log index), so a stream can
 * cut the output into batches at log boundaries and resume after any log.
 */
import type { BlockBundle, Log } from '../chain/types.js';
import { varintSize } from '../chain/varint.js';
import { ProtoSink } from './protoSink.js';
import type { RecordBlock, RecordLog, RecordRenderer } from './recordLog.js';

/** Wire tags (field number << 3 | wire type) of ethlogd.v1.Log, and of the enclosing `repeated Log logs = 1`. */
const TAG = {
  logs: 0x0a,
  blockNumber: 0x08,
  logIndex: 0x10,
  address: 0x1a,
  topics: 0x22,
  data: 0x2a,
  transactionHash: 0x32,
  transactionIndex: 0x38,
  blockHash: 0x42,
  blockTimestamp: 0x48,
  removed: 0x50,
} as const;

/** Bytes of a 32-byte bytes field with its tag and length. */
const WORD_FIELD = 34;
/** Bytes of a 20-byte bytes field with its tag and length. */
const ADDRESS_FIELD = 22;
/** Entries per log in the marks: end offset, block number, log index. */
export const MARK_STRIDE = 3;

/** Where a log sits; null for a pending log, whose position fields stay unset. */
interface LogPosition {
  number: number;
  logIndex: number;
  txHash: Uint8Array;
  txIndex: number;
  blockHash: Uint8Array;
  timestamp: number;
}

function positionSize(p: LogPosition): number {
  return (
    2 +
    varintSize(p.number) +
    varintSize(p.logIndex) +
    WORD_FIELD +
    1 +
    varintSize(p.txIndex) +
    WORD_FIELD +
    1 +
    varintSize(p.timestamp)
  );
}

function dataSize(length: number): number {
  return length > 0 ? 1 + varintSize(length) + length : 0;
}

/** Writes logs as protobuf Log messages and records their marks. */
export class LogProtoWriter implements RecordRenderer {
  private readonly sink = new ProtoSink();
  private readonly marks: number[] = [];

  /** Logs written. */
  get count(): number {
    return this.marks.length / MARK_STRIDE;
  }

  private head(size: number, p: LogPosition): void {
    const s = this.sink;
    s.byte(TAG.logs);
    s.varint(size);
    s.byte(TAG.blockNumber);
    s.varint(p.number);
    s.byte(TAG.logIndex);
    s.varint(p.logIndex);
  }

  private tail(p: LogPosition): void {
    const s = this.sink;
    s.byte(TAG.transactionHash);
    s.byte(32);
    s.copy(p.txHash, 0, 32);
    s.byte(TAG.transactionIndex);
    s.varint(p.txIndex);
    s.byte(TAG.blockHash);
    s.byte(32);
    s.copy(p.blockHash, 0, 32);
    s.byte(TAG.blockTimestamp);
    s.varint(p.timestamp);
  }

  private mark(number: number, logIndex: number): void {
    this.marks.push(this.sink.length, number, logIndex);
  }

  /** Writes one matched log of a raw record (a canonical block). */
  render(raw: Buffer, log: RecordLog, block: RecordBlock, blockHash: Uint8Array, timestamp: number): void {
    const p: LogPosition = {
      number: block.number,
      logIndex: log.logIndex,
      txHash: block.txHash(log.txIndex),
      txIndex: log.txIndex,
      blockHash,
      timestamp,
    };
    this.head(positionSize(p) + ADDRESS_FIELD + WORD_FIELD * log.topicCount + dataSize(log.dataLength), p);
    const s = this.sink;
    s.byte(TAG.address);
    s.byte(20);
    s.copy(raw, log.addressOffset, log.addressOffset + 20);
    for (let t = 0; t < log.topicCount; t++) {
      const off = log.topicOffsets[t]!;
      const len = raw[off]!;
      s.byte(TAG.topics);
      s.byte(32);
      s.zeros(32 - len);
      s.copy(raw, off + 1, off + 1 + len);
    }
    if (log.dataLength > 0) {
      s.byte(TAG.data);
      s.varint(log.dataLength);
      if (!log.dataWords) {
        s.copy(raw, log.dataStart, log.dataStart + log.dataLength);
      } else {
        for (let q = log.dataStart, w = 0; w < log.dataLength; w += 32) {
          const len = raw[q]!;
          s.zeros(32 - len);
          s.copy(raw, q + 1, q + 1 + len);
          q += 1 + len;
        }
      }
    }
    this.tail(p);
    this.mark(block.number, log.logIndex);
  }

  /**
   * Writes the logs of a whole stored block for which `matches` holds and that sit at or after log
   * `fromIndex`: pending (position fields unset) or orphaned (removed: true).
   */
  writeBundle(bundle: BlockBundle, matches: (log: Log) => boolean, kind: 'pending' | 'orphan', fromIndex = 0): void {
    const h = bundle.header;
    for (let i = fromIndex; i < bundle.logs.length; i++) {
      const log = bundle.logs[i]!;
      if (!matches(log)) continue;
      const p: LogPosition | null =
        kind === 'pending'
          ? null
          : {
              number: h.number,
              logIndex: i,
              txHash: bundle.transactions[log.txIndex]!.hash,
              txIndex: log.txIndex,
              blockHash: h.hash,
              timestamp: h.timestamp,
            };
      this.writeLog(log, p);
      this.mark(h.number, i);
    }
  }

  private writeLog(log: Log, p: LogPosition | null): void {
    const s = this.sink;
    const body = ADDRESS_FIELD + WORD_FIELD * log.topics.length + dataSize(log.data.length);
    if (p) {
      this.head(positionSize(p) + body + 2, p);
    } else {
      s.byte(TAG.logs);
      s.varint(body);
    }
    s.byte(TAG.address);
    s.byte(20);
    s.copy(log.address, 0, 20);
    for (const topic of log.topics) {
      s.byte(TAG.topics);
      s.byte(32);
      s.copy(topic, 0, 32);
    }
    if (log.data.length > 0) {
      s.byte(TAG.data);
      s.varint(log.data.length);
      s.copy(log.data, 0, log.data.length);
    }
    if (p) {
      this.tail(p);
      s.byte(TAG.removed);
      s.byte(1);
    }
  }

  /** The messages written (owning their memory, safe to transfer) and their marks. */
  take(): { bytes: Uint8Array; marks: Float64Array } {
    return { bytes: this.sink.take(), marks: new Float64Array(this.marks) };
  }
}
