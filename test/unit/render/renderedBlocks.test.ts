/**
 * RenderedBlocks: an entry is served only for the hash it was rendered for, per format, and the oldest go past the
 * bound.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { RenderedBlocks } from '#src/render/renderedBlocks.js';

const hash = (byte: number) => new Uint8Array(32).fill(byte);

describe('RenderedBlocks', () => {
  test('serves a block for the hash and format it was rendered for, and nothing else', () => {
    const cache = new RenderedBlocks();
    cache.set(7, false, hash(1), '{"hashes"}');
    cache.set(7, true, hash(1), '{"full"}');
    const cases: [number, boolean, number, string | undefined][] = [
      [7, false, 1, '{"hashes"}'],
      [7, true, 1, '{"full"}'],
      [7, false, 2, undefined],
      [8, false, 1, undefined],
    ];
    for (const [number, full, byte, expected] of cases)
      assert.equal(cache.get(number, full, hash(byte)), expected, `${number} ${full} ${byte}`);
  });

  test('a block rendered again for a new hash (a reorg) replaces the old entry', () => {
    const cache = new RenderedBlocks();
    cache.set(3, false, hash(1), 'old');
    cache.set(3, false, hash(2), 'new');
    assert.equal(cache.get(3, false, hash(1)), undefined);
    assert.equal(cache.get(3, false, hash(2)), 'new');
  });

  test('the hash is copied: a reused read buffer changing later does not change the entry', () => {
    const cache = new RenderedBlocks();
    const buffer = hash(5);
    cache.set(1, false, buffer, 'x');
    buffer.fill(6);
    assert.equal(cache.get(1, false, hash(5)), 'x');
  });

  test('keeps at most the bound, dropping the oldest first; a text over the bound is not kept', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(40), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 10, max: 100 }),
        (lengths, bound) => {
          const cache = new RenderedBlocks(bound);
          lengths.forEach((length, n) => cache.set(n, false, hash(0), 'x'.repeat(length)));
          let kept = 0;
          let newest = true;
          for (let n = lengths.length - 1; n >= 0; n--) {
            const text = cache.get(n, false, hash(0));
            if (text !== undefined) {
              assert.ok(newest || lengths[n]! > bound, 'no entry older than a dropped one survives');
              kept += text.length;
            } else if (lengths[n]! <= bound) newest = false;
          }
          assert.ok(kept <= bound);
        },
      ),
    );
  });
});
