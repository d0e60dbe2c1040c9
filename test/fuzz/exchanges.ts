/**
 * fast-check arbitraries of whole HTTP exchanges for the fuzz suite: the HTTP method, the path
 * (the key's, revoked and unknown keys, missing keys, other paths), the Content-Type, and a body —
 * random bytes (invalid UTF-8 included), valid requests with invalid UTF-8 spliced in, truncated
 * requests, arrays and objects nested up to 10,000 levels, random JSON, single requests, batches
 * up to past the 1,000-item limit, empty and oversized bodies — and raw byte streams for the
 * socket (malformed request lines and headers, lying Content-Length, broken chunked encoding).
 */
import fc from 'fast-check';
import { MAX_BATCH_ITEMS, MAX_BODY_BYTES } from '#src/config.js';
import { type FuzzCorpus, requestArb } from './requests.js';

/** The keys the exchanges use. */
export interface FuzzKeys {
  key: string;
  revokedKey: string;
}

/** What a body is made of, for the statistics. */
export type BodyKind =
  | 'bytes'
  | 'invalid-utf8'
  | 'truncated'
  | 'nested'
  | 'json'
  | 'request'
  | 'batch'
  | 'giant-batch'
  | 'empty'
  | 'oversized';

/** One HTTP request to send. */
export interface FuzzExchange {
  method: string;
  path: string;
  /** The Content-Type header, or undefined to send none. */
  contentType: string | undefined;
  body: Uint8Array;
  kind: BodyKind;
  /** JSON-RPC calls in the body (batch items count one each; 0 when it is not JSON-RPC). */
  calls: number;
}

/** Deepest nesting sent: the issue asks for 10,000 levels. */
export const MAX_NESTING = 10_000;

/**
 * Weights of exchanges sent as POST to the key's path with application/json (where the body matters) and of exchanges
 * with any method, path and Content-Type: 85% and 15%.
 */
const WELL_ADDRESSED_WEIGHT = 17;
const ANYWHERE_WEIGHT = 3;

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/**
 * Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, surrogates, bytes above U+10FFFF,
 * truncated sequences.
 */
const INVALID_UTF8 = [
  [0xff],
  [0x80],
  [0xc0, 0x80],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
  [0xe2, 0x82],
];

/** A path and the key it names: the key's, a revoked or unknown key, no key, or a path outside the API. */
function pathArb(keys: FuzzKeys): fc.Arbitrary<string> {
  const query = fc.oneof(fc.constant(''), fc.constantFrom('?', '?x=1', '?key=' + keys.key));
  return fc.oneof(
    { weight: 10, arbitrary: query.map((q) => `/v3/${keys.key}${q}`) },
    fc.constant(`/v3/${keys.revokedKey}`),
    fc.stringMatching(/^[0-9a-zA-Z_-]{1,80}$/).map((k) => `/v3/${k}`),
    fc.constantFrom(
      '/v3',
      '/v3/',
      '/v3?x',
      `/v3/${keys.key}/`,
      `/v3/${keys.key}/x`,
      '/',
      '/v2/' + keys.key,
      '/v3x',
      '/V3/' + keys.key,
      '//v3/' + keys.key,
      '/metrics',
      '/health',
      '/ready?x=1',
      '/healthz',
    ),
    fc.stringMatching(/^\/r[0-9a-zA-Z/._~%-]{0,60}$/),
  );
}

const methodArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant('POST') },
  fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
);

const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/json;',
    ' application/json',
    'text/plain',
    'application/jsonx',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
    undefined,
  ),
  fc.stringMatching(/^[a-z]{1,10}\/[a-z+.-]{1,16}$/),
);

/** Nested arrays or objects `depth` deep around `inner`, or only the openings (unbalanced). */
function nest(depth: number, inner: string, shape: 'array' | 'object' | 'unbalanced'): string {
  if (shape === 'array') return '['.repeat(depth) + inner + ']'.repeat(depth);
  if (shape === 'object') return '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
  return '['.repeat(depth);
}

/** A body nesting up to MAX_NESTING levels: the whole body, a params value, an id, or a filter field. */
const nestedArb = fc
  .record({
    depth: fc.oneof(
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 1, max: MAX_NESTING }),
      fc.constant(MAX_NESTING),
    ),
    shape: fc.constantFrom('array' as const, 'object' as const, 'unbalanced' as const),
    place: fc.nat(3),
  })
  .map(({ depth, shape, place }) => {
    const nested = nest(depth, '1', shape);
    if (place === 0) return nested;
    if (place === 1) return `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[${nested}]}`;
    if (place === 2) return `{"jsonrpc":"2.0","id":${nested},"method":"eth_blockNumber","params":[]}`;
    return `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"address":${nested},"topics":${nested}}]}`;
  });

/**
 * Largest giant batch body made: past the body limit (so some are refused with 413), far from what a JSON string can
 * hold.
 */
const GIANT_BODY_CAP = MAX_BODY_BYTES + 64 * 1024;

/**
 * A batch of `count` copies of `item` with ids 0, 1, …; fewer when the copies would pass GIANT_BODY_CAP (an item may
 * carry thousands of addresses).
 */
function giantBatch(
  item: Record<string, unknown>,
  count: number,
): { body: Uint8Array; kind: 'giant-batch'; calls: number } {
  const rest = JSON.stringify({ ...item, id: undefined }).slice(1);
  const copies = Math.max(1, Math.min(count, Math.floor(GIANT_BODY_CAP / (rest.length + 16))));
  const items = Array.from({ length: copies }, (_, i) => `{"id":${i}${rest === '}' ? '' : ','}${rest}`);
  return { body: utf8(`[${items.join(',')}]`), kind: 'giant-batch', calls: copies };
}

/** A body of `kind` with the number of JSON-RPC calls in it. */
function bodyArb(corpus: FuzzCorpus): fc.Arbitrary<{ body: Uint8Array; kind: BodyKind; calls: number }> {
  const request = requestArb(corpus);
  // Weights out of 74: single requests lead (40%, where the per-method params are fuzzed), then
  // batches, malformed bytes and text; giant batches, empty and oversized bodies are rare, as each
  // costs far more than the others or adds little past its first few.
  return fc.oneof(
    {
      weight: 30,
      arbitrary: request.map((r) => ({ body: utf8(JSON.stringify(r)), kind: 'request' as const, calls: 1 })),
    },
    {
      weight: 10,
      arbitrary: fc
        .array(fc.oneof({ weight: 4, arbitrary: request }, fc.jsonValue({ maxDepth: 2 })), { maxLength: 24 })
        .map((b) => ({ body: utf8(JSON.stringify(b)), kind: 'batch' as const, calls: b.length })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          item: request,
          count: fc.oneof(
            fc.integer({ min: 100, max: MAX_BATCH_ITEMS }),
            fc.constantFrom(MAX_BATCH_ITEMS, MAX_BATCH_ITEMS + 1, 5 * MAX_BATCH_ITEMS),
          ),
        })
        .map(({ item, count }) => giantBatch(item, count)),
    },
    {
      weight: 8,
      arbitrary: fc.uint8Array({ maxLength: 600 }).map((body) => ({ body, kind: 'bytes' as const, calls: 0 })),
    },
    {
      weight: 6,
      arbitrary: fc
        .record({ r: request, at: fc.nat(), bad: fc.constantFrom(...INVALID_UTF8) })
        .map(({ r, at, bad }) => {
          const bytes = Buffer.from(JSON.stringify(r), 'utf8');
          const cut = at % (bytes.length + 1);
          return {
            body: new Uint8Array(Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)])),
            kind: 'invalid-utf8' as const,
            calls: 0,
          };
        }),
    },
    {
      weight: 6,
      arbitrary: fc
        .record({ r: fc.oneof(request, fc.array(request, { minLength: 1, maxLength: 5 })), at: fc.nat() })
        .map(({ r, at }) => {
          const bytes = Buffer.from(JSON.stringify(r), 'utf8');
          return { body: new Uint8Array(bytes.subarray(0, at % bytes.length)), kind: 'truncated' as const, calls: 0 };
        }),
    },
    { weight: 4, arbitrary: nestedArb.map((t) => ({ body: utf8(t), kind: 'nested' as const, calls: 0 })) },
    {
      weight: 6,
      arbitrary: fc
        .jsonValue()
        .map((v) => ({ body: utf8(JSON.stringify(v)), kind: 'json' as const, calls: Array.isArray(v) ? v.length : 1 })),
    },
    { weight: 1, arbitrary: fc.constant({ body: new Uint8Array(0), kind: 'empty' as const, calls: 0 }) },
    {
      weight: 1,
      arbitrary: fc
        .constant(null)
        .map(() => ({ body: new Uint8Array(MAX_BODY_BYTES + 1).fill(0x20), kind: 'oversized' as const, calls: 0 })),
    },
  );
}

/**
 * One HTTP exchange: mostly a POST to the key's path with application/json, otherwise any method, path and
 * Content-Type.
 */
export function exchangeArb(corpus: FuzzCorpus, keys: FuzzKeys): fc.Arbitrary<FuzzExchange> {
  const body = bodyArb(corpus);
  const addressed = fc.constant({
    method: 'POST',
    path: `/v3/${keys.key}`,
    contentType: 'application/json' as string | undefined,
  });
  const anywhere = fc.record({ method: methodArb, path: pathArb(keys), contentType: contentTypeArb });
  return fc
    .tuple(
      fc.oneof(
        { weight: WELL_ADDRESSED_WEIGHT, arbitrary: addressed },
        { weight: ANYWHERE_WEIGHT, arbitrary: anywhere },
      ),
      body,
    )
    .map(([envelope, b]) => ({ ...envelope, ...b }));
}

/** Raw bytes for a socket: a request line, headers and a body, any part of them malformed, or plain noise. */
export function rawRequestArb(keys: FuzzKeys): fc.Arbitrary<Uint8Array> {
  const body = '{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}';
  const line = fc.oneof(
    { weight: 4, arbitrary: fc.constant(`POST /v3/${keys.key} HTTP/1.1`) },
    fc.constantFrom(
      `FOO /v3/${keys.key} HTTP/1.1`,
      `POST /v3/${keys.key} HTTP/9.9`,
      `POST /v3/${keys.key} HTTP/1.0`,
      `POST /v3/${keys.key}`,
      `POST  /v3/${keys.key}  HTTP/1.1`,
      'POST * HTTP/1.1',
      `post /v3/${keys.key} HTTP/1.1`,
      `POST http://x/v3/${keys.key} HTTP/1.1`,
    ),
    fc.string({ maxLength: 60 }),
  );
  const header = fc.oneof(
    fc.constantFrom(
      'Host: x',
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      'Content-Length: 0',
      'Content-Length: -5',
      'Content-Length: 99999999999999999999',
      'Content-Length: 12abc',
      'Connection: close',
      'Expect: 100-continue',
      'Content-Type: application/json\u0000',
      ': empty',
      'NoColon',
    ),
    fc.integer({ min: 0, max: 30_000 }).map((n) => 'X-Long: ' + 'a'.repeat(n)),
    fc.string({ maxLength: 40 }).map((s) => `X-${s}`),
  );
  const bodyPart = fc.oneof(
    fc.constant(body),
    fc.nat(body.length).map((n) => body.slice(0, n)),
    fc.constant(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
    fc.constantFrom('ZZ\r\nabc\r\n0\r\n\r\n', '5\r\n{"jso\r\n', 'ffffffffffffffff\r\n{}\r\n0\r\n\r\n'),
    fc.string({ maxLength: 100 }),
  );
  const structured = fc
    .record({
      line,
      headers: fc.array(header, { maxLength: 6 }),
      length: fc.oneof(fc.constant('exact'), fc.constant('none'), fc.integer({ min: -2, max: 200 })),
      body: bodyPart,
      eol: fc.constantFrom('\r\n', '\n'),
      repeat: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ line, headers, length, body: b, eol, repeat }) => {
      const all = ['Host: x', ...headers];
      if (length === 'exact') all.push(`Content-Length: ${Buffer.byteLength(b)}`);
      else if (typeof length === 'number') all.push(`Content-Length: ${length}`);
      const one = line + eol + all.join(eol) + eol + eol + b;
      return new Uint8Array(Buffer.from(one.repeat(repeat), 'utf8'));
    });
  return fc.oneof({ weight: 4, arbitrary: structured }, fc.uint8Array({ maxLength: 400 }));
}
