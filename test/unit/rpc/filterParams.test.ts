/**
 * parseFilter, table-driven as geth's filter tests: the accepted forms (tags and numbers, one or
 * many addresses, topic positions with wildcards and alternatives, case-insensitive field names,
 * blockHash alone) give the typed FilterSpec; each refusal gives geth's message, or the log
 * engine's domain error for the topic-position and parameter limits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bytesToHex } from '#src/chain/hex.js';
import { TooManyParamsError, TooManyTopicsError } from '#src/logs/errors.js';
import { countFilterParams, type FilterSpec } from '#src/logs/filter.js';
import { InvalidParamsError } from '#src/rpc/errors.js';
import { parseFilter } from '#src/rpc/filterParams.js';

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const T = '0x' + '11'.repeat(32);
const U = '0x' + '22'.repeat(32);
const H = '0x' + '33'.repeat(32);

/** A spec as hex, for readable comparisons. */
function shown(spec: FilterSpec): unknown {
  return {
    blockHash: spec.blockHash && bytesToHex(spec.blockHash),
    fromBlock: spec.fromBlock,
    toBlock: spec.toBlock,
    addresses: spec.addresses.map(bytesToHex),
    topics: spec.topics.map((p) => (p === null ? null : p.map(bytesToHex))),
  };
}

test('accepted filters and the spec each gives', () => {
  const cases: [unknown, unknown][] = [
    [{}, { blockHash: undefined, fromBlock: { tag: 'latest' }, toBlock: { tag: 'latest' }, addresses: [], topics: [] }],
    [
      { fromBlock: '0x0', toBlock: 'finalized' },
      { blockHash: undefined, fromBlock: { number: 0 }, toBlock: { tag: 'finalized' }, addresses: [], topics: [] },
    ],
    [
      { fromBlock: 'earliest', toBlock: null, address: A },
      { blockHash: undefined, fromBlock: { tag: 'earliest' }, toBlock: { tag: 'latest' }, addresses: [A], topics: [] },
    ],
    [
      { address: [A, B], topics: [T, null, [T, U]] },
      {
        blockHash: undefined,
        fromBlock: { tag: 'latest' },
        toBlock: { tag: 'latest' },
        addresses: [A, B],
        topics: [[T], null, [T, U]],
      },
    ],
    [
      { topics: [[], [T, null]] },
      {
        blockHash: undefined,
        fromBlock: { tag: 'latest' },
        toBlock: { tag: 'latest' },
        addresses: [],
        topics: [null, null],
      },
    ],
    [
      { BLOCKHASH: H, Address: A.toUpperCase().replace('0X', '0x') },
      { blockHash: H, fromBlock: { tag: 'latest' }, toBlock: { tag: 'latest' }, addresses: [A], topics: [] },
    ],
    [
      { fromblock: '0x10', TOBLOCK: '0x1f' },
      { blockHash: undefined, fromBlock: { number: 16 }, toBlock: { number: 31 }, addresses: [], topics: [] },
    ],
  ];
  for (const [raw, expected] of cases) assert.deepEqual(shown(parseFilter(raw, 5000)), expected, JSON.stringify(raw));
});

test("refusals: geth's messages", () => {
  const cases: [unknown, string][] = [
    [null, 'invalid argument 0: filter must be an object'],
    [[{}], 'invalid argument 0: filter must be an object'],
    [
      { address: '0x1234' },
      'invalid argument 0: invalid address: hex has invalid length 2 after decoding; expected 20 for address',
    ],
    [{ address: 'aa'.repeat(20) }, 'invalid argument 0: invalid address: hex string without 0x prefix'],
    [{ address: [A, 7] }, 'invalid argument 0: non-string address at index 1'],
    [{ address: 5 }, 'invalid argument 0: invalid addresses in query'],
    [
      { topics: [T.slice(0, -2)] },
      'invalid argument 0: hex has invalid length 31 after decoding; expected 32 for topic',
    ],
    [{ topics: 'x' }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: [[5]] }, 'invalid argument 0: invalid topic(s)'],
    [
      { blockHash: H, fromBlock: '0x1' },
      'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    ],
  ];
  for (const [raw, message] of cases) {
    assert.throws(
      () => parseFilter(raw, 5000),
      (error: unknown) => error instanceof InvalidParamsError && error.message === message,
      JSON.stringify(raw),
    );
  }
});

test("the limits are the engine's domain errors", () => {
  assert.throws(
    () => parseFilter({ topics: [null, null, null, null, null] }, 5000),
    (e: unknown) => e instanceof TooManyTopicsError && e.positions === 5 && e.max === 4,
  );
  assert.throws(
    () => parseFilter({ address: [A, B], topics: [[T, U]] }, 3),
    (e: unknown) => e instanceof TooManyParamsError && e.count === 4 && e.max === 3,
  );
  assert.equal(
    countFilterParams(parseFilter({ address: [A, B], topics: [[T, U]] }, 4)),
    4,
    'exactly at the limit is accepted',
  );
});

test(
  'property: any well-formed filter parses to its own addresses ' +
    'and topics, counted as addresses plus topic values',
  () => {
    const word = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => bytesToHex(b));
    const position = fc.oneof(fc.constant(null), word(32), fc.array(word(32), { minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(word(20), { maxLength: 4 }), fc.array(position, { maxLength: 4 }), (addresses, topics) => {
        const spec = parseFilter({ address: addresses, topics }, 5000);
        assert.deepEqual(spec.addresses.map(bytesToHex), addresses);
        assert.deepEqual(
          spec.topics.map((p) => (p === null ? null : p.map(bytesToHex))),
          topics.map((p) => (p === null ? null : typeof p === 'string' ? [p] : p)),
        );
        assert.equal(
          countFilterParams(spec),
          addresses.length + topics.reduce((n, p) => n + (p === null ? 0 : typeof p === 'string' ? 1 : p.length), 0),
        );
      }),
      { numRuns: 300 },
    );
  },
);
