import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { nestsDeeperThan } from '#src/rpc/jsonDepth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** The nesting depth of a parsed JSON value: 0 for a scalar, 1 for `[]` or `{}`. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

test('nestsDeeperThan: a table of texts and limits', () => {
  const cases: [string, number, boolean][] = [
    ['[]', 1, false],
    ['[[]]', 1, true],
    ['[[]]', 2, false],
    ['{"a":{"b":[1]}}', 2, true],
    ['{"a":{"b":[1]}}', 3, false],
    ['["[[[[", "{{{{"]', 1, false],
    ['["\\"[[[["]', 1, false],
    ['["\\\\",[[1]]]', 2, true],
    ['[][][][]', 1, false],
    ['[[[[', 3, true],
    ['[[[[', 4, false],
    ['"unterminated [[[[', 1, false],
    ['', 0, false],
    ['7', 0, false],
  ];
  for (const [text, max, expected] of cases)
    assert.equal(nestsDeeperThan(bytes(text), max), expected, `${text} at ${max}`);
});

test('nestsDeeperThan: 2.5 million levels are refused at the first byte past the limit', () => {
  assert.equal(nestsDeeperThan(bytes('['.repeat(2_500_000)), 128), true);
  assert.equal(nestsDeeperThan(bytes('['.repeat(128) + ']'.repeat(128)), 128), false);
});

test(
  'nestsDeeperThan: agrees with the depth of what JSON.parse ' + 'reads, strings with brackets and escapes included',
  () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(10), (value, max) => {
        const text = JSON.stringify(value);
        assert.equal(nestsDeeperThan(bytes(text), max), depthOf(JSON.parse(text)) > max, text);
      }),
    );
  },
);
