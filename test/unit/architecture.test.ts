/**
 * The layering of src: the domain folders (chain types and codecs, the store, the log engine, the
 * renderers, the synthetic generator) import nothing from the fronts (JSON-RPC, HTTP, gRPC), so a
 * front maps the domain's typed outcomes to its own answers and the domain never speaks a
 * transport's language. Imports are read with TypeScript's own pre-processor (static imports,
 * re-exports, dynamic imports).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import ts from 'typescript';

/** The repository root (this file runs as dist/test/unit/architecture.test.js). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Folders of src whose files must not import from the fronts. */
const DOMAIN = ['chain', 'store', 'logs', 'render', 'synth', 'export', 'upstream'];

/** The fronts: folders of src the domain must not import from. */
const FRONTS = ['rpc', 'http', 'grpc'];

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The imports of `file` that reach into a front, as `file:line imports 'specifier'`. */
function frontImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const fronts = FRONTS.map((front) => join(ROOT, 'src', front) + sep);
  const found: string[] = [];
  for (const { fileName, pos } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolve(dirname(file), fileName);
    if (!fronts.some((front) => target.startsWith(front))) continue;
    const line = text.slice(0, pos).split('\n').length;
    found.push(`${relative(ROOT, file)}:${line} imports '${fileName}'`);
  }
  return found;
}

test('chain, store, logs, render, synth and export import nothing from rpc, http or grpc', () => {
  const files = DOMAIN.flatMap((folder) => sources(join(ROOT, 'src', folder)));
  assert.ok(files.length > 20, `found the domain sources (${files.length})`);
  const violations = files.flatMap(frontImports);
  assert.deepEqual(violations, [], `the domain imports from a front:\n${violations.join('\n')}`);
});

test('the check sees static imports, re-exports and dynamic imports, on their own lines', () => {
  const text = "import { a } from './x.js';\nexport { b } from '../rpc/y.js';\nconst c = await import('../grpc/z.js');\n";
  const found = ts.preProcessFile(text, true, true).importedFiles.map(({ fileName, pos }) => `${text.slice(0, pos).split('\n').length} ${fileName}`);
  assert.deepEqual(found, ['1 ./x.js', '2 ../rpc/y.js', '3 ../grpc/z.js']);
});
