/**
 * No line of src, test or native-free-bench is over MAX_LINE_COLUMNS characters: the formatter wraps code at that
 * width, and long strings and comments are wrapped by hand.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs as dist/test/unit/lineLength.test.js). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Widest line: what biome.jsonc's lineWidth formats code to. */
const MAX_LINE_COLUMNS = 120;

/** The directories of TypeScript the line limit holds in, from the repository root. */
const CHECKED_DIRS = ['src', 'test', 'native-free-bench'];

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test(`no source line is over ${MAX_LINE_COLUMNS} characters`, () => {
  const long: string[] = [];
  for (const file of CHECKED_DIRS.flatMap((dir) => sources(join(ROOT, dir)))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if ([...line].length > MAX_LINE_COLUMNS) long.push(`${relative(ROOT, file)}:${i + 1} (${[...line].length})`);
      });
  }
  assert.deepEqual(long, []);
});
