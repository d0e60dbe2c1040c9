/**
 * Links between the documentation pages resolve: every relative link of README.md, CONTRIBUTING.md and
 * docs/*.md (outside code blocks) names a file or directory of the repository, and a `#anchor` on a
 * Markdown page names one of its headings, as GitHub makes anchors of them. README.md stays short.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** A page's lines outside fenced code blocks. */
export function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown page's headings (a repeated heading's get -1, -2, … as on GitHub). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative link targets of a page's prose, with the line each is on. */
export function relativeLinks(markdown: string): { line: string; target: string }[] {
  const out: { line: string; target: string }[] = [];
  for (const line of proseLines(markdown)) {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      out.push({ line, target });
    }
  }
  return out;
}

test('slug and anchors follow GitHub: punctuation dropped, repeats numbered', () => {
  assert.equal(slug('Scale (`make bench-scale`)'), 'scale-make-bench-scale');
  assert.equal(slug('9. Forwarding to a node'), '9-forwarding-to-a-node');
  assert.equal(slug('8. How eth_getLogs is answered'), '8-how-eth_getlogs-is-answered');
  assert.deepEqual([...anchors('# A\n```\n# not a heading\n```\n## A\n')], ['a', 'a-1']);
});

/** README.md is the front page: what ethlogd is, how to start, and a map of docs/; the rest lives there. */
const README_MAX_LINES = 250;

test(`README.md stays a front page of at most ${README_MAX_LINES} lines`, () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines: move sections to docs/`);
});

test('the pages link to each other', () => {
  assert.ok(PAGES.length >= 8, PAGES.join(', '));
  const total = PAGES.reduce((n, page) => n + relativeLinks(readFileSync(join(ROOT, page), 'utf8')).length, 0);
  assert.ok(total >= 30, `${total} relative links`);
});

for (const page of PAGES) {
  test(`${page}: every relative link resolves, anchors included`, () => {
    const broken: string[] = [];
    for (const { line, target } of relativeLinks(readFileSync(join(ROOT, page), 'utf8'))) {
      const [path = '', anchor] = target.split('#', 2);
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`${target}: no ${relative(ROOT, file)} (${line.trim().slice(0, 80)})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, file)}`);
      }
    }
    assert.deepEqual(broken, []);
  });
}
