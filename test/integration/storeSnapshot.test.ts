/**
 * `ethlogd snapshot` of a live store: taken while `ethlogd generate` (another process) appends, the
 * copy is one committed state (a whole prefix of the chain the writer makes), compacted, passes
 * `ethlogd verify`; taken while `ingest --follow` follows anvil, the copy is a replica's starting
 * point: `ingest --follow` on it reaches anvil's head and the two stores end identical. Bad
 * destinations are refused with what to do.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bytesEqual } from '#src/chain/hex.js';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';
import { ANVIL_MISSING, Anvil } from '../support/anvil.js';
import { runCli, startCli } from '../support/child.js';
import { until } from '../support/poll.js';
import { diffStores } from '../support/storeDiff.js';
import { Workload } from '../support/workload.js';

const SEED = 'store-snapshot';
const DENSITY = 0.01;
/** Blocks generated before the writer starts. */
const PREFIX = 200;
/**
 * Blocks the writer is asked for: far more than it writes before it is stopped. The chain has no
 * pending block: generate writes it once at the end, so a store caught mid-generation (the source as
 * much as its copy) holds the previous run's, which verify rightly reports.
 */
const WRITER_BLOCKS = 200_000;

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-store-snapshot-'));
});

after(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The head of the store at `path` now (a fresh read-only handle, closed again). */
async function headOf(path: string): Promise<{ number: number; hash: Uint8Array } | undefined> {
  const store = openStore(path, { readOnly: true });
  try {
    const reader = new StoreReader(store);
    const head = reader.head();
    return head === undefined ? undefined : { number: head, hash: reader.header(head)!.hash };
  } finally {
    await closeStore(store);
  }
}

/** Runs `check` over the stores at `a` and `b`, opened read-only. */
async function withStores<T>(a: string, b: string, check: (a: Store, b: Store) => T): Promise<T> {
  const left = openStore(a, { readOnly: true });
  const right = openStore(b, { readOnly: true });
  try {
    return check(left, right);
  } finally {
    await closeStore(left);
    await closeStore(right);
  }
}

test('a snapshot taken while generate appends is a whole, compacted, verified prefix of the chain', async () => {
  const source = join(dir, 'generated');
  await generateStore(source, { blocks: PREFIX, seed: SEED, density: DENSITY, pending: false, progress: false });
  const writer = startCli([
    'generate',
    '--out',
    source,
    '--blocks',
    String(WRITER_BLOCKS),
    '--seed',
    SEED,
    '--density',
    String(DENSITY),
    '--no-pending',
  ]);
  try {
    await until(async () => ((await headOf(source))?.number ?? 0) >= PREFIX + 100, 'the writer appended 100 blocks');
    const copy = join(dir, 'generated-copy');
    const snap = await runCli(['snapshot', '--data', source, '--out', copy]);
    assert.equal(snap.code, 0, snap.stderr);
    assert.equal(writer.child.exitCode, null, 'the writer was still appending when the snapshot ended');
    const head = Number(/head (\d+),/.exec(snap.stdout)?.[1]);
    assert.ok(head >= PREFIX + 100, `the copy holds what was committed before it began: ${snap.stdout}`);
    await until(async () => (await headOf(source))!.number > head + 100, 'the writer went on past the copy');
    writer.child.kill('SIGKILL');
    await writer.exited;
    const verified = await runCli(['verify', '--data', copy]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, new RegExp(`verified ${head + 1} blocks in [\\d.]+ s: no problems`));
    await withStores(source, copy, (a, b) => {
      const [left, right] = [new StoreReader(a), new StoreReader(b)];
      assert.equal(right.head(), head);
      for (let n = 0; n <= head; n++)
        assert.ok(bytesEqual(left.header(n)!.hash, right.header(n)!.hash), `block ${n} is the writer's`);
      assert.equal(right.header(head + 1), undefined, 'nothing beyond the copied head');
    });
    assert.ok(
      statSync(join(copy, 'data.mdb')).size <= statSync(join(source, 'data.mdb')).size,
      'the copy is compacted',
    );
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.includes('.partial')),
      [],
      'no temporary directory is left',
    );
  } finally {
    writer.child.kill('SIGKILL');
  }
});

test('snapshot refuses an existing destination and a missing store, creating nothing', async () => {
  const source = join(dir, 'generated');
  const taken = join(dir, 'taken');
  mkdirSync(taken);
  const cases: [string[], RegExp][] = [
    [
      ['--data', source, '--out', taken],
      /ethlogd snapshot: .*taken exists: a snapshot is written into a new directory/,
    ],
    [['--data', join(dir, 'nothing'), '--out', join(dir, 'x')], /ethlogd snapshot: no store at .*nothing/],
    [['--data', source], /ethlogd snapshot: --out is required/],
  ];
  for (const [args, message] of cases) {
    const ran = await runCli(['snapshot', ...args]);
    assert.equal(ran.code, 2, args.join(' '));
    assert.match(ran.stderr, message);
    assert.match(ran.stderr, /\nRun "ethlogd snapshot --help" for its options\.\n$/);
  }
  assert.deepEqual(readdirSync(taken), []);
  assert.equal(existsSync(join(dir, 'x')), false);
});

test('a snapshot of a store following anvil seeds a replica: ' +
  'ingest --follow on it reaches the node and both stores end identical', {
  skip: ANVIL_MISSING,
}, async () => {
  const anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  const source = join(dir, 'followed');
  const copy = join(dir, 'followed-copy');
  const followers = [] as ReturnType<typeof startCli>[];
  try {
    const workload = await Workload.deploy(anvil, 3);
    await workload.mine(20, { special: false });
    await runIngest({ rpc: anvil.url, dataDir: source, logger: createLogger('warn') });
    followers.push(startCli(['ingest', '--rpc', anvil.url, '--data', source, '--follow', '--poll-ms', '20']));
    const mining = workload.mine(20, { special: false });
    await until(async () => (await headOf(source))!.number > 25, 'the follower copied new blocks');
    const snap = await runCli(['snapshot', '--data', source, '--out', copy]);
    assert.equal(snap.code, 0, snap.stderr);
    await mining;
    const verified = await runCli(['verify', '--data', copy]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    followers.push(startCli(['ingest', '--rpc', anvil.url, '--data', copy, '--follow', '--poll-ms', '20']));
    // Blocks mined once both follow, so each has started (its signal handlers in place) by the time it reaches them.
    await workload.mine(3, { special: false });
    const tip = await anvil.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]);
    for (const path of [source, copy]) {
      await until(
        async () => Buffer.from((await headOf(path))!.hash).toString('hex') === tip.hash.slice(2),
        `${path} reached anvil's head ${Number(tip.number)}`,
      );
    }
    for (const follower of followers) follower.child.kill('SIGTERM');
    for (const follower of followers) assert.equal(await follower.exited, 0);
    assert.deepEqual(await withStores(source, copy, diffStores), []);
  } finally {
    for (const follower of followers) follower.child.kill('SIGKILL');
    await anvil.stop();
  }
});
