/**
 * The store a worker thread reads (the log engine's and the export's): opened read-only once per
 * thread and data directory, its read transaction reset for every task.
 */
import { StoreReader } from './reader.js';
import { openStore, type Store } from './schema.js';

/** This thread's open stores, by data directory. */
const stores = new Map<string, { store: Store; reader: StoreReader }>();

/**
 * The worker's store, reading the latest commit: lmdb-js renews its read transaction on a timer
 * (a new event turn), which never fires in a Piscina worker parked in Atomics.wait between tasks,
 * so without the reset a worker would answer from the snapshot of its first task forever.
 */
export function workerStore(dataDir: string): { store: Store; reader: StoreReader } {
  let entry = stores.get(dataDir);
  if (!entry) {
    const store = openStore(dataDir, { readOnly: true });
    entry = { store, reader: new StoreReader(store) };
    stores.set(dataDir, entry);
  }
  entry.store.env.resetReadTxn();
  return entry;
}
