import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isCanonical, splitCanonicalCall } from '#src/rpc/canonicalCall.js';

const HEAD = '{"jsonrpc":"2.0","id":';

test('splitCanonicalCall: a table of texts and where they are cut', () => {
  const cases: [string, { id: string; rest: string } | undefined][] = [
    [`${HEAD}7,"method":"m"}`, { id: '7', rest: ',"method":"m"}' }],
    [`${HEAD}0,"method":"m"}`, { id: '0', rest: ',"method":"m"}' }],
    [`${HEAD}123456789012345,"method":"m"}`, { id: '123456789012345', rest: ',"method":"m"}' }],
    [`${HEAD}1234567890123456,"method":"m"}`, undefined],
    [`${HEAD}07,"method":"m"}`, undefined],
    [`${HEAD}-7,"method":"m"}`, undefined],
    [`${HEAD}7.5,"method":"m"}`, undefined],
    [`${HEAD}7e2,"method":"m"}`, undefined],
    [`${HEAD}"7","method":"m"}`, undefined],
    [`${HEAD}null,"method":"m"}`, undefined],
    [`${HEAD}7}`, undefined],
    [`${HEAD}7 ,"method":"m"}`, undefined],
    [`${HEAD},"method":"m"}`, undefined],
    [HEAD, undefined],
    [`${HEAD}7`, undefined],
    ['{"id":7,"jsonrpc":"2.0","method":"m"}', undefined],
    ['{ "jsonrpc":"2.0","id":7,"method":"m"}', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of cases) assert.deepEqual(splitCanonicalCall(text), expected, text);
});

test('isCanonical: only the text JSON.stringify writes of the value', () => {
  const cases: [string, boolean][] = [
    [`${HEAD}7,"method":"m","params":["0x1",false]}`, true],
    [`${HEAD}7,"method":"m","params":["0x1", false]}`, false],
    [`${HEAD}7,"method":"m","params":["0x1",false],"id":8}`, false],
    [`${HEAD}7,"method":"m","params":["\\u0030x1",false]}`, false],
    [`${HEAD}7,"method":"m","params":[1.0]}`, false],
    [`${HEAD}7,"method":"m","params":["é"]}`, true],
  ];
  for (const [text, expected] of cases) assert.equal(isCanonical(text, JSON.parse(text)), expected, text);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(
    isCanonical('{}', cyclic),
    false,
    'a value that cannot be written is not canonical (and does not throw)',
  );
});

test('a canonical call with another integer id in its place parses to the same call with that id (property)', () => {
  const request = fc.record({ method: fc.string(), params: fc.array(fc.jsonValue(), { maxLength: 4 }) });
  const id = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
  fc.assert(
    fc.property(request, id, id, ({ method, params }, first, second) => {
      const text = JSON.stringify({ jsonrpc: '2.0', id: first, method, params });
      const split = splitCanonicalCall(text);
      if (first > 999_999_999_999_999) return assert.equal(split, undefined);
      assert.ok(split !== undefined && isCanonical(text, JSON.parse(text)));
      assert.equal(split.id, String(first));
      const other = HEAD + String(second) + split.rest;
      assert.deepEqual(JSON.parse(other), JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: second, method, params })));
    }),
    { numRuns: 500 },
  );
});
