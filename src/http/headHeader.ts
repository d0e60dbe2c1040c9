/**
 * The X-Ethlogd-Head header every JSON-RPC answer carries: the head block of the store snapshot the
 * request was answered from, so a client or a balancer can tell which replica is behind. Name and
 * value are Buffers (uWS copies string arguments into new ones on every call); the value's bytes are
 * made once per head. The serving readers read the head once per tick (StoreReaderOptions.perTick).
 */
import type { StoreReader } from '../store/reader.js';

/** The header's name, as bytes. */
export const HEAD_HEADER_NAME = Buffer.from('X-Ethlogd-Head');

/** Makes the header value of the current snapshot's head. */
export class HeadHeader {
  private number: number | undefined;
  private bytes: Buffer | undefined;

  /** The header of the snapshots `reader` reads. */
  constructor(private readonly reader: StoreReader) {}

  /** The value for a request answered now: the head in decimal, or undefined while the store holds no block. */
  value(): Buffer | undefined {
    const head = this.reader.head();
    if (head !== this.number) {
      this.number = head;
      this.bytes = head === undefined ? undefined : Buffer.from(String(head), 'latin1');
    }
    return this.bytes;
  }
}
