/**
 * The workload tools' pure parts: Lua long strings hold any body verbatim, the latency histogram's
 * percentiles are within its 1% buckets, mixes and corpus files are checked with clear messages.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LatencyHistogram } from '#src/workload/loadClient.js';
import { checkMix, MIXES, MixError, parseCorpus } from '#src/workload/mixes.js';
import { SHAPES } from '#src/workload/shapes.js';
import { luaLongString } from '#src/workload/wrkLua.js';

/** What Lua reads from a long string: the text between the brackets of its level. */
function luaRead(literal: string): string {
  const level = /^\[(=*)\[/.exec(literal)![1]!.length;
  const close = `]${'='.repeat(level)}]`;
  const body = literal.slice(level + 2, -(level + 2));
  assert.ok(literal.endsWith(close) && !body.includes(close), literal);
  assert.ok(level >= 1, 'level 0 is avoided: Lua 5.1 refuses a nested [[');
  return body;
}

test('luaLongString: any text, brackets and = signs included, reads back verbatim', () => {
  for (const text of ['[[1]]', '{"a":[["x"]]}', ']=]', ']==]]=]', '']) assert.equal(luaRead(luaLongString(text)), text);
  fc.assert(fc.property(fc.stringMatching(/^[\][="a]*$/), (text) => luaRead(luaLongString(text)) === text));
});

test('LatencyHistogram: percentiles within 1% of the exact ones', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.01, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 500 }),
      fc.constantFrom(50, 99, 99.9),
      (values, p) => {
        const h = new LatencyHistogram();
        for (const v of values) h.add(v);
        const sorted = [...values].sort((a, b) => a - b);
        const exact = sorted[Math.ceil((p / 100) * sorted.length) - 1]!;
        const got = h.percentile(p);
        return got >= exact * 0.999 && got <= exact * 1.0101 + 1e-9;
      },
    ),
  );
  assert.equal(new LatencyHistogram().percentile(99), 0);
});

test('the named mixes name only real shapes, and all of them together cover every shape', () => {
  const names = new Set(SHAPES.map((s) => s.name));
  for (const mix of Object.values(MIXES)) for (const shape of Object.keys(mix)) assert.ok(names.has(shape), shape);
  const covered = new Set(['realtime', 'backfill', 'explorer'].flatMap((m) => Object.keys(MIXES[m]!)));
  assert.deepEqual(
    [...names].filter((n) => !covered.has(n)),
    [],
  );
});

test('checkMix and parseCorpus refuse what they cannot use, saying why', () => {
  const cases: [unknown, RegExp][] = [
    [[], /must hold a JSON object/],
    [{ nope: 1 }, /unknown shape "nope"/],
    [{ receipt: -1 }, /non-negative number/],
    [{ receipt: 0 }, /at least one shape a positive weight/],
  ];
  for (const [value, message] of cases)
    assert.throws(
      () => checkMix(value, 'm.json'),
      (e: Error) => e instanceof MixError && message.test(e.message),
    );
  assert.deepEqual(checkMix({ receipt: 2, storage: 0 }, 'm.json'), { receipt: 2, storage: 0 });
  assert.throws(() => parseCorpus('{"shape":"x","body":{}}\nnot json\n', 'w.jsonl'), /w\.jsonl:2:/);
  assert.throws(() => parseCorpus('{"body":{}}\n', 'w.jsonl'), /w\.jsonl:1: each line must be/);
  assert.throws(() => parseCorpus('\n', 'w.jsonl'), /holds no request/);
  assert.deepEqual(parseCorpus('{"shape":"x","body":[]}\n', 'w'), [{ shape: 'x', body: [] }]);
});
