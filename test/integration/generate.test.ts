/**
 * `ethlogd generate` through the real CLI: generating N blocks then 2N gives the store generating 2N
 * at once gives (every LMDB database equal, entry by entry, the pending block of the new head
 * included); the refusals (another seed, another density, fewer blocks than stored, a store of an
 * older chain version or with no record of its generator) exit 2 with what to do and change
 * nothing; the summary is printed once; the busiest contract it names has the logs eth_getLogs,
 * queried with the printed params on a real server, returns. A store generated with LMDB's write map
 * and one without are the same.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { verifyStore } from '#src/store/verify.js';
import { generateStore } from '#src/synth/generateStore.js';
import { CHAIN_VERSION } from '#src/synth/generator.js';
import { PROVENANCE_KEY } from '#src/synth/provenance.js';
import { runCli } from '../support/child.js';
import { startTestService } from '../support/harness.js';
import { diffStores } from '../support/storeDiff.js';
import { pick } from '../support/verifyResult.js';

/** Half the chain: past the end of Cancun (block 23), so the extension starts in Prague with blob gas carried over. */
const HALF = 60;
const DENSITY = '0.05';
const SEED = 'extend';

let dir: string;
/** A store generated to HALF blocks, then extended to 2 × HALF, and one generated to 2 × HALF at once. */
let extended: string;
let atOnce: string;
/** What each of the runs printed. */
let runs: Record<'first' | 'extension' | 'atOnce', Awaited<ReturnType<typeof runCli>>>;

const generate = (out: string, blocks: number, ...more: string[]) =>
  runCli(['generate', '--out', out, '--blocks', String(blocks), '--seed', SEED, '--density', DENSITY, ...more]);

/** Every difference between the stores in directories `a` and `b`. */
async function diffDirs(a: string, b: string): Promise<string[]> {
  const left = openStore(a, { readOnly: true });
  const right = openStore(b, { readOnly: true });
  try {
    return diffStores(left, right);
  } finally {
    await closeStore(left);
    await closeStore(right);
  }
}

/** A copy of the store in `from`, to compare with after a refused run. */
function copyOf(from: string, name: string): string {
  const to = join(dir, name);
  cpSync(from, to, { recursive: true });
  return to;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-generate-'));
  extended = join(dir, 'extended');
  atOnce = join(dir, 'at-once');
  runs = {
    first: await generate(extended, HALF),
    extension: await generate(extended, 2 * HALF),
    atOnce: await generate(atOnce, 2 * HALF),
  };
  for (const [name, run] of Object.entries(runs)) assert.equal(run.code, 0, `${name}: ${run.stderr}`);
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('extending a store', () => {
  test(
    'N blocks then 2N give the store 2N at once gives: ' + 'every database, entry by entry, the pending block included',
    async () => {
      assert.deepEqual(await diffDirs(extended, atOnce), []);
      const store = openStore(extended, { readOnly: true });
      try {
        assert.deepEqual(pick(verifyStore(store)), { blocks: 2 * HALF, problems: [] });
      } finally {
        await closeStore(store);
      }
      assert.match(
        runs.extension.stdout,
        new RegExp(
          `^generated ${HALF} blocks, \\d+ transactions, \\d+ logs in .* into ` +
            `${extended} \\(blocks ${HALF}–${2 * HALF - 1}\\)$`,
          'm',
        ),
      );
    },
  );

  test('the summary is printed once, on stdout; stderr has no second one', () => {
    for (const run of Object.values(runs)) {
      assert.equal(run.stdout.match(/^generated \d+ blocks/gm)?.length, 1, run.stdout);
      assert.doesNotMatch(run.stderr, /transactions|logs in/, run.stderr);
    }
  });

  test('the same --blocks again: nothing to add, exit 0, nothing changed', async () => {
    const ran = await generate(extended, 2 * HALF);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(
      ran.stdout,
      `the store at ${extended} already holds blocks 0–${2 * HALF - 1} of this ` +
        `chain (--seed "${SEED}" --density ${DENSITY}): nothing to add\n`,
    );
    assert.deepEqual(await diffDirs(extended, atOnce), []);
  });
});

describe('refusals: exit 2, what to do on stderr, the store unchanged', () => {
  test('another seed, another density, fewer blocks than stored', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['generate', '--out', extended, '--blocks', String(3 * HALF), '--seed', 'other', '--density', DENSITY],
        new RegExp(
          'holds blocks 0–119 of another chain \\(--seed "extend" --density 0\\.05, ' +
            'not --seed "other" --density 0\\.05\\): to extend it, run generate with --seed ' +
            '"extend" --density 0\\.05; for this chain, choose another --out',
        ),
      ],
      [
        ['generate', '--out', extended, '--blocks', String(3 * HALF), '--seed', SEED, '--density', '0.5'],
        new RegExp(
          'holds blocks 0–119 of another chain \\(--seed "extend" --density ' +
            '0\\.05, not --seed "extend" --density 0\\.5\\): to extend it, ' +
            'run generate with --seed "extend" --density 0\\.05',
        ),
      ],
      [
        ['generate', '--out', extended, '--blocks', String(HALF), '--seed', SEED, '--density', DENSITY],
        new RegExp(
          'already holds blocks 0–119 of this chain, more than the 60 asked for, and keeps them: ' +
            'ask for --blocks 120 or more to extend it, or choose another --out for a 60-block chain',
        ),
      ],
    ];
    for (const [args, message] of cases) {
      const ran = await runCli(args);
      assert.equal(ran.code, 2, `${args.join(' ')}: ${ran.stderr}`);
      assert.match(
        ran.stderr,
        new RegExp(`^ethlogd generate: the store at ${extended} ${message.source}`),
        args.join(' '),
      );
      assert.equal(ran.stdout, '');
    }
    assert.deepEqual(await diffDirs(extended, atOnce), []);
  });

  test(
    'a store of an older chain version, or with no record ' + 'of its generator (an older generate, or ingest)',
    async () => {
      const older = copyOf(atOnce, 'older');
      const unrecorded = copyOf(atOnce, 'unrecorded');
      for (const [path, edit] of [
        [
          older,
          (s: ReturnType<typeof openStore>) =>
            s.meta.putSync(PROVENANCE_KEY, { chainVersion: 1, seed: SEED, density: Number(DENSITY) }),
        ],
        [unrecorded, (s: ReturnType<typeof openStore>) => s.meta.removeSync(PROVENANCE_KEY)],
      ] as const) {
        const store = openStore(path);
        edit(store);
        await closeStore(store);
      }
      const before = { older: copyOf(older, 'older-before'), unrecorded: copyOf(unrecorded, 'unrecorded-before') };

      const fromOlder = await generate(older, 3 * HALF);
      assert.equal(fromOlder.code, 2, fromOlder.stderr);
      assert.match(
        fromOlder.stderr,
        new RegExp(
          '^ethlogd generate: the store at \\S+ holds blocks 0–119 of chain ' +
            'version 1, made by an older ethlogd generate; this one makes version ' +
            `${CHAIN_VERSION}, whose blocks differ\\. It cannot be extended: ` +
            'generate into another --out, or delete \\S+ and generate it again\\n$',
        ),
      );
      assert.deepEqual(await diffDirs(older, before.older), []);

      const fromUnrecorded = await generate(unrecorded, 3 * HALF);
      assert.equal(fromUnrecorded.code, 2, fromUnrecorded.stderr);
      assert.match(
        fromUnrecorded.stderr,
        new RegExp(
          '^ethlogd generate: the store at \\S+ holds blocks 0–119 with no record of generating them: ' +
            `ethlogd ingest made it, or an ethlogd generate older than chain version ${CHAIN_VERSION}`,
        ),
      );
      assert.deepEqual(await diffDirs(unrecorded, before.unrecorded), []);
    },
  );
});

describe('the write map', () => {
  test(
    'a store generated with the write map and one without ' + 'are the same, entry by entry, and both verify',
    async () => {
      const opts = { blocks: 2 * HALF, seed: SEED, density: Number(DENSITY), progress: false, batchBlocks: 16 };
      const mapped = join(dir, 'write-map');
      const unmapped = join(dir, 'no-write-map');
      await generateStore(mapped, { ...opts, writeMap: true });
      await generateStore(unmapped, { ...opts, writeMap: false });
      assert.deepEqual(await diffDirs(mapped, unmapped), []);
      assert.deepEqual(await diffDirs(mapped, atOnce), []);
      for (const path of [mapped, unmapped]) {
        const store = openStore(path, { readOnly: true });
        try {
          assert.deepEqual(pick(verifyStore(store)), { blocks: 2 * HALF, problems: [] });
        } finally {
          await closeStore(store);
        }
      }
    },
  );
});

describe('the busiest contracts', () => {
  test(
    'at most 8 lines in all; the curl line queries the ' + 'busiest contract, and eth_getLogs finds its logs',
    async () => {
      const out = runs.atOnce.stdout.trimEnd().split('\n');
      assert.ok(out.length <= 8, runs.atOnce.stdout);
      assert.match(out[1]!, /^busiest contracts, by logs in blocks 0–119:$/);
      const [, address, count] = /^ {2}(0x[0-9a-f]{40}) {2}(\d+), topic0 0x[0-9a-f]{64} \d+/.exec(out[2]!)!;
      const curl = out.find((l) => l.startsWith('  curl '))!;
      const body = JSON.parse(/-d '([^']+)'/.exec(curl)![1]!) as {
        method: string;
        params: [{ fromBlock: string; toBlock: string; address: string; topics: string[] }];
      };
      assert.equal(body.method, 'eth_getLogs');
      const [filter] = body.params;
      assert.equal(filter.address, address);
      assert.ok(Number(count) > 0);

      const store = openStore(atOnce);
      const key = createApiKey(store, 'generate-test');
      await closeStore(store);
      const svc = await startTestService({ dir: atOnce, key, revokedKey: key, remove: () => undefined });
      try {
        const logs = (await svc.result('eth_getLogs', [filter])) as { address: string; topics: string[] }[];
        assert.ok(logs.length > 0, 'the example finds logs');
        for (const log of logs) assert.deepEqual([log.address, log.topics[0]], [address, filter.topics[0]]);
        const about = Number(/about (\d+) logs/.exec(out.find((l) => l.includes('about'))!)![1]);
        assert.ok(Math.abs(logs.length - about) <= Math.max(10, about / 2), `about ${about}, found ${logs.length}`);
      } finally {
        await svc.close();
      }
    },
  );
});
