/**
 * Building blocks for writing JSON as bytes: hex digits of each byte value, and ASCII constants
 * encoded once.
 */

/** Per byte, its two lower-case hex digits as a little-endian u16 (the first digit is the low byte). */
export const HEX_PAIRS = (() => {
  const table = new Uint16Array(256);
  const digits = '0123456789abcdef';
  for (let i = 0; i < 256; i++) table[i] = digits.charCodeAt(i >> 4) | (digits.charCodeAt(i & 15) << 8);
  return table;
})();

/**
 * Per pair of bytes (the first the high byte of the index), their four hex digits as a
 * little-endian u32: a writer stores two bytes' digits at once (256 KiB, built once per thread).
 */
export const HEX_QUADS = (() => {
  const table = new Uint32Array(65536);
  for (let i = 0; i < 65536; i++) table[i] = HEX_PAIRS[i >> 8]! | (HEX_PAIRS[i & 255]! << 16);
  return table;
})();

/** Encodes an ASCII string once, for repeated writes. */
export function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}
