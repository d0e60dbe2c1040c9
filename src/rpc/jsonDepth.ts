/**
 * The nesting depth of a JSON text, found by one pass over its bytes without parsing it: a body
 * nested deeper than MAX_JSON_DEPTH is refused before JSON.parse spends time and stack on it.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * True when the arrays and objects of `body` (JSON text as UTF-8 bytes, valid or not) nest deeper
 * than `max` levels; brackets inside strings do not count. Stops at the first byte past the limit.
 */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  // A body cannot nest deeper than the number of its bytes.
  if (body.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}
