/**
 * The examples of README.md and of every docs/*.md page, followed literally. Every ```sh block runs
 * (unless the line above it is an `<!-- not run: why -->` comment) in a directory set up as the
 * repository is after `make run`: `data/default` a store generated with make's seed and density (fewer
 * blocks: the same chain's first ones), its key in `data/default.key`, `ethlogd` on PATH (as `npm link`
 * puts it), the build in `dist/`, and a server answering where the examples send requests
 * (127.0.0.1:8545 and gRPC's 127.0.0.1:8546, rewritten to the test server's ports). Each command must
 * exit 0 and print something (or fill the file it writes), and no JSON-RPC answer may be an error. A
 * block calling wrk is skipped, saying so, where wrk is not installed. docs/library.md's program is
 * test/examples/library.ts and docs/export.md's is test/examples/exportQuery.ts: each runs here too,
 * in its own process as its page says.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';

/** The chain `make run` generates (Makefile: the CLI's default seed, DENSITY), cut to fewer blocks. */
const MAKE_RUN_CHAIN = { seed: 'ethlogd', density: 0.25, blocks: 300 };
/** Where the examples send requests: make run's host and port, and its gRPC port. */
const EXAMPLE_ADDRESS = '127.0.0.1:8545';
const EXAMPLE_GRPC_ADDRESS = '127.0.0.1:8546';

const run = promisify(execFile);
const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const DOCS = new URL('../../../docs/', import.meta.url);
const GUIDE = readFileSync(new URL('load-testing.md', DOCS), 'utf8');
const LIBRARY = readFileSync(new URL('library.md', DOCS), 'utf8');
const EXPORT = readFileSync(new URL('export.md', DOCS), 'utf8');
const DIST = fileURLToPath(new URL('../..', import.meta.url));
const HAS_WRK = spawnSync('sh', ['-c', 'command -v wrk']).status === 0;
const CLI = fileURLToPath(new URL(import.meta.resolve('#src/cli.js')));

/** What an example prints when it found nothing: no output, an empty list or count, null. */
const NOTHING = new Set(['', '0', '[]', 'null']);

/** A shell example of a page: its commands and where it starts. */
interface Example {
  line: number;
  commands: string[];
}

/**
 * A page's ```sh blocks that are not marked `<!-- not run: ... -->`, each as its commands (continuation lines joined,
 * comments dropped).
 */
function shellExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const skipped = /^<!-- not run: .+ -->$/.test(lines[i - 1] ?? '');
    if (!skipped) {
      const text = lines
        .slice(i + 1, end)
        .filter((l) => !/^\s*#/.test(l) && l.trim() !== '')
        .join('\n');
      out.push({ line: i + 1, commands: text.replace(/\\\n\s*/g, '').split('\n') });
    }
    i = end;
  }
  return out;
}

let dir: string;
let service: RunningService;
let env: NodeJS.ProcessEnv;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-readme-'));
  const data = join(dir, 'data', 'default');
  mkdirSync(data, { recursive: true });
  await generateStore(data, { ...MAKE_RUN_CHAIN, pending: true, progress: false });
  const store = openStore(data);
  writeFileSync(`${data}.key`, createApiKey(store, 'demo') + '\n');
  await closeStore(store);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'ethlogd'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'ethlogd'), 0o755);
  env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
  symlinkSync(DIST, join(dir, 'dist'));
  service = await startService({
    dataDir: data,
    host: '127.0.0.1',
    port: 0,
    grpcPort: 0,
    logger: createLogger('warn'),
    threads: 1,
    httpThreads: 1,
  });
});

after(async () => {
  await service?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('README.md and docs/ have shell examples to run, and curl and jq to run them', () => {
  assert.ok(shellExamples(README).length >= 1);
  assert.ok(examples.length >= 8, `${examples.length} examples`);
  for (const tool of ['curl', 'jq']) {
    assert.equal(
      spawnSync('sh', ['-c', `command -v ${tool}`]).status,
      0,
      `the examples need ${tool} (apt-get install -y ${tool})`,
    );
  }
});

const documents: [string, string][] = [
  ['README.md', README],
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name): [string, string] => [`docs/${name}`, readFileSync(new URL(name, DOCS), 'utf8')]),
];
const examples = documents.flatMap(([file, text]) => shellExamples(text).map((example) => ({ file, ...example })));

test('the load-testing guide has shell examples to run', () => {
  assert.ok(shellExamples(GUIDE).length >= 3);
});

for (const example of examples) {
  const needsWrk = example.commands.some((c) => /^\s*wrk /.test(c));
  const skip = needsWrk && !HAS_WRK ? 'wrk is not installed (apt-get install -y wrk)' : false;
  test(`${example.file} line ${example.line}: every command exits 0 and prints something`, { skip }, async () => {
    for (const command of example.commands) {
      const literal = command
        .replaceAll(EXAMPLE_ADDRESS, `127.0.0.1:${service.port}`)
        .replaceAll(EXAMPLE_GRPC_ADDRESS, `127.0.0.1:${service.grpcPort}`);
      // Asynchronously: the server answering the examples runs on this thread.
      const ran = await run('sh', ['-c', literal], {
        cwd: dir,
        env,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      }).catch((error: { stderr?: string; message: string }) =>
        assert.fail(`${command}\n${error.stderr ?? error.message}`),
      );
      const written = /> (\S+)\s*$/.exec(command)?.[1];
      if (written !== undefined) assert.ok(statSync(join(dir, written)).size > 0, `${command} wrote nothing`);
      else
        assert.ok(
          !NOTHING.has(ran.stdout.trim()),
          `${command} printed nothing: ${JSON.stringify(ran.stdout.slice(0, 100))}`,
        );
      if (ran.stdout.startsWith('{"jsonrpc"')) {
        const answer = JSON.parse(ran.stdout) as { error?: unknown; result?: unknown };
        assert.equal(answer.error, undefined, command);
        assert.ok(
          answer.result !== null && !(Array.isArray(answer.result) && answer.result.length === 0),
          `${command} found nothing: ${ran.stdout.slice(0, 200)}`,
        );
      }
    }
  });
}

test(
  "docs/library.md's example is test/examples/library.ts, " + "and it reads, streams and serves make run's store",
  async () => {
    const start = LIBRARY.indexOf('```ts\n') + '```ts\n'.length;
    const example = readFileSync(new URL('../../../test/examples/library.ts', import.meta.url), 'utf8');
    assert.equal(LIBRARY.slice(start, LIBRARY.indexOf('```\n', start)), example);
    // As the page runs it: its own process (this one holds the store open for the examples' server).
    const { stdout } = await run(
      process.execPath,
      [fileURLToPath(new URL('../examples/library.js', import.meta.url)), 'data/default'],
      { cwd: dir, encoding: 'utf8' },
    );
    const printed = stdout.trimEnd().split('\n');
    assert.match(printed.at(-2)!, /^[1-9]\d* logs of 0x[0-9a-f]{40}$/, stdout);
    assert.match(printed[0]!, new RegExp(`^head ${MAKE_RUN_CHAIN.blocks - 1} 0x[0-9a-f]{64}: \\d+ transactions$`));
    assert.match(printed.at(-1)!, /^served at http:\/\/127\.0\.0\.1:\d+\/v3\/<key>: eth_blockNumber 0x[0-9a-f]+$/);
  },
);

test("docs/export.md's program is test/examples/exportQuery.ts; its DuckDB counts equal eth_getLogs'", async () => {
  const section = EXPORT.indexOf('## From a program');
  assert.ok(section >= 0, 'docs/export.md has its "From a program" section');
  const start = EXPORT.indexOf('```ts\n', section) + '```ts\n'.length;
  const example = readFileSync(new URL('../../../test/examples/exportQuery.ts', import.meta.url), 'utf8');
  assert.equal(EXPORT.slice(start, EXPORT.indexOf('```\n', start)), example);
  const { stdout } = await run(
    process.execPath,
    [fileURLToPath(new URL('../examples/exportQuery.js', import.meta.url)), 'data/default', 'parquet-example'],
    { cwd: dir, encoding: 'utf8' },
  );
  const printed = stdout.trimEnd().split('\n');
  assert.match(printed[0]!, /^3 files written, 0 already there, [1-9]\d* logs$/, stdout);
  const top = /^(0x[0-9a-f]{40}) ([1-9]\d*) transfers$/.exec(printed[1]!);
  assert.ok(top, stdout);
  const res = await fetch(`${service.url}/v3/${readFileSync(join(dir, 'data', 'default.key'), 'utf8').trim()}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getLogs',
      params: [
        {
          fromBlock: 'earliest',
          toBlock: 'latest',
          address: top[1],
          topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'],
        },
      ],
    }),
  });
  assert.equal(((await res.json()) as { result: unknown[] }).result.length, Number(top[2]));
});
