/**
 * The layering of src: the domain folders (chain types and codecs, the store, the log engine, the
 * renderers, the synthetic generator) import nothing from the fronts (JSON-RPC, HTTP, gRPC), so a
 * front maps the domain's typed outcomes to its own answers and the domain never speaks a
 * transport's language. Imports are read with TypeScript's own pre-processor (static imports,
 * re-exports, dynamic imports).
 *
 * And no import cycle anywhere in src: the static imports and re-exports of every file (type-only
 * ones included) form a graph whose strongly connected components are single files, so each module
 * can be read, tested and loaded after the ones it uses.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
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
  const text =
    "import { a } from './x.js';\nexport { b } from '../rpc/y.js';\nconst c = await import('../grpc/z.js');\n";
  const found = ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName, pos }) => `${text.slice(0, pos).split('\n').length} ${fileName}`);
  assert.deepEqual(found, ['1 ./x.js', '2 ../rpc/y.js', '3 ../grpc/z.js']);
});

/** The files of src that `file` imports statically (imports and re-exports, type-only included), resolved. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement);
    const specifier = isImport ? statement.moduleSpecifier : undefined;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    targets.push(resolve(dirname(file), specifier.text).replace(/\.js$/, '.ts'));
  }
  return targets;
}

/** The strongly connected components of `graph` with more than one node, or a node importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A cycle's files as `a → b → … → a`, following imports inside the component from its first file. */
function describe(component: string[], graph: Map<string, string[]>): string {
  const members = new Set(component);
  const start = component[0]!;
  const path = [start];
  const seen = new Set([start]);
  let node = start;
  for (;;) {
    const next = (graph.get(node) ?? []).filter((target) => members.has(target));
    const back = next.find((target) => target === start);
    const onward = next.find((target) => !seen.has(target));
    if (back !== undefined && (onward === undefined || seen.size === members.size)) break;
    if (onward === undefined) break;
    path.push(onward);
    seen.add(onward);
    node = onward;
  }
  const names = [...path, start].map((file) => relative(ROOT, file));
  const rest = component.filter((file) => !seen.has(file)).map((file) => relative(ROOT, file));
  return names.join(' → ') + (rest.length > 0 ? ` (with ${rest.join(', ')})` : '');
}

/** The import graph of `files`: each file to the files it imports statically. */
function importGraph(files: string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, staticImports(file)]));
}

test('src has no import cycle', () => {
  const files = sources(join(ROOT, 'src'));
  assert.ok(files.length > 100, `found the sources (${files.length})`);
  const graph = importGraph(files);
  const found = cycles(graph).map((component) => describe(component, graph));
  assert.deepEqual(found, [], `import cycles in src:\n${found.join('\n')}`);
});

test('the cycle check finds every cycle, a file importing itself included', () => {
  const graph = new Map([
    ['/r/src/a.ts', ['/r/src/b.ts']],
    ['/r/src/b.ts', ['/r/src/c.ts', '/r/src/d.ts']],
    ['/r/src/c.ts', ['/r/src/a.ts']],
    ['/r/src/d.ts', []],
    ['/r/src/e.ts', ['/r/src/e.ts']],
  ]);
  assert.deepEqual(cycles(graph), [['/r/src/a.ts', '/r/src/b.ts', '/r/src/c.ts'], ['/r/src/e.ts']]);
  assert.deepEqual(
    cycles(
      new Map([
        ['/r/a.ts', ['/r/b.ts']],
        ['/r/b.ts', []],
      ]),
    ),
    [],
  );
});
