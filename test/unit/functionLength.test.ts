/**
 * No function in src is over MAX_FUNCTION_LINES lines, counted from its first line to its last: a
 * longer one is split into small functions with one job each. Functions are found with
 * TypeScript's parser (declarations, methods, accessors, constructors, function expressions and
 * arrows); an anonymous one is named after the variable or property it is assigned to.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root (this file runs as dist/test/unit/functionLength.test.js). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Most lines a function may span: what a reader takes in at once. */
const MAX_FUNCTION_LINES = 80;

/** A function of a source file. */
interface FunctionSpan {
  /** `file name`. */
  key: string;
  line: number;
  lines: number;
}

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The name of function `node`: its own, else that of the variable, property or parameter it is assigned to. */
function functionName(node: ts.SignatureDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name !== undefined) {
    return parent.name.getText();
  }
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** The functions with a body in `text` (the source of `file`, relative to the root), nested ones included. */
function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      found.push({ key: `${file} ${functionName(node)}`, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions of `text` over the limit, as `file:line name (N lines)`. */
function longFunctions(file: string, text: string): string[] {
  return functionSpans(file, text)
    .filter((span) => span.lines > MAX_FUNCTION_LINES)
    .map((span) => `${span.key.replace(' ', `:${span.line} `)} (${span.lines} lines)`);
}

test(`no function in src is over ${MAX_FUNCTION_LINES} lines`, () => {
  const files = sources(join(ROOT, 'src'));
  assert.ok(files.length > 100, `found the sources (${files.length})`);
  const long = files.flatMap((path) => longFunctions(relative(ROOT, path), readFileSync(path, 'utf8')));
  assert.deepEqual(long, [], `functions over ${MAX_FUNCTION_LINES} lines:\n${long.join('\n')}`);
});

test('the check counts first to last line, nested functions included, and names anonymous functions', () => {
  const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = [
    `function atLimit() {\n${body(MAX_FUNCTION_LINES)}\n}`,
    `function overLimit() {\n${body(MAX_FUNCTION_LINES + 1)}\n}`,
    `const arrow = () => {\n${body(MAX_FUNCTION_LINES + 1)}\n};`,
    `class K {\n  method() {\n${body(MAX_FUNCTION_LINES + 1)}\n  }\n}`,
    `function outer() {\n  run(function () {\n${body(MAX_FUNCTION_LINES + 1)}\n  });\n}`,
  ].join('\n');
  const atLine = (name: string) => text.split('\n').findIndex((line) => line.includes(name)) + 1;
  const lines = MAX_FUNCTION_LINES + 1;
  assert.deepEqual(longFunctions('x.ts', text), [
    `x.ts:${atLine('overLimit')} overLimit (${lines} lines)`,
    `x.ts:${atLine('arrow')} arrow (${lines} lines)`,
    `x.ts:${atLine('method')} method (${lines} lines)`,
    `x.ts:${atLine('outer')} outer (${lines + 2} lines)`,
    `x.ts:${atLine('run(function')} (anonymous) (${lines} lines)`,
  ]);
});
