/**
 * The log engine's start-up and shutdown in a child process: an engine closed at any moment while
 * its worker threads still load (lmdb's native addon, the module graph), or while they open the
 * store and scan for a query, waits for them (cancelling the query) rather than terminating them
 * inside lmdb's native code, which aborts the whole process with a fatal error.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeDataset, type TestDataset } from '../support/harness.js';

const PROGRAM = fileURLToPath(new URL('../support/engineStartStop.js', import.meta.url));

let dataset: TestDataset;

before(async () => {
  dataset = await makeDataset(200, 0.1, 'lifecycle');
});

after(() => dataset?.remove());

/** Runs the program in `mode` (start-up or scanning) once and checks it closed every engine and exited cleanly. */
async function runOnce(mode: 'startup' | 'scanning'): Promise<void> {
  const child = spawn(process.execPath, [PROGRAM, dataset.dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, out);
  assert.match(out, mode === 'scanning' ? /^closed 10$/m : /^closed 16$/m);
  assert.doesNotMatch(out, /FATAL/);
}

/**
 * Runs the program in `mode` twice at once (two processes, one per core: the same moments twice in the time of one run)
 * and checks both.
 */
async function closesCleanly(mode: 'startup' | 'scanning'): Promise<void> {
  await Promise.all([runOnce(mode), runOnce(mode)]);
}

test('engines closed at every moment of their start-up never abort the process', { timeout: 120_000 }, () =>
  closesCleanly('startup'),
);

test(
  'engines closed at every moment of a query (threads opening the store, scanning) never abort the process',
  { timeout: 120_000 },
  () => closesCleanly('scanning'),
);
