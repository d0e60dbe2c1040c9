/**
 * A table numbering distinct byte strings 0, 1, 2 … in order of first sight, looked up by a range
 * of a buffer with no copy and no string made (a Map keyed by strings cost a string and its hash
 * per lookup, several times a record scan's work per log): open addressing over an Int32Array of
 * (hash, number) pairs, so a probe reads one cache line, the keys' bytes kept in one growing buffer
 * and compared only when the hashes agree. The hash mixes the key's length and its first and last
 * four bytes: the export's keys are addresses, hashes and 32-byte words without their leading zeros,
 * whose ends differ from key to key (keys that share them only make probes longer).
 */

/** Slots the table starts with (a power of two). */
const INITIAL_SLOTS = 1 << 10;

/** Bytes of keys the table first has room for. */
const INITIAL_KEY_BYTES = 1 << 14;

/** The table grows when more than this share of its slots are taken, keeping probe sequences short. */
const MAX_LOAD = 0.5;

/** Odd multipliers spreading a key's length and end bytes over the hash's bits (Murmur3's finaliser constants). */
const MIX_A = 0x85ebca6b;
const MIX_B = 0xc2b2ae35;

/** The little-endian u32 of the four bytes of `bytes` from `at` (those past `end` read as 0). */
function u32At(bytes: Uint8Array, at: number, end: number): number {
  return (
    (at < end ? bytes[at]! : 0) |
    (at + 1 < end ? bytes[at + 1]! << 8 : 0) |
    (at + 2 < end ? bytes[at + 2]! << 16 : 0) |
    (at + 3 < end ? bytes[at + 3]! << 24 : 0)
  );
}

/** A 32-bit hash of bytes [start, end) of `bytes`: its length, first and last four bytes mixed. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = Math.imul(u32At(bytes, start, end) ^ (end - start), MIX_A);
  h = Math.imul(h ^ (h >>> 15) ^ u32At(bytes, Math.max(start, end - 4), end), MIX_B);
  return h ^ (h >>> 13);
}

/** Distinct byte strings, each with its number. */
export class ByteKeys {
  /** Per slot s: at 2s its key's hash, at 2s + 1 its key's number + 1, or 0 when empty. */
  private slots = new Int32Array(2 * INITIAL_SLOTS);
  /** Key i is keyBytes[keyStarts[i], keyStarts[i + 1]). */
  private keyBytes = new Uint8Array(INITIAL_KEY_BYTES);
  private keyStarts = new Int32Array(INITIAL_SLOTS + 1);
  /** Keys so far. */
  size = 0;

  /**
   * The number of the key bytes [start, end) of `bytes`; a new key is added with the next number (`size` before the
   * call).
   */
  add(bytes: Uint8Array, start: number, end: number): number {
    const hash = hashBytes(bytes, start, end);
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const taken = slots[2 * slot + 1]!;
      if (taken === 0) return this.insert(bytes, start, end, hash, slot);
      if (slots[2 * slot] === hash && this.keyEquals(taken - 1, bytes, start, end)) return taken - 1;
    }
  }

  /** Forgets every key, keeping the buffers. */
  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }

  private keyEquals(key: number, bytes: Uint8Array, start: number, end: number): boolean {
    const from = this.keyStarts[key]!;
    if (this.keyStarts[key + 1]! - from !== end - start) return false;
    const keys = this.keyBytes;
    for (let i = 0; i < end - start; i++) if (keys[from + i] !== bytes[start + i]) return false;
    return true;
  }

  /** Stores the new key in `slot` as the next number. */
  private insert(bytes: Uint8Array, start: number, end: number, hash: number, slot: number): number {
    const key = this.size++;
    if (this.size + 1 > this.keyStarts.length) this.keyStarts = grownInts(this.keyStarts, this.size + 1);
    const at = this.keyStarts[key]!;
    if (at + end - start > this.keyBytes.length) {
      let size = this.keyBytes.length * 2;
      while (size < at + end - start) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.keyBytes.subarray(0, at));
      this.keyBytes = next;
    }
    for (let i = start; i < end; i++) this.keyBytes[at + i - start] = bytes[i]!;
    this.keyStarts[key + 1] = at + end - start;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = key + 1;
    if (this.size > (this.slots.length >> 1) * MAX_LOAD) this.rehash();
    return key;
  }

  /** Doubles the slots, placing every key again by its hash. */
  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 1) - 1;
    for (let s = 0; s < old.length; s += 2) {
      if (old[s + 1] === 0) continue;
      let slot = old[s]! & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[s]!;
      slots[2 * slot + 1] = old[s + 1]!;
    }
    this.slots = slots;
  }
}

/** `a`'s values in an Int32Array at least twice as long and holding `min`. */
function grownInts(a: Int32Array<ArrayBuffer>, min: number): Int32Array<ArrayBuffer> {
  let size = a.length * 2;
  while (size < min) size *= 2;
  const next = new Int32Array(size);
  next.set(a);
  return next;
}
