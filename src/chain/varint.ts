/**
 * LEB128 varints (7 bits per byte, least significant first), as the store's records and protobuf
 * use them: the one writer, size and readers of the codebase. Values are non-negative integers up
 * to 2^53. Readers leave the position after the varint in `varintEnd` rather than returning an
 * object, so the scans that read millions of them allocate nothing.
 */

/** Longest varint of a value up to 2^64 (protobuf's bound): a longer one is damaged input. */
const MAX_VARINT_BYTES = 10;

/** Where the varint last read by readVarint or readVarintWithin ends. */
export let varintEnd = 0;

/** The bytes the varint of `value` takes. */
export function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

/**
 * Writes `value` as a varint at `out[at]` (the caller made room: varintSize bytes) and returns the position after it.
 */
export function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[at++] = value;
  return at;
}

/**
 * Reads the varint at `raw[at]` of a record this process wrote or checked (no bounds check); its end goes to
 * `varintEnd`.
 */
export function readVarint(raw: Uint8Array, at: number): number {
  let result = 0;
  let scale = 1;
  for (;;) {
    const byte = raw[at++]!;
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varintEnd = at;
      return result;
    }
    scale *= 0x80;
  }
}

/**
 * Reads the varint at `raw[at]` of untrusted bytes that end at `end`; its end goes to `varintEnd`.
 * Returns -1 when it runs past `end`, is longer than MAX_VARINT_BYTES or exceeds 2^53.
 */
export function readVarintWithin(raw: Uint8Array, at: number, end: number): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES && at < end; i++) {
    const byte = raw[at++]!;
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varintEnd = at;
      return Number.isSafeInteger(result) ? result : -1;
    }
    scale *= 0x80;
  }
  return -1;
}

/** Where the varint at `raw[at]` of a trusted record ends, without decoding it. */
export function skipVarint(raw: Uint8Array, at: number): number {
  while (raw[at]! >= 0x80) at++;
  return at + 1;
}
