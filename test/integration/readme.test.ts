/**
 * The README's examples, followed literally. Every ```sh block runs (unless the line above it is an
 * `<!-- not run: why -->` comment) in a directory set up as `make run` leaves one: `data/default` a
 * store generated with make's seed and density (fewer blocks: the same chain's first ones), its key
 * in `data/default.key`, `ethlogd` on PATH (as `npm link` puts it), and a server answering where the
 * examples send requests (127.0.0.1:8545, rewritten to the test server's port). Each command must exit
 * 0 and print something (or fill the file it writes), and no JSON-RPC answer may be an error. The
 * Embedding block is test/examples/library.ts, which runs here too, in its own process as the README says.
 * The load-testing guide's (docs/load-testing.md) sh blocks run the same way; a block calling wrk
 * is skipped, saying so, where wrk is not installed.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { createApiKey } from '../../src/store/apiKeys.js';
import { closeStore, openStore } from '../../src/store/schema.js';
import { generateStore } from '../../src/synth/generateStore.js';

/** The chain `make run` generates (Makefile: the CLI's default seed, DENSITY), cut to fewer blocks. */
const MAKE_RUN_CHAIN = { seed: 'ethlogd', density: 0.25, blocks: 300 };
/** Where the README's examples send requests: make run's host and port. */
const EXAMPLE_ADDRESS = '127.0.0.1:8545';

const run = promisify(execFile);
const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const GUIDE = readFileSync(new URL('../../../docs/load-testing.md', import.meta.url), 'utf8');
const HAS_WRK = spawnSync('sh', ['-c', 'command -v wrk']).status === 0;
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

/** What an example prints when it found nothing: no output, an empty list or count, null. */
const NOTHING = new Set(['', '0', '[]', 'null']);

/** A shell example of the README: its commands and where it starts. */
interface Example {
  line: number;
  commands: string[];
}

/** The README's ```sh blocks that are not marked `<!-- not run: ... -->`, each as its commands (continuation lines joined, comments dropped). */
function shellExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const skipped = /^<!-- not run: .+ -->$/.test(lines[i - 1] ?? '');
    if (!skipped) {
      const text = lines.slice(i + 1, end).filter((l) => !/^\s*#/.test(l) && l.trim() !== '').join('\n');
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
  service = await startService({ dataDir: data, host: '127.0.0.1', port: 0, logger: createLogger('warn'), threads: 1, httpThreads: 1 });
});

after(async () => {
  await service?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('the README has shell examples to run, and curl and jq to run them', () => {
  assert.ok(shellExamples(README).length >= 2);
  for (const tool of ['curl', 'jq']) {
    assert.equal(spawnSync('sh', ['-c', `command -v ${tool}`]).status, 0, `the README's examples need ${tool} (apt-get install -y ${tool})`);
  }
});

const documents: [string, string][] = [
  ['README.md', README],
  ['docs/load-testing.md', GUIDE],
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
      const literal = command.replaceAll(EXAMPLE_ADDRESS, `127.0.0.1:${service.port}`);
      // Asynchronously: the server answering the examples runs on this thread.
      const ran = await run('sh', ['-c', literal], { cwd: dir, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).catch((error: { stderr?: string; message: string }) =>
        assert.fail(`${command}\n${error.stderr ?? error.message}`),
      );
      const written = /> (\S+)\s*$/.exec(command)?.[1];
      if (written !== undefined) assert.ok(statSync(join(dir, written)).size > 0, `${command} wrote nothing`);
      else assert.ok(!NOTHING.has(ran.stdout.trim()), `${command} printed nothing: ${JSON.stringify(ran.stdout.slice(0, 100))}`);
      if (ran.stdout.startsWith('{"jsonrpc"')) {
        const answer = JSON.parse(ran.stdout) as { error?: unknown; result?: unknown };
        assert.equal(answer.error, undefined, command);
        assert.ok(answer.result !== null && !(Array.isArray(answer.result) && answer.result.length === 0), `${command} found nothing: ${ran.stdout.slice(0, 200)}`);
      }
    }
  });
}

test("the README's Embedding example is test/examples/library.ts, and it reads, streams and serves make run's store", async () => {
  const start = README.indexOf('```ts\n', README.indexOf('## Embedding')) + '```ts\n'.length;
  const example = readFileSync(new URL('../../../test/examples/library.ts', import.meta.url), 'utf8');
  assert.equal(README.slice(start, README.indexOf('```\n', start)), example);
  // As the README runs it: its own process (this one holds the store open for the examples' server).
  const { stdout } = await run(process.execPath, [fileURLToPath(new URL('../examples/library.js', import.meta.url)), 'data/default'], { cwd: dir, encoding: 'utf8' });
  const printed = stdout.trimEnd().split('\n');
  assert.match(printed.at(-2)!, /^[1-9]\d* logs of 0x[0-9a-f]{40}$/, stdout);
  assert.match(printed[0]!, new RegExp(`^head ${MAKE_RUN_CHAIN.blocks - 1} 0x[0-9a-f]{64}: \\d+ transactions$`));
  assert.match(printed.at(-1)!, /^served at http:\/\/127\.0\.0\.1:\d+\/v3\/<key>: eth_blockNumber 0x[0-9a-f]+$/);
});

test("the README's Export to Parquet program is test/examples/exportQuery.ts; its DuckDB counts equal eth_getLogs'", async () => {
  const section = README.indexOf('### Export to Parquet');
  const start = README.indexOf('```ts\n', section) + '```ts\n'.length;
  const example = readFileSync(new URL('../../../test/examples/exportQuery.ts', import.meta.url), 'utf8');
  assert.equal(README.slice(start, README.indexOf('```\n', start)), example);
  const { stdout } = await run(process.execPath, [fileURLToPath(new URL('../examples/exportQuery.js', import.meta.url)), 'data/default', 'parquet-example'], { cwd: dir, encoding: 'utf8' });
  const printed = stdout.trimEnd().split('\n');
  assert.match(printed[0]!, /^3 files written, 0 already there, [1-9]\d* logs$/, stdout);
  const top = /^(0x[0-9a-f]{40}) ([1-9]\d*) transfers$/.exec(printed[1]!);
  assert.ok(top, stdout);
  const res = await fetch(`${service.url}/v3/${readFileSync(join(dir, 'data', 'default.key'), 'utf8').trim()}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: 'earliest', toBlock: 'latest', address: top[1], topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'] }] }),
  });
  assert.equal(((await res.json()) as { result: unknown[] }).result.length, Number(top[2]));
});
