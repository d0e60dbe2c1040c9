/**
 * Converts a store of an older layout (MIGRATABLE_VERSIONS: 3 or 5) to this one in place. This
 * layout is layout 5 with transaction records that do not hold their hash (the block's txHashes
 * record does), and layout 5 is layout 3 plus frozen runs and transaction inputs in the word form
 * (store/bytes.ts); a store of this layout with nothing frozen holds what a layout-3 store holds
 * once its transaction records are rewritten. So the records are rewritten and the version moves
 * in one transaction, and the blocks behind the freeze point are then frozen a few units a
 * transaction (freezer.ts). Killed at any point, the store is a whole store of one layout; running
 * it again goes on from there.
 */
import { decodeHashedTx, encodeTx, TxForm } from './codec.js';
import { FREEZE_BLOCKS, Freezer, FrozenBatch, freezeTarget } from './freezer.js';
import { closeStore, MIGRATABLE_VERSIONS, openStore, SCHEMA_VERSION, type Store } from './schema.js';

/**
 * Units frozen per write transaction: each takes its entries out of the B-trees at random places, so a transaction
 * stays a few hundred MB at mainnet density.
 */
const MIGRATE_UNITS_PER_TRANSACTION = 4;

/** Transaction records read before they are put back rewritten (the read buffers are copied, so a few MB). */
const REWRITE_BATCH = 10_000;

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
    if (MIGRATABLE_VERSIONS.includes(from)) {
      store.env.transactionSync(() => {
        rewriteTxRecords(store, from === 3 ? TxForm.Bytes : TxForm.Hashed);
        store.meta.put('schemaVersion', SCHEMA_VERSION);
      });
    }
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

/**
 * Rewrites every transaction record of an older layout (records of `form`, each starting with its hash) as this
 * layout's (TxForm.Stored) within a write transaction, REWRITE_BATCH records read, then put, at a time: no put while a
 * range reads the database.
 */
function rewriteTxRecords(store: Store, form: TxForm.Bytes | TxForm.Hashed): void {
  let start: Buffer | undefined;
  for (;;) {
    const batch: { key: Buffer; value: Buffer }[] = [];
    for (const { key, value } of store.txs.getRange({ start, limit: REWRITE_BATCH })) {
      if (start !== undefined && batch.length === 0 && key.equals(start)) continue;
      batch.push({ key: Buffer.from(key), value: encodeTx(decodeHashedTx(value, form)) });
    }
    for (const { key, value } of batch) store.txs.put(key, value);
    if (batch.length === 0) return;
    start = batch.at(-1)!.key;
  }
}
