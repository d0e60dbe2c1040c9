/**
 * The benchmarks' own datasets: generated once with `ethlogd generate` and reused by later runs,
 * unless stale. A dataset is stale when this build cannot open its layout, or when it was not made
 * by this generator's chain version with the wanted seed and density (the provenance record), or
 * holds more blocks than wanted: it is then generated again. A shorter one is extended.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { STORE_DATA_FILE } from '#src/store/dataFile.js';
import { StoreReader } from '#src/store/reader.js';
import { openStore } from '#src/store/schema.js';
import { CHAIN_VERSION } from '#src/synth/generator.js';
import { storedProvenance } from '#src/synth/provenance.js';

/** The dataset a benchmark wants. */
export interface DatasetSpec {
  dir: string;
  blocks: number;
  density: number;
  seed: string;
}

/**
 * What the store in `spec.dir` holds: why it cannot become the dataset `spec` asks for, or whether it already is it
 * (else generate extends it).
 */
function inspect(spec: DatasetSpec): { stale: string } | { complete: boolean } {
  let store;
  try {
    store = openStore(spec.dir, { readOnly: true });
  } catch (error) {
    return { stale: (error as Error).message };
  }
  try {
    const made = storedProvenance(store);
    if (!made) return { stale: `${spec.dir} has no record of the generator that made it` };
    if (made.chainVersion !== CHAIN_VERSION || made.seed !== spec.seed || made.density !== spec.density) {
      return {
        stale:
          `${spec.dir} holds chain version ${made.chainVersion}, seed ${made.seed}, density ` +
          `${made.density}; wanted version ${CHAIN_VERSION}, seed ${spec.seed}, density ${spec.density}`,
      };
    }
    const blocks = (new StoreReader(store).head() ?? -1) + 1;
    if (blocks > spec.blocks) return { stale: `${spec.dir} holds ${blocks} blocks, more than ${spec.blocks}` };
    return { complete: blocks === spec.blocks };
  } finally {
    void store.env.close();
  }
}

/** Makes sure `spec.dir` holds the dataset `spec` asks for: kept, extended, or generated again when stale. */
export function ensureDataset(spec: DatasetSpec): void {
  if (existsSync(join(spec.dir, STORE_DATA_FILE))) {
    const found = inspect(spec);
    if ('complete' in found && found.complete) return;
    if ('stale' in found) {
      console.log(`${found.stale}: generating it again`);
      rmSync(spec.dir, { recursive: true, force: true });
    }
  }
  console.log(`generating ${spec.dir} (${spec.blocks} blocks, density ${spec.density}); reused by later runs`);
  const args = [
    'generate',
    '--out',
    spec.dir,
    '--blocks',
    String(spec.blocks),
    '--density',
    String(spec.density),
    '--seed',
    spec.seed,
  ];
  const r = spawnSync(process.execPath, ['dist/src/cli.js', ...args], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`dataset generation failed: ethlogd ${args.join(' ')}`);
}
