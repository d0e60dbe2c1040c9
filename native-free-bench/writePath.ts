/**
 * The store's write path alone at a store's size: `--blocks` mainnet-density blocks continuing the
 * chain of the store in `--dir` (as `generate` would extend it, relinked onto its head), appended
 * with StoreWriter.appendRecords in generate's batches and with its markers, each batch encoded into records (what
 * generating threads hand the writer) before its write transaction, and only the write
 * transactions timed; the same number of blocks into a fresh store is the baseline. The ratio
 * says how much the store's size slows its writes (issue goal: a large store's rate at least 80%
 * of a fresh one's). A fresh chain's first 8,192 blocks merge nothing; after them a level-1 merge
 * goes on in steps at all times (each over 8,192 blocks), and a level-2 one from 262,144 blocks on,
 * so a window's ratio says as much about the merges it holds as about the store's size; a window
 * of 21,000 blocks (a tenth of a 100M-log run) holds them as a tenth does. The store in `--dir`
 * keeps the blocks appended.
 *
 * node dist/native-free-bench/writePath.js --dir data/scale [--blocks 2048]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BlockBundle } from '#src/chain/types.js';
import { type BlockRecords, encodeBlockRecords } from '#src/store/blockRecords.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { DEFAULT_BATCH_BLOCKS, freezeAlignedLength } from '#src/synth/generateStore.js';
import { generateChain, linkBlock, markers } from '#src/synth/generator.js';
import { storedProvenance } from '#src/synth/provenance.js';
import { machine, table } from './report.js';

/** Blocks appended by default: two of generate's write transactions at mainnet density (about 1M logs). */
const DEFAULT_BLOCKS = 2 * DEFAULT_BATCH_BLOCKS;

/**
 * Appends `count` blocks of the generated chain from `from` on (linked onto `parent` when given) to the store in `dir`
 * in generate's batches, each batch encoded into records before its write transaction, which alone is timed; returns
 * logs/s of the write transactions and the logs appended. Only one batch of records is in memory at a time, so a window
 * may be a tenth of a 100M-log run.
 */
async function append(
  dir: string,
  chain: { seed: string; density: number; earliest: number; from: number; count: number; parent?: Uint8Array },
  chainId?: bigint,
): Promise<{ logsPerSecond: number; logs: number }> {
  const store = openStore(dir);
  let logs = 0;
  let ms = 0;
  try {
    const writer = new StoreWriter(store);
    let parent = chain.parent;
    const blocks = generateChain({
      blocks: chain.count,
      seed: chain.seed,
      density: chain.density,
      startNumber: chain.from,
    });
    for (let at = 0, length = 0; at < chain.count; at += length) {
      length = freezeAlignedLength(chain.from + at, Math.min(DEFAULT_BATCH_BLOCKS, chain.count - at), chain.earliest);
      const records: BlockRecords[] = [];
      for (let i = at; i < at + length; i++) {
        const generated = blocks.next().value as BlockBundle;
        const block = parent === undefined ? generated : linkBlock(generated, parent);
        if (parent !== undefined) parent = block.header.hash;
        logs += block.logs.length;
        records.push(encodeBlockRecords(block));
      }
      const started = performance.now();
      const head = chain.from + at + length - 1;
      writer.appendRecords({
        blocks: records,
        chainId: at === 0 ? chainId : undefined,
        ...markers(head, chain.earliest),
      });
      ms += performance.now() - started;
    }
    // As generate and ingest do when they close: the next process takes up the merges' filters, not rebuilds them.
    writer.saveMergeFilters();
    return { logsPerSecond: logs / (ms / 1000), logs };
  } finally {
    await closeStore(store);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, blocks: { type: 'string' } } });
  if (values.dir === undefined) throw new Error('--dir: the store to extend');
  const blocks = Number(values.blocks ?? DEFAULT_BLOCKS);
  if (!Number.isInteger(blocks) || blocks < 1)
    throw new Error(`--blocks: a positive block count, not ${values.blocks}`);

  const store = openStore(values.dir, { readOnly: true });
  const reader = new StoreReader(store);
  const meta = reader.meta();
  const generator = storedProvenance(store);
  const parent = meta === undefined ? undefined : reader.header(meta.head)?.hash;
  await closeStore(store);
  if (meta === undefined || parent === undefined || generator === undefined)
    throw new Error(`${values.dir} holds no generated chain to extend`);

  // The fresh store first: the large one's appends leave the kernel writing back its pages for a while after.
  const fresh = mkdtempSync(join(tmpdir(), 'ethlogd-write-path-'));
  let baseline: number;
  try {
    baseline = (await append(fresh, { ...generator, earliest: 0, from: 0, count: blocks }, 1n)).logsPerSecond;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  const { logsPerSecond: large, logs } = await append(values.dir, {
    ...generator,
    earliest: meta.earliest,
    from: meta.head + 1,
    count: blocks,
    parent,
  });
  console.log(`Machine: ${machine()}\n`);
  console.log(
    table([
      {
        figure:
          `write path alone: ${blocks} pre-encoded blocks (${logs} logs) appended to the store of ` +
          `${meta.head + 1} blocks, batches of ${DEFAULT_BATCH_BLOCKS}`,
        ours: large,
        unit: 'logs/s',
        baseline,
        baselineName: 'the same count into a fresh store',
        target: { kind: 'min', value: 200_000, text: '≥ 200k logs/s' },
      },
    ]),
  );
  console.log(`large / fresh: ${(large / baseline).toFixed(2)}`);
}

await main();
