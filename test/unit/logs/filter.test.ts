import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Log } from '#src/chain/types.js';
import { MAX_TOPIC_POSITIONS } from '#src/config.js';
import { TooManyParamsError, TooManyTopicsError } from '#src/logs/errors.js';
import {
  checkParamCount,
  checkTopicPositions,
  compileFilter,
  countFilterParams,
  type FilterSpec,
  matchLog,
} from '#src/logs/filter.js';

/** A one-byte-distinguished 20- or 32-byte value, so random filters and logs share values often. */
const word = (size: number) => fc.integer({ min: 0, max: 3 }).map((v) => new Uint8Array(size).fill(v));
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The eth_getLogs matching rule written out independently: address among the addresses (none: any);
 * no more positions than the log has topics (geth's filter.go: even a trailing wildcard needs its
 * topic); each position null or among its alternatives.
 */
function referenceMatch(addresses: Uint8Array[], topics: (Uint8Array[] | null)[], log: Log): boolean {
  if (addresses.length > 0 && !addresses.some((a) => equal(a, log.address))) return false;
  return topics.every(
    (alternatives, i) =>
      i < log.topics.length && (alternatives === null || alternatives.some((t) => equal(t, log.topics[i]!))),
  );
}

/** A log with `topics`, at `address` (the other fields do not take part in matching). */
function log(address: Uint8Array, topics: Uint8Array[]): Log {
  return { address, topics, data: new Uint8Array(0) } as unknown as Log;
}

const spec = (addresses: Uint8Array[], topics: (Uint8Array[] | null)[]): FilterSpec => ({
  fromBlock: { tag: 'earliest' },
  toBlock: { tag: 'latest' },
  addresses,
  topics,
});

test('matchLog: a table of the rule (geth filter_test.go style)', () => {
  const a = new Uint8Array(20).fill(1);
  const b = new Uint8Array(20).fill(2);
  const t1 = new Uint8Array(32).fill(1);
  const t2 = new Uint8Array(32).fill(2);
  const cases: [string, Uint8Array[], (Uint8Array[] | null)[], Log, boolean][] = [
    ['no condition matches any log', [], [], log(a, []), true],
    ['the address', [a], [], log(a, [t1]), true],
    ['another address', [b], [], log(a, [t1]), false],
    ['any of the addresses', [b, a], [], log(a, []), true],
    ['topic0', [], [[t1]], log(a, [t1, t2]), true],
    ['topic0 mismatched', [], [[t2]], log(a, [t1, t2]), false],
    ['a wildcard then topic1', [], [null, [t2]], log(a, [t1, t2]), true],
    ['alternatives in a position (OR)', [], [[t2, t1]], log(a, [t1]), true],
    ['a position past the log topics, even a wildcard', [], [null, null], log(a, [t1]), false],
    ['a wildcard position within the topics', [], [null], log(a, [t1]), true],
    ['address and topic both required', [b], [[t1]], log(a, [t1]), false],
  ];
  for (const [name, addresses, topics, l, want] of cases)
    assert.equal(matchLog(compileFilter(spec(addresses, topics)), l), want, name);
});

test('matchLog agrees with an independent matcher on random filters and logs', () => {
  const position = fc.option(fc.array(word(32), { minLength: 1, maxLength: 3 }), { nil: null });
  fc.assert(
    fc.property(
      fc.array(word(20), { maxLength: 3 }),
      fc.array(position, { maxLength: MAX_TOPIC_POSITIONS }),
      word(20),
      fc.array(word(32), { maxLength: 4 }),
      (addresses, topics, address, logTopics) => {
        const l = log(address, logTopics);
        assert.equal(matchLog(compileFilter(spec(addresses, topics)), l), referenceMatch(addresses, topics, l));
      },
    ),
    { numRuns: 2000 },
  );
});

test('countFilterParams and checkParamCount: addresses plus topic values, refused past the limit', () => {
  const t = new Uint8Array(32);
  const s = spec([new Uint8Array(20), new Uint8Array(20)], [[t, t], null, [t]]);
  assert.equal(countFilterParams(s), 5);
  checkParamCount(s, 5);
  assert.throws(
    () => checkParamCount(s, 4),
    (e: unknown) => e instanceof TooManyParamsError,
  );
  assert.equal(countFilterParams(spec([], [])), 0);
});

test('checkTopicPositions: at most MAX_TOPIC_POSITIONS positions', () => {
  checkTopicPositions(new Array(MAX_TOPIC_POSITIONS).fill(null));
  assert.throws(
    () => checkTopicPositions(new Array(MAX_TOPIC_POSITIONS + 1).fill(null)),
    (e: unknown) => e instanceof TooManyTopicsError,
  );
});
