/**
 * The log engine's start-up and shutdown in a child process: an engine closed at any moment while
 * its worker threads still load (lmdb's native addon, the module graph) waits for them rather than
 * terminating them mid-load, which aborts the whole process with a fatal error.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeDataset, type TestDataset } from './harness.js';

const PROGRAM = fileURLToPath(new URL('./engineStartStop.js', import.meta.url));

let dataset: TestDataset;

before(async () => {
  dataset = await makeDataset(20, 0.05, 'lifecycle');
});

after(() => dataset?.remove());

test('engines closed at every moment of their start-up never abort the process', { timeout: 120_000 }, async () => {
  for (let run = 0; run < 2; run++) {
    const child = spawn(process.execPath, [PROGRAM, dataset.dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, out);
    assert.match(out, /^closed 16$/m);
    assert.doesNotMatch(out, /FATAL/);
  }
});
