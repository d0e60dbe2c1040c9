/**
 * The Accept-Encoding request header (RFC 9110 §12.5.3): the content codings a client accepts with
 * their weights (q-values), and the choice among the codings a server offers. Malformed elements
 * are skipped, never an error: a client's odd header costs it compression at most.
 */

/** A client's Accept-Encoding: the weight of each coding it names, and of `*` when it gives one. */
export interface AcceptedCodings {
  /** Weights (0 to 1) by coding name in lower case (`x-gzip` as `gzip`); the first mention of a coding counts. */
  readonly named: ReadonlyMap<string, number>;
  /** The weight of `*`: every coding the header does not name. */
  readonly any: number | undefined;
}

/**
 * What an answer may be coded with: the coding to use (null: none), and whether the client accepts an answer without
 * one.
 */
export interface Negotiated<C extends string> {
  coding: C | null;
  identity: boolean;
}

/** A coding name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** A weight: 0 to 1 with at most three decimals (RFC 9110 §12.4.2). */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Names RFC 9110 §8.4.1.3 asks recipients to read as another coding. */
const ALIASES: ReadonlyMap<string, string> = new Map([['x-gzip', 'gzip']]);

/** The weight an element's parameters give (1 without a `q`), or undefined when its `q` is malformed. */
function weight(params: readonly string[]): number | undefined {
  for (const param of params) {
    const eq = param.indexOf('=');
    if ((eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase() !== 'q') continue;
    const value = eq === -1 ? '' : param.slice(eq + 1).trim();
    return QVALUE.test(value) ? Number(value) : undefined;
  }
  return 1;
}

/** Parses an Accept-Encoding value (`''` when the header is absent or empty: no coding is named). */
export function parseAcceptEncoding(header: string): AcceptedCodings {
  const named = new Map<string, number>();
  let any: number | undefined;
  for (const element of header.split(',')) {
    const [name = '', ...params] = element.split(';');
    const coding = name.trim().toLowerCase();
    if (!TOKEN.test(coding)) continue;
    const q = weight(params);
    if (q === undefined) continue;
    if (coding === '*') any ??= q;
    else {
      const canonical = ALIASES.get(coding) ?? coding;
      if (!named.has(canonical)) named.set(canonical, q);
    }
  }
  return { named, any };
}

/**
 * Picks among `offered` (the server's codings, in its order of preference on equal weights) the
 * coding `accepted` weighs highest, unless the client weighs no coding (`identity`, by name or
 * through `*`) higher; an unnamed coding weighs what `*` does, else nothing. An answer without a
 * coding is acceptable unless `identity;q=0`, or `*;q=0` without `identity`, refuses it.
 */
export function negotiate<C extends string>(accepted: AcceptedCodings, offered: readonly C[]): Negotiated<C> {
  const identity = accepted.named.get('identity') ?? accepted.any;
  let best: C | null = null;
  let bestWeight = 0;
  for (const coding of offered) {
    const q = accepted.named.get(coding) ?? accepted.any ?? 0;
    if (q > bestWeight) {
      best = coding;
      bestWeight = q;
    }
  }
  return { coding: identity === undefined || bestWeight >= identity ? best : null, identity: identity !== 0 };
}
