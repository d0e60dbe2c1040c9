/**
 * `ethlogd workload` and `ethlogd loadtest` as a load tester runs them, in child processes against
 * the real service on a port: the corpus covers every shape, is the same for the same seed, every
 * request of it answers without error; loadtest reports req/s and errors by shape; the wrk script
 * runs under wrk (skipped by name where wrk is not installed).
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SHAPES } from '#src/workload/shapes.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';

const CLI = fileURLToPath(new URL(import.meta.resolve('#src/cli.js')));
const run = promisify(execFile);
const hasWrk = spawnSync('sh', ['-c', 'command -v wrk']).status === 0;

let dataset: TestDataset;
let service: TestService;
let dir: string;

/** Runs the CLI; resolves with its exit code and output whatever the code. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { shape: string; body: unknown });

before(async () => {
  dataset = await makeDataset(160, 0.1, 'load-tools');
  service = await startTestService(dataset);
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-load-'));
});

after(async () => {
  await service?.close();
  dataset?.remove();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test(
  'workload --mix all covers every shape, the same seed ' + 'gives the same corpus, and every request answers',
  async () => {
    const out = join(dir, 'all.jsonl');
    const made = await cli([
      'workload',
      '--data',
      dataset.dir,
      '--out',
      out,
      '--mix',
      'all',
      '--count',
      '440',
      '--seed',
      's1',
    ]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /^440 requests \(mix all\) from blocks 0–159/);
    const corpus = lines(out);
    assert.deepEqual(new Set(corpus.map((r) => r.shape)), new Set(SHAPES.map((s) => s.name)));
    const again = join(dir, 'again.jsonl');
    assert.equal(
      (await cli(['workload', '--data', dataset.dir, '--out', again, '--mix', 'all', '--count', '440', '--seed', 's1']))
        .code,
      0,
    );
    assert.equal(readFileSync(again, 'utf8'), readFileSync(out, 'utf8'));
    const distinct = new Set(
      corpus
        .filter((r) => r.shape !== 'eth_blockNumber' && r.shape !== 'block_latest')
        .map((r) => JSON.stringify(r.body)),
    );
    assert.ok(distinct.size > 300, `${distinct.size} distinct bodies`);

    for (const request of corpus) {
      const { status, json } = await service.post(request.body);
      assert.equal(status, 200, request.shape);
      for (const answer of Array.isArray(json) ? json : [json]) {
        const a = answer as { error?: unknown; result?: unknown };
        assert.equal(
          a.error,
          undefined,
          `${request.shape} ${JSON.stringify(request.body)}: ${JSON.stringify(a.error)}`,
        );
        assert.notEqual(a.result, null, `${request.shape} ${JSON.stringify(request.body)} found nothing`);
      }
    }
  },
);

test('the named mixes draw only their shapes, and a custom mix file its own', async () => {
  for (const mix of ['realtime', 'backfill', 'explorer']) {
    const out = join(dir, `${mix}.jsonl`);
    const made = await cli(['workload', '--data', dataset.dir, '--out', out, '--mix', mix, '--count', '200']);
    assert.equal(made.code, 0, made.stderr);
    const shapes = new Set(lines(out).map((r) => r.shape));
    if (mix === 'realtime')
      assert.ok(shapes.has('recent_logs_block_hash') && !shapes.has('logs_range'), [...shapes].join());
    if (mix === 'backfill') assert.ok(shapes.has('logs_range') && !shapes.has('recent_block'), [...shapes].join());
    if (mix === 'explorer') assert.ok(shapes.has('receipt') && !shapes.has('logs_range'), [...shapes].join());
  }
  const custom = join(dir, 'mine.json');
  writeFileSync(custom, JSON.stringify({ storage: 1, receipt: 2 }));
  assert.equal(
    (await cli(['workload', '--data', dataset.dir, '--out', join(dir, 'mine.jsonl'), '--mix', custom, '--count', '50']))
      .code,
    0,
  );
  assert.deepEqual(new Set(lines(join(dir, 'mine.jsonl')).map((r) => r.shape)), new Set(['storage', 'receipt']));
  writeFileSync(custom, JSON.stringify({ storag: 1 }));
  const refused = await cli(['workload', '--data', dataset.dir, '--out', join(dir, 'x.jsonl'), '--mix', custom]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /unknown shape "storag"/);
});

test('loadtest replays a corpus: a progress line, req/s, percentiles and no error by shape', async () => {
  const out = join(dir, 'load.jsonl');
  assert.equal(
    (await cli(['workload', '--data', dataset.dir, '--out', out, '--mix', 'explorer', '--count', '300'])).code,
    0,
  );
  const ran = await cli([
    'loadtest',
    '--url',
    service.endpoint,
    '--workload',
    out,
    '--connections',
    '4',
    '--duration',
    '1',
  ]);
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  assert.match(ran.stderr, /^1\/1 s: \d+ requests, \d+ req\/s, 0 errors$/m);
  assert.match(
    ran.stdout,
    new RegExp(
      '^[1-9]\\d* requests in [\\d.]+ s over 4 connections: \\d+ req\\/s, ' +
        'latency p50 [\\d.]+ \\/ p99 [\\d.]+ \\/ p99\\.9 [\\d.]+ ms, 0 errors$',
      'm',
    ),
  );
  assert.match(ran.stdout, /^\| tx_by_hash \| [1-9]\d* \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| 0 \| 0 \| 0 \|$/m);
});

test('loadtest counts errors by shape and exits 3 when some request failed', async () => {
  const out = join(dir, 'bad.jsonl');
  const good = { shape: 'eth_blockNumber', body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } };
  const bad = {
    shape: 'block_by_number',
    body: { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['0xnope', false] },
  };
  writeFileSync(out, `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
  const ran = await cli([
    'loadtest',
    '--url',
    service.endpoint,
    '--workload',
    out,
    '--connections',
    '2',
    '--duration',
    '0.5',
  ]);
  assert.equal(ran.code, 3, ran.stdout + ran.stderr);
  assert.match(ran.stdout, /^\| eth_blockNumber \| [1-9]\d* \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| 0 \| 0 \| 0 \|$/m);
  assert.match(
    ran.stdout,
    /^\| block_by_number \| [1-9]\d* \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [1-9]\d* \| 0 \| 0 \|$/m,
  );
  assert.match(ran.stdout, /^ {2}block_by_number: "error":\{"code":-32602/m);
  const refused = await cli(['loadtest', '--url', service.endpoint, '--workload', out, '--connections', 'x']);
  assert.equal(refused.code, 2);
});

test('the wrk script workload writes runs under wrk and gets answers without errors', {
  skip: hasWrk ? false : 'wrk is not installed (apt-get install -y wrk)',
}, async () => {
  const out = join(dir, 'wrk.jsonl');
  assert.equal(
    (await cli(['workload', '--data', dataset.dir, '--out', out, '--mix', 'all', '--count', '300'])).code,
    0,
  );
  const { stdout } = await run('wrk', ['-t1', '-c4', '-d1s', '-s', join(dir, 'wrk.lua'), service.endpoint], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const summary = JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as {
    requests: number;
    non200: number;
    rpcErrors: number;
    socketErrors: number;
    p99Ms: number;
  };
  assert.ok(summary.requests > 0, stdout);
  assert.deepEqual(
    { non200: summary.non200, rpcErrors: summary.rpcErrors, socketErrors: summary.socketErrors },
    { non200: 0, rpcErrors: 0, socketErrors: 0 },
    stdout,
  );
  assert.ok(summary.p99Ms > 0, stdout);
});
