/**
 * rateLimiterFor: no limiter without a rate (the default) or with 0; the burst defaults to one
 * second of the rate, at least one call; an explicit burst is kept.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimiterFor } from '#src/limits/options.js';

test('the limiter a rate-limit option builds', () => {
  const cases: [Parameters<typeof rateLimiterFor>[0], { perSecond: number; burst: number } | undefined][] = [
    [undefined, undefined],
    [{ perSecond: 0 }, undefined],
    [{ perSecond: 10 }, { perSecond: 10, burst: 10 }],
    [{ perSecond: 0.2 }, { perSecond: 0.2, burst: 1 }],
    [{ perSecond: 2.5 }, { perSecond: 2.5, burst: 3 }],
    [
      { perSecond: 10, burst: 50 },
      { perSecond: 10, burst: 50 },
    ],
  ];
  for (const [options, expected] of cases) {
    const limiter = rateLimiterFor(options);
    assert.deepEqual(
      limiter === undefined ? undefined : { perSecond: limiter.limit.perSecond, burst: limiter.limit.burst },
      expected,
      JSON.stringify(options),
    );
  }
});
