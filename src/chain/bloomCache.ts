/**
 * Memoised bloom bit positions. Computing a logsBloom costs one keccak per address and topic;
 * chains repeat the same addresses and topics (hot contracts, event signatures, holders), so the
 * three bit positions of a value are cached by its bytes, and by the identity of its byte array once
 * its bytes have been met twice. The cache by bytes is bounded: it is cleared when it reaches its
 * size limit.
 */
import { BLOOM_BYTES, bloomBits, setBloomBit } from './bloom.js';

/** Default bound on the number of distinct values cached by their bytes. */
const DEFAULT_MAX_ENTRIES = 1 << 17;

function pack(bits: [number, number, number]): number {
  return bits[0] * 4194304 + bits[1] * 2048 + bits[2];
}

/** Caches the bloom bits of addresses and topics and builds blooms from them. */
export class BloomCache {
  private readonly byIdentity = new WeakMap<Uint8Array, number>();
  private readonly byBytes = new Map<string, number>();

  /** Caches up to `maxEntries` distinct values by their bytes. */
  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** The three bit positions of `value`, packed as b0·2^22 + b1·2^11 + b2. */
  packedBits(value: Uint8Array): number {
    const known = this.byIdentity.get(value);
    if (known !== undefined) return known;
    const key = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
    let packed = this.byBytes.get(key);
    if (packed === undefined) {
      packed = pack(bloomBits(value));
      if (this.byBytes.size >= this.maxEntries) this.byBytes.clear();
      this.byBytes.set(key, packed);
    } else {
      // Met again by its bytes: the array may come back too. One met once (a fresh random word) is not
      // kept by identity, since a WeakMap entry costs several lookups' time.
      this.byIdentity.set(value, packed);
    }
    return packed;
  }

  /** Adds `value` (an address or a topic) to `bloom`. */
  add(bloom: Uint8Array, value: Uint8Array): void {
    const packed = this.packedBits(value);
    setBloomBit(bloom, Math.floor(packed / 4194304));
    setBloomBit(bloom, Math.floor(packed / 2048) % 2048);
    setBloomBit(bloom, packed % 2048);
  }

  /** The logsBloom of a list of logs, equal to bloom.ts's logsBloom. */
  logsBloom(logs: Iterable<{ address: Uint8Array; topics: Uint8Array[] }>): Uint8Array {
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const log of logs) {
      this.add(bloom, log.address);
      for (const topic of log.topics) this.add(bloom, topic);
    }
    return bloom;
  }
}
