/**
 * Crash safety (docs/architecture.md §3: every batch is one write transaction): `ethlogd generate`
 * and `ethlogd ingest` run as child processes and are killed with SIGKILL at seeded random moments,
 * many times; after every kill verifyStore must find the store whole (only whole blocks, every
 * index consistent with them), the head must never move back, and the restarted writer must end
 * with exactly the store an uninterrupted run makes (every database equal, entry by entry).
 *
 * The generator crosses a segment boundary (4,096 blocks) while being killed, so the bloom rows and
 * the address index written with the boundary's batch are checked too. Kill moments are drawn
 * from a seeded PRNG: either a delay after the start (a kill while the store opens or the chain
 * resumes) or the moment the stored head passes a random block of the kill's share of the chain
 * (kill k of K waits in the k-th K-th), plus a random delay (a kill in the middle of a later
 * batch). Ingest runs against anvil through a slowing proxy and is killed the same way. Real kills
 * need real time; nothing here sleeps to synchronise, only to pick the moment of a kill.
 *
 * Sizes come from the environment: CRASH_KILLS (generate kills, default 12), CRASH_INGEST_KILLS
 * (default 3), CRASH_BLOCKS (default 5,000), CRASH_SEED; `make crash` runs a long variant.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FREEZE_BLOCKS, FREEZE_LAG, MERGE_FAN_IN } from '#src/store/freezer.js';
import { readManifest } from '#src/store/runs.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { SEGMENT_BLOCKS } from '#src/store/segments.js';
import { verifyStore } from '#src/store/verify.js';
import { generateStore } from '#src/synth/generateStore.js';
import { ANVIL_MISSING, Anvil, type NodeProxy, startProxy } from '../support/anvil.js';
import { type CliProcess, runCli, startCli } from '../support/child.js';
import { diffStores } from '../support/storeDiff.js';
import { pick } from '../support/verifyResult.js';
import { Workload } from '../support/workload.js';
import { Rng } from '../unit/store/fixtures.js';

/** Reads a positive integer from the environment, or `fallback`. */
function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  assert.ok(Number.isSafeInteger(value) && value > 0, `${name} must be a positive integer`);
  return value;
}

/** Kills of the generator: enough to land in every phase (open, resume, mid-batch, the boundary batch) a few times. */
const GENERATE_KILLS = envInt('CRASH_KILLS', 12);
/** Kills of ingest: each costs a restart against anvil, so a few in CI. */
const INGEST_KILLS = envInt('CRASH_INGEST_KILLS', 3);
/**
 * Blocks before the end no kill waits for: the kill lands before the final batch even when this process is slow to
 * notice the head.
 */
const FINAL_MARGIN_BLOCKS = 512;
/**
 * Generated blocks: past one segment boundary, and far enough past the first merge's start (once MERGE_FAN_IN units
 * are frozen, FREEZE_LAG blocks behind the head) that the last stretch's kill falls with a merge in progress.
 */
const BLOCKS = envInt('CRASH_BLOCKS', (MERGE_FAN_IN + 8) * FREEZE_BLOCKS + FREEZE_LAG + FINAL_MARGIN_BLOCKS);
const SEED = process.env.CRASH_SEED ?? 'crash';
/**
 * Blocks per write transaction of the killed generator: a quarter of generate's default, so that a run at this density
 * makes many commits to kill between.
 */
const GENERATE_BATCH_BLOCKS = 256;
/**
 * A low density keeps the generator fast (thousands of blocks per second) while blocks still have logs, transactions
 * and storage writes.
 */
const DENSITY = 0.003;
/**
 * Share of generate kills taken at a delay after the start (store opening, chain resume) rather than mid-generation.
 */
const STARTUP_KILL_SHARE = 0.25;
/** Window of a startup kill after the spawn, in ms: node's start and the store's opening take about this long. */
const STARTUP_KILL_WINDOW_MS = 400;
/** Blocks that must be left for a startup kill: more than an idle machine generates within the window. */
const STARTUP_MARGIN_BLOCKS = 2048;
/**
 * Interval of the stored-head poll that times a mid-generation kill, in ms (a batch of 64 blocks takes about 15 ms).
 */
const HEAD_POLL_MS = 2;
/** Random delay after the head passes its target, in ms: moves the kill into the middle of a later batch. */
const KILL_JITTER_MS = 25;
/** Blocks per ingest commit: small, so there are many commits to land between. */
const INGEST_COMMIT_BLOCKS = 4;
/** Anvil blocks ingested: two commits per kill at least, and never fewer than 80. */
const INGEST_BLOCKS = Math.max(80, 2 * INGEST_COMMIT_BLOCKS * INGEST_KILLS);
/**
 * Blocks before the end no ingest kill waits for (ingest through the slowing proxy copies a few blocks in the poll and
 * jitter delays).
 */
const INGEST_FINAL_MARGIN_BLOCKS = 8;

const rng = new Rng([...SEED].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 0x01000193), 0x811c9dc5));
const dirs: string[] = [];

function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ethlogd-crash-${label}-`));
  dirs.push(dir);
  return dir;
}

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The stored head, or -1 while the store holds no block. */
function storedHead(store: Store): number {
  return (store.meta.get('head') as number | undefined) ?? -1;
}

/** Whether the process has exited (on its own or killed). */
function ended(p: CliProcess): boolean {
  return p.child.exitCode !== null || p.child.signalCode !== null;
}

/** Kills `p` with SIGKILL unless it already ended; resolves with how it ended. */
async function kill(p: CliProcess): Promise<number | string> {
  if (!ended(p)) p.child.kill('SIGKILL');
  return p.exited;
}

/**
 * Resolves once `p` has written its first stderr line (the first progress line of generate and ingest follows their
 * first commit).
 */
async function firstProgress(p: CliProcess): Promise<void> {
  await p.waitForStderr(/\n/);
}

/** Milliseconds spent in verifyStore after kills, for the report. */
let verifyMs = 0;
/** Kills that left a merge of frozen runs in progress (its steps done so far committed, the rest to come). */
let killsMidMerge = 0;

/** Checks the store after a kill: whole, and its head not behind `previous`; returns the head. */
function checkAfterKill(store: Store, previous: number, what: string): number {
  const started = performance.now();
  const { problems } = verifyStore(store);
  verifyMs += performance.now() - started;
  assert.deepEqual(problems, [], `${what}: the store is consistent`);
  if ((readManifest(store)?.merges.length ?? 0) > 0) killsMidMerge++;
  const head = storedHead(store);
  assert.ok(head >= previous, `${what}: the head (${head}) did not move back from ${previous}`);
  return head;
}

describe('generate killed at random moments', () => {
  const opts = { blocks: BLOCKS, seed: SEED, density: DENSITY };
  // Killed while worker threads build and hand over batches: the path with the most in flight; small write
  // transactions, so the head moves often enough to kill between them.
  const args = (dir: string) => [
    'generate',
    '--out',
    dir,
    '--blocks',
    String(BLOCKS),
    '--seed',
    SEED,
    '--density',
    String(DENSITY),
    '--threads',
    '2',
    '--batch-blocks',
    String(GENERATE_BATCH_BLOCKS),
  ];

  test(`${GENERATE_KILLS} kills, each verified, then the finished store equals an uninterrupted one`, {
    timeout: 600_000,
  }, async (t: TestContext) => {
    const dir = tempDir('generate');
    const last = BLOCKS - 1;
    let store: Store | undefined;
    let head = -1;
    const heads: number[] = [];
    const modes = { startup: 0, progress: 0 };
    try {
      for (let k = 0; k < GENERATE_KILLS; k++) {
        const p = startCli(args(dir));
        // The first run always commits before it is killed, so the store exists when this process opens it, and the
        // last waits for the last stretch, where a merge is in progress; a startup kill needs room left, as an idle
        // machine starts in less than the window.
        const startup =
          k > 0 && k < GENERATE_KILLS - 1 && last - head > STARTUP_MARGIN_BLOCKS && rng.chance(STARTUP_KILL_SHARE);
        if (startup) {
          modes.startup++;
          await sleep(rng.int(STARTUP_KILL_WINDOW_MS));
        } else {
          modes.progress++;
          await firstProgress(p);
          store ??= openStore(dir, { readOnly: true });
          // Stratified: kill k waits for a random block of the k-th of GENERATE_KILLS equal stretches, so the kills
          // spread over the whole chain.
          const stretch = (last - FINAL_MARGIN_BLOCKS) / GENERATE_KILLS;
          const target = Math.max(head + 1, Math.floor(k * stretch + rng.int(Math.max(1, Math.floor(stretch)))));
          while (!ended(p) && storedHead(store) < target) await sleep(HEAD_POLL_MS);
          await sleep(rng.int(KILL_JITTER_MS));
        }
        const how = await kill(p);
        assert.equal(how, 'SIGKILL', `kill ${k + 1} came before the generator finished (stderr: ${p.stderr()})`);
        store ??= openStore(dir, { readOnly: true });
        head = checkAfterKill(store, head, `after kill ${k + 1}`);
        heads.push(head);
      }
      assert.ok(
        heads.some((h) => h < SEGMENT_BLOCKS - 1) && heads.some((h) => h >= SEGMENT_BLOCKS - 1),
        `kills before and after the segment boundary: ${heads.join(', ')}`,
      );
      assert.ok(killsMidMerge > 0, `a kill with a merge in progress: heads ${heads.join(', ')}`);

      const finished = await runCli(args(dir));
      assert.equal(finished.code, 0, finished.stderr);
      store ??= openStore(dir, { readOnly: true });
      assert.deepEqual(pick(verifyStore(store)), { blocks: BLOCKS, problems: [] });

      const reference = tempDir('generate-reference');
      await generateStore(reference, { ...opts, pending: true, progress: false });
      const expected = openStore(reference, { readOnly: true });
      try {
        assert.deepEqual(diffStores(store, expected), [], 'the killed and resumed store equals the uninterrupted one');
      } finally {
        await closeStore(expected);
      }
      t.diagnostic(
        `generate: ${GENERATE_KILLS} SIGKILLs (${modes.startup} while starting, ` +
          `${modes.progress} mid-generation; ${killsMidMerge} with a merge in progress), ` +
          `each verified (${Math.round(verifyMs)} ` +
          `ms verifying); heads after the kills: ${heads.join(', ')}`,
      );
    } finally {
      if (store) await closeStore(store);
    }
  });
});

describe('ingest killed at random moments', { skip: ANVIL_MISSING }, () => {
  let anvil: Anvil;
  let proxy: NodeProxy;
  let head: number;

  before(async () => {
    anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
    const workload = await Workload.deploy(anvil);
    await workload.mine(INGEST_BLOCKS, { min: 1, max: 4, special: false });
    head = await anvil.head();
    proxy = await startProxy(anvil.url, { delayMs: 15 });
  });

  after(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  test(`${INGEST_KILLS} kills, each verified, then the finished store equals an uninterrupted ingest`, {
    timeout: 600_000,
  }, async (t: TestContext) => {
    const dir = tempDir('ingest');
    const tuning = [
      '--blocks-per-request',
      '2',
      '--in-flight',
      '2',
      '--commit-blocks',
      String(INGEST_COMMIT_BLOCKS),
      '--progress-seconds',
      '0.05',
    ];
    let store: Store | undefined;
    let stored = -1;
    const heads: number[] = [];
    try {
      for (let k = 0; k < INGEST_KILLS; k++) {
        const p = startCli(['ingest', '--rpc', proxy.url, '--data', dir, ...tuning]);
        // Its first progress line follows its first commit; then, as for generate, kill k waits for a random block of
        // the k-th stretch.
        await firstProgress(p);
        store ??= openStore(dir, { readOnly: true });
        const stretch = (head - INGEST_FINAL_MARGIN_BLOCKS) / INGEST_KILLS;
        const target = Math.max(stored + 1, Math.floor(k * stretch + rng.int(Math.max(1, Math.floor(stretch)))));
        while (!ended(p) && storedHead(store) < target) await sleep(HEAD_POLL_MS);
        await sleep(rng.int(KILL_JITTER_MS));
        const how = await kill(p);
        assert.equal(how, 'SIGKILL', `kill ${k + 1} came before ingest finished (stderr: ${p.stderr()})`);
        stored = checkAfterKill(store, stored, `after ingest kill ${k + 1}`);
        heads.push(stored);
      }
      assert.ok(stored < head, `the kills came before the end (stored head ${stored} of ${head})`);

      const finished = await runCli(['ingest', '--rpc', anvil.url, '--data', dir]);
      assert.equal(finished.code, 0, finished.stderr);
      store ??= openStore(dir, { readOnly: true });
      assert.deepEqual(pick(verifyStore(store)), { blocks: head + 1, problems: [] });

      const reference = tempDir('ingest-reference');
      const direct = await runCli(['ingest', '--rpc', anvil.url, '--data', reference]);
      assert.equal(direct.code, 0, direct.stderr);
      const expected = openStore(reference, { readOnly: true });
      try {
        assert.deepEqual(diffStores(store, expected), [], 'the killed and resumed store equals the uninterrupted one');
      } finally {
        await closeStore(expected);
      }
      t.diagnostic(
        `ingest: ${INGEST_KILLS} SIGKILLs, each verified; stored heads after the kills: ${heads.join(', ')} of ${head}`,
      );
    } finally {
      if (store) await closeStore(store);
    }
  });
});
