/**
 * scripts/hooks/commit-msg, run as git runs it (the message file as its argument): a subject of at most 72 characters
 * with an area prefix passes; a longer one, one without the prefix, passes only when git wrote it (merge, revert).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The hook (this file runs as dist/test/unit/commitMsg.test.js). */
const HOOK = fileURLToPath(new URL('../../../scripts/hooks/commit-msg', import.meta.url));

const CASES: [message: string, passes: boolean][] = [
  ['store/verify: check only what was written since\n\nThe body.\n', true],
  [`docs: ${'x'.repeat(66)}\n`, true],
  [`docs: ${'x'.repeat(67)}\n`, false],
  // Characters, not bytes: 72 of them, some of two or three bytes.
  [`docs: “ünïcode” ${'x'.repeat(56)}\n`, true],
  [`docs: “ünïcode” ${'x'.repeat(57)}\n`, false],
  ['no area prefix here\n', false],
  ['store/verify:no space after the colon\n', false],
  ['# a comment git strips\nhttp/server: the subject after it\n', true],
  [`Merge branch 'issue-40-split' into a branch with a rather long name indeed, past 72\n`, true],
  ['Revert "store: something"\n', true],
];

test('commit-msg passes a short subject with an area prefix and refuses others', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-commit-msg-'));
  try {
    for (const [message, passes] of CASES) {
      const file = join(dir, 'COMMIT_EDITMSG');
      writeFileSync(file, message);
      const ran = spawnSync(HOOK, [file], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
      assert.equal(ran.status === 0, passes, `${JSON.stringify(message)}: ${ran.stderr}`);
      if (!passes) assert.match(ran.stderr, /^commit-msg: /);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
