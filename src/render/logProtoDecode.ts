/**
 * Reads back what logProto.ts writes: a run of `ethlogd.v1.Log` messages, each as field 1 of the
 * enclosing message, decoded into LogEntry objects (the library API's logs iterator). Fields it
 * does not know are skipped, as protobuf requires.
 */
import type { LogEntry } from '../chain/types.js';
import { readVarintWithin, varintEnd } from '../chain/varint.js';

/** Protobuf wire types this decoder meets. */
const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

/** Raised when the bytes are not a run of well-formed Log messages. */
export class LogDecodeError extends Error {}

/** A cursor over protobuf bytes. */
class Reader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  varint(): number {
    const value = readVarintWithin(this.bytes, this.pos, this.end);
    if (value < 0) throw new LogDecodeError('truncated, overlong or beyond 2^53 varint');
    this.pos = varintEnd;
    return value;
  }

  /** The next length-delimited field's bytes (a copy, so they outlive the chunk). */
  bytesField(): Uint8Array {
    const length = this.varint();
    if (this.pos + length > this.end) throw new LogDecodeError('field runs past its message');
    const out = this.bytes.slice(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === WIRE_VARINT) this.varint();
    else if (wireType === WIRE_I64) this.pos += 8;
    else if (wireType === WIRE_I32) this.pos += 4;
    else if (wireType === WIRE_LEN) {
      const length = this.varint();
      this.pos += length;
    } else throw new LogDecodeError(`unsupported wire type ${wireType}`);
    if (this.pos > this.end) throw new LogDecodeError('field runs past its message');
  }
}

/** Decodes one Log message in [start, end). */
function decodeLog(bytes: Uint8Array, start: number, end: number): LogEntry {
  const r = new Reader(bytes, start, end);
  const log: LogEntry = {
    address: new Uint8Array(20),
    topics: [],
    data: new Uint8Array(0),
    blockNumber: null,
    blockHash: null,
    blockTimestamp: null,
    transactionHash: null,
    transactionIndex: null,
    logIndex: null,
    removed: false,
  };
  while (r.pos < end) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    const expect = (type: number) => {
      if (wire !== type) throw new LogDecodeError(`field ${field} has wire type ${wire}`);
    };
    switch (field) {
      case 1:
        expect(WIRE_VARINT);
        log.blockNumber = r.varint();
        break;
      case 2:
        expect(WIRE_VARINT);
        log.logIndex = r.varint();
        break;
      case 3:
        expect(WIRE_LEN);
        log.address = r.bytesField();
        break;
      case 4:
        expect(WIRE_LEN);
        log.topics.push(r.bytesField());
        break;
      case 5:
        expect(WIRE_LEN);
        log.data = r.bytesField();
        break;
      case 6:
        expect(WIRE_LEN);
        log.transactionHash = r.bytesField();
        break;
      case 7:
        expect(WIRE_VARINT);
        log.transactionIndex = r.varint();
        break;
      case 8:
        expect(WIRE_LEN);
        log.blockHash = r.bytesField();
        break;
      case 9:
        expect(WIRE_VARINT);
        log.blockTimestamp = r.varint();
        break;
      case 10:
        expect(WIRE_VARINT);
        log.removed = r.varint() !== 0;
        break;
      default:
        r.skip(wire);
    }
  }
  return log;
}

/** Decodes the Log messages of `bytes` (each field 1 of an enclosing message), in order. */
export function decodeLogMessages(bytes: Uint8Array): LogEntry[] {
  const out: LogEntry[] = [];
  const r = new Reader(bytes, 0, bytes.length);
  while (r.pos < bytes.length) {
    const tag = r.varint();
    if (tag !== 0x0a) {
      r.skip(tag & 7);
      continue;
    }
    const length = r.varint();
    const end = r.pos + length;
    if (end > bytes.length) throw new LogDecodeError('message runs past the bytes');
    out.push(decodeLog(bytes, r.pos, end));
    r.pos = end;
  }
  return out;
}
