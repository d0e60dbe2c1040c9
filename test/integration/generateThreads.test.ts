/**
 * Generating in worker threads gives the store generating in the writer's thread gives: at two
 * densities, with one and with two threads (real worker threads, real LMDB files), every database
 * equal entry by entry (the pending block and the provenance record in meta included), and the
 * stores pass verify. Extending a store across thread counts (the first half in the writer's
 * thread, the rest in two threads) gives the store of the whole chain at once; the CLI's --threads
 * takes 0 and refuses what is not a thread count with exit 2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closeStore, openStore } from '#src/store/schema.js';
import { verifyStore } from '#src/store/verify.js';
import { type GenerateStoreOptions, generateStore } from '#src/synth/generateStore.js';
import { runCli } from '../support/child.js';
import { diffStores } from '../support/storeDiff.js';

/**
 * Blocks of each chain: through every fork era (Prague from block 24) and well into Prague; the equality, not the size,
 * is the point.
 */
const BLOCKS = 150;
/** Blocks per write transaction: small, so the threads take turns many times (19 batches). */
const BATCH_BLOCKS = 8;
/** A sparse chain (about 13 transactions a block) and a denser one (about 53). */
const DENSITIES = [0.05, 0.2];
const SEED = 'threads';

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-generate-threads-'));
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Generates into a new directory `name` and returns it. */
async function generate(name: string, opts: Partial<GenerateStoreOptions>): Promise<string> {
  const out = join(dir, name);
  await generateStore(out, {
    blocks: BLOCKS,
    seed: SEED,
    density: DENSITIES[0]!,
    batchBlocks: BATCH_BLOCKS,
    progress: false,
    ...opts,
  });
  return out;
}

/** Every difference between the stores in `a` and `b`, and verify's problems with `b`. */
async function compare(a: string, b: string): Promise<{ differences: string[]; problems: string[]; blocks: number }> {
  const left = openStore(a, { readOnly: true });
  const right = openStore(b, { readOnly: true });
  try {
    const { blocks, problems } = verifyStore(right);
    return { differences: diffStores(left, right), problems, blocks };
  } finally {
    await closeStore(left);
    await closeStore(right);
  }
}

describe('worker threads give the same store as the writer thread', () => {
  for (const density of DENSITIES) {
    test(`density ${density}: 1 and 2 threads, every database entry by entry, and verify`, async () => {
      const reference = await generate(`sequential-${density}`, { density, threads: 0 });
      for (const threads of [1, 2]) {
        const parallel = await generate(`threads-${threads}-${density}`, { density, threads });
        assert.deepEqual(
          await compare(reference, parallel),
          { differences: [], problems: [], blocks: BLOCKS },
          `${threads} threads`,
        );
      }
    });
  }

  test('N blocks in the writer thread, then 2N in two threads: the store of 2N at once', async () => {
    const half = BLOCKS / 2;
    const extended = await generate('extended', { blocks: half, threads: 0 });
    const result = await generateStore(extended, {
      blocks: BLOCKS,
      seed: SEED,
      density: DENSITIES[0]!,
      batchBlocks: BATCH_BLOCKS,
      progress: false,
      threads: 2,
    });
    assert.deepEqual([result.blocks, result.head], [half, BLOCKS - 1]);
    const atOnce = join(dir, `sequential-${DENSITIES[0]}`);
    assert.deepEqual(await compare(atOnce, extended), { differences: [], problems: [], blocks: BLOCKS });
  });
});

describe('generate --threads', () => {
  test('0 builds in the writer thread; the store equals the one of worker threads', async () => {
    const out = join(dir, 'cli-0');
    const ran = await runCli([
      'generate',
      '--out',
      out,
      '--blocks',
      String(BLOCKS),
      '--seed',
      SEED,
      '--density',
      String(DENSITIES[0]),
      '--threads',
      '0',
    ]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, new RegExp(`^generated ${BLOCKS} blocks`));
    assert.deepEqual((await compare(join(dir, `threads-2-${DENSITIES[0]}`), out)).differences, []);
  });

  test('not a thread count: exit 2 with what is wrong, no store', async () => {
    for (const value of ['-1', 'two', '1.5', '100000']) {
      const ran = await runCli(['generate', '--out', join(dir, 'refused'), '--blocks', '10', '--threads', value]);
      assert.equal(ran.code, 2, `--threads ${value}: ${ran.stderr}`);
      assert.match(ran.stderr, /--threads/);
      assert.equal(ran.stdout, '');
    }
  });
});
