import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Random, Zipf } from '#src/synth/random.js';

test('streams are determined by (seed, domain, index) and differ across them', () => {
  const draw = (r: Random) => Array.from({ length: 8 }, () => r.u32());
  assert.deepEqual(draw(Random.derive('s', 'block', 7)), draw(Random.derive('s', 'block', 7)));
  assert.notDeepEqual(draw(Random.derive('s', 'block', 7)), draw(Random.derive('s', 'block', 8)));
  assert.notDeepEqual(draw(Random.derive('s', 'block', 7)), draw(Random.derive('t', 'block', 7)));
  assert.notDeepEqual(draw(Random.derive('s', 'block', 7)), draw(Random.derive('s', 'senders', 7)));
});

test('draws stay in their ranges', () => {
  const r = Random.derive('ranges', 'x');
  for (let i = 0; i < 10_000; i++) {
    const f = r.float();
    assert.ok(f >= 0 && f < 1);
    const n = r.int(-3, 5);
    assert.ok(Number.isInteger(n) && n >= -3 && n <= 5);
    const b = r.bigint(10n, 1000n);
    assert.ok(b >= 10n && b < 1000n);
    assert.ok(r.bigBits(255) < 1n << 255n);
  }
  assert.equal(r.bytes(37).length, 37);
  assert.equal(r.bigBits(0), 0n);
  assert.throws(() => r.bigint(5n, 5n), RangeError);
});

test('int covers its range roughly uniformly', () => {
  const r = Random.derive('uniform', 'x');
  const counts = new Array(10).fill(0);
  for (let i = 0; i < 100_000; i++) counts[r.int(0, 9)]++;
  for (const c of counts) assert.ok(c > 9_000 && c < 11_000, `bucket ${c}`);
});

test('Zipf ranks are skewed as the law says', () => {
  const z = new Zipf(1000, 1);
  const r = Random.derive('zipf', 'x');
  let top10 = 0;
  for (let i = 0; i < 100_000; i++) if (z.sample(r) < 10) top10++;
  assert.ok(Math.abs(top10 / 100_000 - z.share(10)) < 0.01);
  assert.ok(z.share(10) > 0.38 && z.share(10) < 0.4, 'H(10)/H(1000) ≈ 0.39');
  assert.equal(z.share(1000), 1);
});
