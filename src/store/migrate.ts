/**
 * Converts a store of the previous layout (MIGRATABLE_VERSION) to this one in place: layout 4 is
 * layout 3 plus frozen runs, and a layout-4 store with nothing frozen holds exactly what a layout-3
 * store holds, so the version moves first (one transaction) and the blocks behind the freeze point
 * are then frozen a few units a transaction (freezer.ts). Killed at any point, the store is a whole
 * layout-4 store; running it again freezes what is left.
 */
import { FREEZE_BLOCKS, Freezer, FrozenBatch, freezeTarget } from './freezer.js';
import { closeStore, MIGRATABLE_VERSION, openStore, SCHEMA_VERSION } from './schema.js';

/**
 * Units frozen per write transaction: each takes its entries out of the B-trees at random places, so a transaction
 * stays a few hundred MB at mainnet density.
 */
const MIGRATE_UNITS_PER_TRANSACTION = 4;

/** What migrateStore did. */
export interface MigrateResult {
  /** The layout version the store had. */
  from: number;
  /** The last frozen block afterwards (−1 when the chain is too short to freeze any). */
  frozenTo: number;
}

/** Converts the store in `dir` to SCHEMA_VERSION, telling `onProgress` of the frozen blocks as it goes. */
export async function migrateStore(
  dir: string,
  onProgress?: (frozenTo: number, target: number) => void,
): Promise<MigrateResult> {
  const store = openStore(dir, { migrating: true });
  try {
    const from = store.meta.get('schemaVersion') as number;
    if (from === MIGRATABLE_VERSION) store.meta.putSync('schemaVersion', SCHEMA_VERSION);
    const freezer = new Freezer(store);
    const head = store.meta.get('head') as number | undefined;
    if (head === undefined) return { from, frozenTo: -1 };
    const earliest = store.meta.get('earliest') as number;
    const target = freezeTarget(head);
    let frozenTo = Math.max(freezer.frozenTo(), earliest - 1);
    while (frozenTo < target) {
      const step = Math.min(
        target,
        (Math.floor((frozenTo + 1) / FREEZE_BLOCKS) + MIGRATE_UNITS_PER_TRANSACTION) * FREEZE_BLOCKS - 1,
      );
      store.env.transactionSync(() => freezer.freeze(earliest, step, Infinity, new FrozenBatch()));
      frozenTo = step;
      onProgress?.(frozenTo, target);
    }
    return { from, frozenTo: freezer.frozenTo() };
  } finally {
    await closeStore(store);
  }
}
