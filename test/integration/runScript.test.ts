/**
 * `make run`'s server start (scripts/run.sh) on a generated store: once serve listens it prints the
 * banner, which starts with the real time since make started (STARTED), the endpoint and the key.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeDataset, type TestDataset } from '../support/harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let dataset: TestDataset;

before(async () => {
  dataset = await makeDataset(20, 0.05, 'run-script');
});

after(() => {
  dataset?.remove();
  if (dataset !== undefined) rmSync(`${dataset.dir}.key`, { force: true });
});

test('the banner states how long make run took to be ready, then the endpoint with the demo key', async () => {
  const started = Math.floor(Date.now() / 1000) - 75;
  const env = {
    ...process.env,
    DATA: dataset.dir,
    HOST: '127.0.0.1',
    PORT: '0',
    GRPC_PORT: '0',
    STARTED: String(started),
  };
  const child = spawn('bash', ['scripts/run.sh'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('health, readiness')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`run.sh exited ${code}: ${out}`)));
    });
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
  }
  const seconds = Number(/^ready (\d+) s after make run started \(install, build and data included/m.exec(out)?.[1]);
  assert.ok(seconds >= 75 && seconds < 75 + 60, out);
  assert.match(
    out,
    new RegExp(
      `ethlogd serves ${dataset.dir} at:\\n  http://127\\.0\\.0\\.1:0/v3/` +
        `${readFileSync(`${dataset.dir}.key`, 'utf8').trim()}`,
    ),
  );
});
