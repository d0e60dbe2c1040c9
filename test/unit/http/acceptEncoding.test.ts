/**
 * The Accept-Encoding parser and the coding choice, table-driven: weights, `*`, `identity`, the
 * x-gzip alias, case, spacing, malformed elements (skipped, never an error) and ties (the server's order).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { negotiate, parseAcceptEncoding } from '#src/http/acceptEncoding.js';

/** The codings the service offers, in its order of preference. */
const OFFERED = ['br', 'gzip'] as const;

test('parsing: the weight of each named coding, and of *', () => {
  const cases: [string, Record<string, number>, number | undefined][] = [
    ['', {}, undefined],
    ['gzip', { gzip: 1 }, undefined],
    ['gzip, deflate, br', { gzip: 1, deflate: 1, br: 1 }, undefined],
    ['GZip;Q=0.5 , BR', { gzip: 0.5, br: 1 }, undefined],
    ['gzip;q=1.0, identity; q=0.5, *;q=0', { gzip: 1, identity: 0.5 }, 0],
    ['*', {}, 1],
    ['x-gzip', { gzip: 1 }, undefined],
    ['x-gzip;q=0.2, gzip;q=0.9', { gzip: 0.2 }, undefined],
    ['gzip;q=0, gzip;q=1', { gzip: 0 }, undefined],
    ['br;q=0.001, gzip;q=0.000', { br: 0.001, gzip: 0 }, undefined],
    [' , ,gzip,, ', { gzip: 1 }, undefined],
    ['gzip;level=9', { gzip: 1 }, undefined],
    ['gzip;level=9;q=0.3', { gzip: 0.3 }, undefined],
    // Malformed weights and names skip their element only.
    ['gzip;q=1.5, br', { br: 1 }, undefined],
    ['gzip;q=0.0001, br;q=-1, deflate;q=, identity;q=abc, zstd;q', {}, undefined],
    ['gzip;q=.5, br;q=1.', { br: 1 }, undefined],
    ['g zip, "br", gzip', { gzip: 1 }, undefined],
    [';q=0.5, gzip', { gzip: 1 }, undefined],
    ['*;q=0.5, *;q=1', {}, 0.5],
  ];
  for (const [header, named, any] of cases) {
    const parsed = parseAcceptEncoding(header);
    assert.deepEqual(Object.fromEntries(parsed.named), named, JSON.stringify(header));
    assert.equal(parsed.any, any, JSON.stringify(header));
  }
});

test('negotiation: the coding to use, and whether an answer without one is acceptable', () => {
  const cases: [string, 'br' | 'gzip' | null, boolean][] = [
    // No preference, or nothing we offer: no coding.
    ['', null, true],
    ['deflate', null, true],
    ['compress, deflate;q=0.5', null, true],
    // What node's fetch, ethers, curl --compressed and browsers send.
    ['gzip, deflate', 'gzip', true],
    ['gzip', 'gzip', true],
    ['deflate, gzip, br, zstd', 'br', true],
    ['gzip, deflate, br', 'br', true],
    // Weights decide; ties go to the server's order.
    ['br;q=0.5, gzip', 'gzip', true],
    ['br;q=0.9, gzip;q=0.9', 'br', true],
    ['gzip;q=0.4, br;q=0.3', 'gzip', true],
    ['gzip;q=0, br;q=0', null, true],
    ['x-gzip', 'gzip', true],
    ['*', 'br', true],
    ['*;q=0.5, br;q=0', 'gzip', true],
    // identity weighed above every coding offered: none; at least as high: compress.
    ['gzip;q=0.5, identity', null, true],
    ['gzip;q=0.5, identity;q=0.5', 'gzip', true],
    ['identity', null, true],
    // identity refused.
    ['identity;q=0, gzip', 'gzip', false],
    ['*;q=0, br', 'br', false],
    ['*;q=0', null, false],
    ['identity;q=0', null, false],
    ['*;q=0, identity', null, true],
    ['*;q=0, identity;q=0.1, gzip;q=0.2', 'gzip', true],
  ];
  for (const [header, coding, identity] of cases) {
    assert.deepEqual(negotiate(parseAcceptEncoding(header), OFFERED), { coding, identity }, JSON.stringify(header));
  }
});

test('negotiation offers only what the server offers', () => {
  assert.deepEqual(negotiate(parseAcceptEncoding('br, gzip;q=0.5'), ['gzip']), { coding: 'gzip', identity: true });
  assert.deepEqual(negotiate(parseAcceptEncoding('br'), ['gzip']), { coding: null, identity: true });
  assert.deepEqual(negotiate(parseAcceptEncoding('gzip'), []), { coding: null, identity: true });
});

test(
  'any header at all parses without throwing, to weights from 0 to ' + '1, and negotiates to an offered coding or none',
  () => {
    const piece = fc.oneof(
      fc.constantFrom('gzip', 'br', 'identity', '*', 'x-gzip', ';', ',', 'q=', '=', ' ', '0.5', '1', '0', 'Q', '\t'),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const parsed = parseAcceptEncoding(pieces.join(''));
        for (const q of [...parsed.named.values(), ...(parsed.any === undefined ? [] : [parsed.any])])
          assert.ok(q >= 0 && q <= 1);
        const { coding } = negotiate(parsed, OFFERED);
        assert.ok(coding === null || OFFERED.includes(coding));
      }),
    );
  },
);
