/**
 * The encodings of frozen runs (docs/architecture.md §3, Frozen runs): a run's entries, sorted, are
 * cut into chunks of about one LMDB page, each put under the run's id and the chunk's last key, so
 * a run is written in key order (MDB_APPEND) and LMDB's own B-tree over the chunk keys is the run's
 * fence index: a seek to id ‖ key finds the one chunk that can hold the key. Encode/decode pairs.
 */

/** Bytes of a run id in a chunk key. */
export const RUN_ID_BYTES = 4;
/** Bytes of the transaction-hash prefix a run keeps (the rest is checked against the transaction record). */
export const TX_PREFIX_BYTES = 8;
/** Bytes of a transaction-run entry: hash prefix ‖ u40 block number ‖ u24 index. */
export const TX_ENTRY_BYTES = 16;
/** Bytes of a storage key (keys.ts): address ‖ slot ‖ u64(2^64−1 − number). */
export const STORAGE_KEY_BYTES = 60;
/**
 * Most bytes of a chunk value: the 4 KiB overflow page that holds it less the 24 bytes the page's
 * header and the value's own header take in lmdb-js's LMDB (a byte more takes two pages: a test puts both).
 */
export const CHUNK_BYTES = 4072;
/** Largest block number a transaction-run entry holds (u40). */
const MAX_TX_NUMBER = 2 ** 40 - 1;
/** Largest transaction index a transaction-run entry holds (u24). */
const MAX_TX_INDEX = 2 ** 24 - 1;

/** Encodes a chunk key: u32 run id ‖ the chunk's last key. */
export function encodeRunChunkKey(id: number, last: Uint8Array): Buffer {
  const key = Buffer.allocUnsafe(RUN_ID_BYTES + last.length);
  key.writeUInt32BE(id, 0);
  key.set(last, RUN_ID_BYTES);
  return key;
}

/** Decodes a chunk key. */
export function decodeRunChunkKey(key: Uint8Array): { id: number; last: Uint8Array } {
  const buf = Buffer.from(key.buffer, key.byteOffset, key.length);
  return { id: buf.readUInt32BE(0), last: new Uint8Array(buf.subarray(RUN_ID_BYTES)) };
}

/** The first key of run `id`'s chunks (a range over them starts here). */
export function runStartKey(id: number): Buffer {
  const key = Buffer.allocUnsafe(RUN_ID_BYTES);
  key.writeUInt32BE(id, 0);
  return key;
}

/** Which index a run filter belongs to. */
export const enum RunKind {
  Tx = 0,
  Storage = 1,
  /** The filters of a merge in progress as a writer left them when it closed: u32 entries ‖ the filter. */
  MergeTx = 2,
  MergeStorage = 3,
}

/** Encodes a run filter's key: u8 kind ‖ u32 run id. */
export function encodeRunFilterKey(kind: RunKind, id: number): Buffer {
  const key = Buffer.allocUnsafe(1 + RUN_ID_BYTES);
  key[0] = kind;
  key.writeUInt32BE(id, 1);
  return key;
}

/** Decodes a run filter's key. */
export function decodeRunFilterKey(key: Uint8Array): { kind: RunKind; id: number } {
  const buf = Buffer.from(key.buffer, key.byteOffset, key.length);
  return { kind: buf[0] as RunKind, id: buf.readUInt32BE(1) };
}

/** Writes a transaction-run entry (hash prefix, block number, index) at `out[offset]`. */
export function writeTxEntry(out: Uint8Array, offset: number, hash: Uint8Array, number: number, index: number): void {
  if (!Number.isInteger(number) || number < 0 || number > MAX_TX_NUMBER)
    throw new RangeError(`block number ${number} does not fit a run entry`);
  if (!Number.isInteger(index) || index < 0 || index > MAX_TX_INDEX)
    throw new RangeError(`transaction index ${index} does not fit a run entry`);
  out.set(hash.subarray(0, TX_PREFIX_BYTES), offset);
  const high = Math.floor(number / 2 ** 8);
  const at = offset + TX_PREFIX_BYTES;
  out[at] = (high >>> 24) & 255;
  out[at + 1] = (high >>> 16) & 255;
  out[at + 2] = (high >>> 8) & 255;
  out[at + 3] = high & 255;
  out[at + 4] = number & 255;
  out[at + 5] = (index >>> 16) & 255;
  out[at + 6] = (index >>> 8) & 255;
  out[at + 7] = index & 255;
}

/** Encodes a transaction-run entry. */
export function encodeTxEntry(hash: Uint8Array, number: number, index: number): Buffer {
  const out = Buffer.allocUnsafe(TX_ENTRY_BYTES);
  writeTxEntry(out, 0, hash, number, index);
  return out;
}

/** The block number of the transaction-run entry at `bytes[offset]`. */
export function txEntryNumber(bytes: Uint8Array, offset: number): number {
  const at = offset + TX_PREFIX_BYTES;
  const high = ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
  return high * 2 ** 8 + bytes[at + 4]!;
}

/** The transaction index of the transaction-run entry at `bytes[offset]`. */
export function txEntryIndex(bytes: Uint8Array, offset: number): number {
  const at = offset + TX_PREFIX_BYTES + 5;
  return (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!;
}

/** Decodes a transaction-run entry. */
export function decodeTxEntry(entry: Uint8Array): { prefix: Uint8Array; number: number; index: number } {
  return {
    prefix: new Uint8Array(entry.subarray(0, TX_PREFIX_BYTES)),
    number: txEntryNumber(entry, 0),
    index: txEntryIndex(entry, 0),
  };
}

/**
 * A storage chunk: its entries in key order, each as the count of leading bytes it shares with the
 * previous key (u8; 0 for the first), the count of the rest (u8), the rest, the value's length (u8)
 * and the value (a word without leading zeros). Storage keys of one contract share its address, and
 * of one slot the slot too, so a chunk holds about twice the entries full keys would allow.
 */
export class StorageChunkWriter {
  private readonly bytes = Buffer.allocUnsafe(CHUNK_BYTES);
  private length = 0;
  /** The last key added (a copy: callers may reuse their key buffers). */
  private readonly previous = Buffer.alloc(STORAGE_KEY_BYTES);
  /** The previous key's bytes as native-order u32 words, to find how much of it a key shares four bytes at a time. */
  private readonly previousWords = new Uint32Array(this.previous.buffer, this.previous.byteOffset, KEY_WORDS);
  /** Leading bytes the last entry added shared with the one before it in the chunk (0 for a chunk's first). */
  lastShared = 0;
  /** Entries in the chunk. */
  count = 0;

  /** Adds an entry when it fits the chunk; returns whether it did. Keys must come in ascending order. */
  add(key: Uint8Array, value: Uint8Array): boolean {
    return this.addParts(key, value, 0, value.length);
  }

  /** Whether an entry of `key` and a `length`-byte value fits the chunk (as add would find). */
  fits(key: Uint8Array, length: number): boolean {
    const shared = this.count > 0 ? sharedPrefix(this.previous, key) : 0;
    return this.length + 3 + STORAGE_KEY_BYTES - shared + length <= CHUNK_BYTES;
  }

  /**
   * add with the value given as `length` bytes of `source` from `start` (a merge copies it out of the chunk it reads,
   * with no view per entry).
   */
  addParts(key: Uint8Array, source: Uint8Array, start: number, length: number, keyWords?: Uint32Array): boolean {
    if (key.length !== STORAGE_KEY_BYTES || length > 32)
      throw new RangeError(`a storage entry of a ${key.length}-byte key and a ${length}-byte value`);
    const previous = this.previous;
    const shared =
      this.count === 0
        ? 0
        : keyWords
          ? sharedKeyBytes(previous, this.previousWords, key, keyWords)
          : sharedPrefix(previous, key);
    if (this.length + 3 + STORAGE_KEY_BYTES - shared + length > CHUNK_BYTES) return false;
    const out = this.bytes;
    let at = this.length;
    out[at++] = shared;
    out[at++] = STORAGE_KEY_BYTES - shared;
    // The key's bytes after the shared prefix go to the chunk and to `previous` (whose prefix already matches).
    for (let i = shared; i < STORAGE_KEY_BYTES; i++) {
      const byte = key[i]!;
      out[at++] = byte;
      previous[i] = byte;
    }
    out[at++] = length;
    for (let i = 0; i < length; i++) out[at++] = source[start + i]!;
    this.length = at;
    this.count++;
    this.lastShared = shared;
    return true;
  }

  /** The chunk's value and last key, and empties the writer; undefined when it holds no entry. */
  take(): { value: Buffer; last: Uint8Array } | undefined {
    if (this.count === 0) return undefined;
    const value = Buffer.from(this.bytes.subarray(0, this.length));
    const last = Buffer.from(this.previous);
    this.length = 0;
    this.count = 0;
    return { value, last };
  }
}

/**
 * Reads a storage chunk's entries in order; `key` (a buffer it reuses) and `value` (a view into the chunk) are valid
 * until the next call.
 */
export class StorageChunkReader {
  readonly key = Buffer.alloc(STORAGE_KEY_BYTES);
  /** The key's bytes as native-order u32 words (a merge compares keys four bytes at a time). */
  readonly keyWords = new Uint32Array(this.key.buffer, this.key.byteOffset, KEY_WORDS);
  /** The chunk; the current entry's value is its bytes [valueStart, valueEnd). */
  readonly chunk: Buffer;
  private at = 0;
  valueStart = 0;
  valueEnd = 0;

  constructor(chunk: Uint8Array) {
    this.chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }

  /** The current entry's value: a view of the chunk. */
  get value(): Uint8Array {
    return this.chunk.subarray(this.valueStart, this.valueEnd);
  }

  /** Moves to the next entry; false at the chunk's end. Throws on a malformed chunk. */
  next(): boolean {
    const c = this.chunk;
    if (this.at >= c.length) return false;
    const shared = c[this.at]!;
    const rest = c[this.at + 1]!;
    if (shared + rest !== STORAGE_KEY_BYTES || this.at + 2 + rest + 1 > c.length)
      throw new RangeError('malformed storage chunk');
    const key = this.key;
    for (let i = 0, from = this.at + 2; i < rest; i++) key[shared + i] = c[from + i]!;
    const at = this.at + 2 + rest;
    const length = c[at]!;
    if (length > 32 || at + 1 + length > c.length) throw new RangeError('malformed storage chunk');
    this.valueStart = at + 1;
    this.valueEnd = at + 1 + length;
    this.at = at + 1 + length;
    return true;
  }
}

/** Decodes a whole storage chunk (tests and verify; lookups use StorageChunkReader). */
export function decodeStorageChunk(chunk: Uint8Array): { key: Uint8Array; value: Uint8Array }[] {
  const reader = new StorageChunkReader(chunk);
  const out: { key: Uint8Array; value: Uint8Array }[] = [];
  while (reader.next()) out.push({ key: new Uint8Array(reader.key), value: new Uint8Array(reader.value) });
  return out;
}

/** Encodes entries (ascending keys) as one storage chunk; throws when they do not fit one. */
export function encodeStorageChunk(entries: readonly { key: Uint8Array; value: Uint8Array }[]): Buffer {
  const writer = new StorageChunkWriter();
  for (const { key, value } of entries)
    if (!writer.add(key, value)) throw new RangeError('entries do not fit one chunk');
  return writer.take()?.value ?? Buffer.alloc(0);
}

/** Whole u32 words in a storage key (a Buffer.alloc of its size has its own, aligned memory). */
export const KEY_WORDS = STORAGE_KEY_BYTES / 4;

/** How many leading bytes two storage keys share, given with their words: equal words skipped four bytes at a time. */
export function sharedKeyBytes(a: Uint8Array, aWords: Uint32Array, b: Uint8Array, bWords: Uint32Array): number {
  let w = 0;
  while (w < KEY_WORDS && aWords[w] === bWords[w]) w++;
  if (w === KEY_WORDS) return STORAGE_KEY_BYTES;
  let i = w * 4;
  while (a[i] === b[i]) i++;
  return i;
}

/** How many leading bytes `a` and `b` share (at most 255). */
function sharedPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length, 255);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
