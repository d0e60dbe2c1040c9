/**
 * The store's write path alone at a store's size: `--blocks` mainnet-density blocks continuing the
 * chain of the store in `--dir` (as `generate` would extend it, relinked onto its head), encoded
 * into records beforehand (what generating threads hand the writer), appended with
 * StoreWriter.appendRecords in generate's batches; the same number of blocks into a fresh store is
 * the baseline. The ratio says how much the store's size slows its writes (issue goal: a large
 * store's rate at least 80% of a fresh one's). Merges of the frozen runs fall in some windows and
 * not others (a level-1 merge every 2,048 blocks, a level-2 one every 16,384), and a fresh chain's
 * first blocks have none, so a short window's ratio says as much about the merges it holds as
 * about the store's size. The store in `--dir` keeps the blocks appended.
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
import { DEFAULT_BATCH_BLOCKS } from '#src/synth/generateStore.js';
import { generateChain, linkBlock } from '#src/synth/generator.js';
import { storedProvenance } from '#src/synth/provenance.js';
import { machine, table } from './report.js';

/** Blocks appended by default: two of generate's write transactions at mainnet density (about 1M logs). */
const DEFAULT_BLOCKS = 2 * DEFAULT_BATCH_BLOCKS;

/** Appends `records` to the store in `dir` in generate's batches; returns logs/s. */
async function append(dir: string, records: BlockRecords[], logs: number, chainId?: bigint): Promise<number> {
  const store = openStore(dir);
  try {
    const writer = new StoreWriter(store);
    const started = performance.now();
    for (let at = 0; at < records.length; at += DEFAULT_BATCH_BLOCKS) {
      writer.appendRecords({
        blocks: records.slice(at, at + DEFAULT_BATCH_BLOCKS),
        chainId: at === 0 ? chainId : undefined,
      });
    }
    return logs / ((performance.now() - started) / 1000);
  } finally {
    await closeStore(store);
  }
}

/**
 * The records of `count` blocks of the generated chain from `from` on (linked onto `parent` when given), and their log
 * count: each block encoded as it is generated, so only the records stay in memory.
 */
function encodedChain(
  seed: string,
  density: number,
  from: number,
  count: number,
  parent?: Uint8Array,
): { records: BlockRecords[]; logs: number } {
  const records: BlockRecords[] = [];
  let logs = 0;
  for (const generated of generateChain({ blocks: count, seed, density, startNumber: from })) {
    const block: BlockBundle = parent === undefined ? generated : linkBlock(generated, parent);
    if (parent !== undefined) parent = block.header.hash;
    logs += block.logs.length;
    records.push(encodeBlockRecords(block));
  }
  return { records, logs };
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
    const first = encodedChain(generator.seed, generator.density, 0, blocks);
    baseline = await append(fresh, first.records, first.logs, 1n);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  const { records, logs } = encodedChain(generator.seed, generator.density, meta.head + 1, blocks, parent);
  const large = await append(values.dir, records, logs);
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
