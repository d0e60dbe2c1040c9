/**
 * `ethlogd migrate`: converts a store of an older layout version (3, 5 or 6) to this one, in place.
 */
import { migrateStore } from '../store/migrate.js';
import { MIGRATABLE_VERSIONS, SCHEMA_VERSION } from '../store/schema.js';
import { existingStore, parse } from './args.js';

/** Usage text of `migrate`. */
export const MIGRATE_USAGE = `Usage: ethlogd migrate --data DIR

Converts a store of layout version ${MIGRATABLE_VERSIONS.join(', ')} to version ${SCHEMA_VERSION} in place: each
block's transaction records are rewritten into one record (without their hashes, which the block's
list of hashes keeps, and with their inputs compacted), the log-address database is dropped (the logs
records hold the same tables), and the transaction-hash index and the storage history of all but the
newest blocks move from their B-trees into sorted, merged runs. Stop the store's writer first
(servers may keep serving after it ends). Safe to kill and run again: every transaction leaves whole
blocks, and a run again goes on from there. A store already at version ${SCHEMA_VERSION} is left as it
is, but for anything left to freeze.

Options:
  --data DIR     store directory                                       required
  -h, --help     this text`;

/** Runs `migrate`. */
export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' } });
  if (values.help) {
    console.log(MIGRATE_USAGE);
    return 0;
  }
  const started = Date.now();
  const result = await migrateStore(existingStore(values.data), (frozenTo, target) =>
    process.stderr.write(`frozen to block ${frozenTo} of ${target}\n`),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const frozen = result.frozenTo < 0 ? 'nothing to freeze yet' : `frozen to block ${result.frozenTo}`;
  console.log(`layout version ${result.from} → ${SCHEMA_VERSION}: ${frozen} (${seconds} s)`);
  return 0;
}
