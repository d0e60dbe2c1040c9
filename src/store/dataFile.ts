/**
 * The name of a store's LMDB data file, in a module of its own so that the CLI's argument checks
 * can look for a store without loading lmdb (schema.ts opens the store).
 */

/** LMDB's data file in a store directory: the store's pages (lock.mdb beside it holds no data). */
export const STORE_DATA_FILE = 'data.mdb';
