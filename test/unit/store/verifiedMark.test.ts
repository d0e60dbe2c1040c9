/**
 * The verify mark's file (store/verifiedMark.ts): a mark round-trips through its text and a real file; anything
 * else reads as no mark (which only makes the next check a full one).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  decodeVerifiedMark,
  encodeVerifiedMark,
  readVerifiedMark,
  VERIFIED_MARK_FILE,
  writeVerifiedMark,
} from '#src/store/verifiedMark.js';

const mark = fc.record({
  to: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  hash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}`),
  runs: fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 })),
});

test('a mark round-trips through its text', () => {
  fc.assert(fc.property(mark, (m) => assert.deepEqual(decodeVerifiedMark(encodeVerifiedMark(m)), { ...m })));
});

test('text that is not a mark reads as none', () => {
  const hash = `0x${'ab'.repeat(32)}`;
  for (const text of [
    '',
    'not json',
    'null',
    '[]',
    JSON.stringify({ to: -1, hash, runs: [] }),
    JSON.stringify({ to: 1.5, hash, runs: [] }),
    JSON.stringify({ to: 1, hash: 'ab'.repeat(32), runs: [] }),
    JSON.stringify({ to: 1, hash: `0x${'AB'.repeat(32)}`, runs: [] }),
    JSON.stringify({ to: 1, hash, runs: [-1] }),
    JSON.stringify({ to: 1, hash, runs: 'all' }),
  ])
    assert.equal(decodeVerifiedMark(text), undefined, text);
});

test('a mark is kept in the store directory and read back; a missing or damaged file is no mark', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-mark-'));
  try {
    assert.equal(readVerifiedMark(dir), undefined);
    const m = { to: 7, hash: `0x${'01'.repeat(32)}`, runs: [3, 4] };
    writeVerifiedMark(dir, m);
    assert.deepEqual(readVerifiedMark(dir), m);
    writeFileSync(join(dir, VERIFIED_MARK_FILE), '{"to":7');
    assert.equal(readVerifiedMark(dir), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
