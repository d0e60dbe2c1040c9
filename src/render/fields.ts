/**
 * Field writers shared by the transaction and block renderers: a `,"name":"0x…"` member whose value
 * is a stored quantity, raw bytes as hex data, or a number; and lists of 32-byte hashes.
 */
import { ascii } from '../chain/asciiHex.js';
import type { JsonWriter } from './jsonWriter.js';

const QUOTE_0X = ascii('"0x');
const QUOTE = 0x22;
const COMMA = 0x2c;

/** The offset just past the stored quantity (a length byte, then minimal big-endian bytes) at `raw[at]`. */
export function skipQuantity(raw: Uint8Array, at: number): number {
  return at + 1 + raw[at]!;
}

/** Writes the hex digits of the stored quantity whose length byte is at `raw[at]`. */
export function writeQuantity(w: JsonWriter, raw: Uint8Array, at: number): void {
  w.quantity(raw, at + 1, at + 1 + raw[at]!);
}

/** Writes `name` (pre-encoded `,"name":"0x`), the digits of the stored quantity at `raw[at]`, and the closing quote. */
export function quantityField(w: JsonWriter, name: Uint8Array, raw: Uint8Array, at: number): void {
  w.bytes(name);
  w.quantity(raw, at + 1, at + 1 + raw[at]!);
  w.byte(QUOTE);
}

/** Writes `name` (pre-encoded `,"name":"0x`), `raw[start, end)` as hex, and the closing quote. */
export function dataField(w: JsonWriter, name: Uint8Array, raw: Uint8Array, start: number, end: number): void {
  w.bytes(name);
  w.hex(raw, start, end);
  w.byte(QUOTE);
}

/** Writes `name` (pre-encoded `,"name":"0x`), the digits of `value`, and the closing quote. */
export function numberField(w: JsonWriter, name: Uint8Array, value: number): void {
  w.bytes(name);
  w.number(value);
  w.byte(QUOTE);
}

/** Writes `count` 32-byte hashes stored back to back from `raw[at]` as comma-separated `"0x…"` strings. */
export function hashList(w: JsonWriter, raw: Uint8Array, at: number, count: number): void {
  for (let i = 0; i < count; i++, at += 32) {
    if (i > 0) w.byte(COMMA);
    w.bytes(QUOTE_0X);
    w.hex(raw, at, at + 32);
    w.byte(QUOTE);
  }
}
