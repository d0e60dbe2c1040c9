/**
 * Converts a store of an older layout (MIGRATABLE_VERSIONS: 3, 5 or 6) to this one in place. This
 * layout is layout 6 with one transactions record a block (blockTxsRecord.ts) where layout 6 kept
 * one record a transaction, and without the log-address database (the logs records hold the same
 * tables); layout 6 is layout 5 with transaction records that do not hold their hash, and layout 5
 * is layout 3 plus frozen runs and transaction inputs in the word form (store/bytes.ts). So the
 * transaction records are rewritten, a few thousand a write transaction, each block's at once into
 * its one record; the version moves once all are; the log-address database is dropped; and the
 * blocks behind the freeze point are then frozen a few units a transaction (freezer.ts). Killed at
 * any point, the store holds whole blocks of either form under the old version, refused but by
 * `ethlogd migrate`, which goes on from there.
 */
import { encodeBlockTxs } from './blockTxsRecord.js';
import { decodeHashedTx, encodeTx, TxForm } from './codec.js';
import { FREEZE_BLOCKS, Freezer, FrozenBatch, freezeTarget } from './freezer.js';
import { decodeTxKey, encodeBlockKey } from './keys.js';
import { closeStore, MIGRATABLE_VERSIONS, openStore, SCHEMA_VERSION, type Store } from './schema.js';

/**
 * Units frozen per write transaction: each takes its entries out of the B-trees at random places, so a transaction
 * stays a few hundred MB at mainnet density.
 */
const MIGRATE_UNITS_PER_TRANSACTION = 4;

/**
 * Transaction records read before their blocks' records are put (the read buffers are copied, so a few MB), a write
 * transaction each.
 */
const REWRITE_BATCH = 10_000;

/** Bytes of a key of the one-record-a-transaction layouts: u64 number ‖ u32 index. */
const OLD_TX_KEY_BYTES = 12;

/** Databases of older layouts this one does not have, dropped by migrate. */
const RETIRED_DATABASES = ['logAddresses'] as const;

/** The transaction record form of each migratable layout. */
const TX_FORM_OF: Readonly<Record<number, TxForm>> = { 3: TxForm.Bytes, 5: TxForm.Hashed, 6: TxForm.Stored };

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
      const form = TX_FORM_OF[from]!;
      for (let start: Buffer | undefined = encodeBlockKey(0); start !== undefined; )
        start = packTxRecords(store, form, start);
      store.meta.putSync('schemaVersion', SCHEMA_VERSION);
    }
    for (const name of RETIRED_DATABASES) store.env.openDB({ name, keyEncoding: 'binary' }).dropSync();
    const freezer = new Freezer(store);
    const head = store.meta.get('head') as number | undefined;
    if (head === undefined) return { from, frozenTo: -1 };
    const earliest = store.meta.get('earliest') as number;
    const target = freezeTarget(head, store.meta.get('finalized') as number | undefined);
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
 * In one write transaction, rewrites the transaction records of the first blocks from `start` still kept one record a
 * transaction (records of `form`, keyed number ‖ index) as their blocks' records (keyed number), about REWRITE_BATCH
 * records of whole blocks: all read, then put, no put while a range reads the database. Returns where the next call
 * starts (undefined when no block is left).
 */
function packTxRecords(store: Store, form: TxForm, start: Buffer): Buffer | undefined {
  const blocks = new Map<number, { keys: Buffer[]; records: Uint8Array[] }>();
  let records = 0;
  let next: Buffer | undefined;
  for (const { key, value } of store.txs.getRange({ start })) {
    if (key.length !== OLD_TX_KEY_BYTES) continue;
    const { number } = decodeTxKey(key);
    let block = blocks.get(number);
    if (block === undefined) {
      if (records >= REWRITE_BATCH) {
        next = encodeBlockKey(number);
        break;
      }
      blocks.set(number, (block = { keys: [], records: [] }));
    }
    block.keys.push(Buffer.from(key));
    block.records.push(form === TxForm.Stored ? Buffer.from(value) : encodeTx(decodeHashedTx(value, form)));
    records++;
  }
  store.env.transactionSync(() => {
    for (const [number, block] of blocks) {
      for (const key of block.keys) store.txs.remove(key);
      store.txs.put(encodeBlockKey(number), encodeBlockTxs(block.records));
    }
  });
  return next;
}
