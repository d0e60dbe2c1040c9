/**
 * Calls written the way client libraries write them (viem: `{"jsonrpc":"2.0","id":7,"method":…,
 * "params":[…]}`, compact, members in that order). Two such calls that differ only in their integer
 * id are the same call, so the text after the id names it: the answer cache finds a kept answer by
 * that text alone, without parsing the body or writing its params again (rpc/dispatcher.ts).
 */

/** What a canonical call's text starts with, up to its id. */
const CANONICAL_HEAD = '{"jsonrpc":"2.0","id":';

/** Most digits of an id read here: 15 digits stay below 2^53, so the number prints back as the same digits. */
const MAX_ID_DIGITS = 15;

/** A call's text cut at its id: the id's digits, and the text after them (which names the call). */
export interface CanonicalCall {
  /** The id as it is written: an integer without a sign or leading zeros. */
  id: string;
  /** The text after the id, from the comma that ends it. */
  rest: string;
}

const COMMA = 0x2c;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * `text` cut at its id when it starts as a canonical call does, with an integer id written as
 * JSON.stringify writes that number followed by a comma; undefined otherwise. Whether the rest is
 * canonical too is for isCanonical to say, once, when a call's text is first remembered.
 */
export function splitCanonicalCall(text: string): CanonicalCall | undefined {
  if (!text.startsWith(CANONICAL_HEAD)) return undefined;
  const start = CANONICAL_HEAD.length;
  let end = start;
  while (end < text.length && end - start <= MAX_ID_DIGITS) {
    const c = text.charCodeAt(end);
    if (c < ZERO || c > NINE) break;
    end++;
  }
  const digits = end - start;
  if (digits === 0 || digits > MAX_ID_DIGITS || text.charCodeAt(end) !== COMMA) return undefined;
  if (digits > 1 && text.charCodeAt(start) === ZERO) return undefined;
  return { id: text.slice(start, end), rest: text.slice(end) };
}

/**
 * Whether `text` is exactly how JSON.stringify writes `request`, the value it parsed to: no
 * whitespace, no repeated member (the last of which JSON.parse keeps), escapes and numbers as
 * written back. Then any other integer id in its place parses to the same call with that id.
 */
export function isCanonical(text: string, request: unknown): boolean {
  try {
    return JSON.stringify(request) === text;
  } catch {
    return false;
  }
}
