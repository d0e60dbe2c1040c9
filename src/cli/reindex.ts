/**
 * `ethlogd reindex`: rebuilds a store's derived log indexes (block address tables, bloom bits).
 */
import { EthLogStore } from '../api/store.js';
import { existingStore, parse } from './args.js';

/** Usage text of `reindex`. */
export const REINDEX_USAGE = `Usage: ethlogd reindex --data DIR

Rebuilds the derived log indexes from the stored blocks: each block's sorted address table and the
bloom-bits rows of every complete segment (for a store written before they existed, or to repair
them). One write transaction per segment; a server may keep serving meanwhile.

Options:
  --data DIR     store directory                                       required
  -h, --help     this text`;

/** Runs `reindex`. */
export async function reindexCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' } });
  if (values.help) {
    console.log(REINDEX_USAGE);
    return 0;
  }
  const store = EthLogStore.open(existingStore(values.data), { writable: true });
  try {
    const started = Date.now();
    const segments = store.reindex();
    console.log(`rebuilt the log indexes of ${segments} segments in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    await store.close();
  }
}
