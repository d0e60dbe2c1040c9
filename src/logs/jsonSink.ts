/**
 * The JSON writer the log scans render into: logs comma-separated, or one per line with marks so a
 * stream can resume after any log.
 */
import { JsonWriter } from '../render/jsonWriter.js';

const NEWLINE = 0x0a;

/** Bytes a sink starts with: room for a window of scanned logs. */
const SINK_CAPACITY = 64 * 1024;

/**
 * Writes logs as JSON bytes into a buffer that grows by doubling: comma-separated (an eth_getLogs
 * result's elements), or with `lines` each log followed by a newline and marked like the protobuf
 * output (end offset, block number, log index: MARK_STRIDE entries), so a stream can resume after any log.
 */
export class JsonSink extends JsonWriter {
  private readonly marks: number[] = [];

  /** Comma-separated logs, or with `lines` one log per line, marked; `capacity` bytes to start with. */
  constructor(
    readonly lines = false,
    capacity = SINK_CAPACITY,
  ) {
    super(capacity);
  }

  /** Ends a log in lines mode: its newline and its mark. */
  endLine(number: number, logIndex: number): void {
    this.byte(NEWLINE);
    this.marks.push(this.length, number, logIndex);
  }

  /** Empties the sink for reuse, marks included, keeping its capacity. */
  override reset(): void {
    super.reset();
    this.marks.length = 0;
  }

  /** Empties the sink, marks included, to write into `memory` (GrowableBytes.adopt). */
  override adopt(memory: ArrayBuffer): void {
    super.adopt(memory);
    this.marks.length = 0;
  }

  /** The marks of the logs written in lines mode (empty otherwise). */
  takeMarks(): Float64Array {
    return new Float64Array(this.marks);
  }
}
