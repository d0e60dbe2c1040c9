/**
 * docs/export.md documents every exported column: its table for each datatype lists exactly the
 * columns of SCHEMAS (src/export/schemas.ts), in file order, with their types and meanings.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { EXPORT_KINDS, SCHEMAS } from '#src/export/schemas.js';

const DOC = readFileSync(new URL('../../../../docs/export.md', import.meta.url), 'utf8');

test("docs/export.md has each datatype's table of columns, equal to SCHEMAS", () => {
  for (const kind of EXPORT_KINDS) {
    const start = DOC.indexOf(`#### ${kind}\n`);
    assert.ok(start >= 0, `a table for ${kind}`);
    const rows = DOC.slice(start).split('\n').slice(4);
    const table = rows.slice(
      0,
      rows.findIndex((line) => !line.startsWith('|')),
    );
    const expected = SCHEMAS[kind].map(
      (c) => `| \`${c.name}\` | ${c.type} | ${c.meaning}${c.extra ? ' (not in cryo)' : ''} |`,
    );
    assert.deepEqual(table, expected, kind);
  }
});
