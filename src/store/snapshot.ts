/**
 * A consistent, compacted copy of a store, taken while writers and servers keep running: LMDB copies
 * the environment from one read transaction (mdb_env_copy2 with MDB_CP_COMPACT, through lmdb-js's
 * backup), so the copy is exactly one committed state, its free pages dropped. The copy is written into
 * a temporary directory beside the destination, flushed to disk, then renamed to it, so the
 * destination either does not exist or holds a whole store.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { STORE_DATA_FILE } from './dataFile.js';
import { StoreReader } from './reader.js';
import { closeStore, openStore } from './schema.js';

/** What a snapshot holds. */
export interface SnapshotResult {
  /** The head block of the copy, or undefined when the store held no block. */
  head: number | undefined;
  /** Bytes of the copy's data file. */
  bytes: number;
}

/**
 * Why a snapshot cannot be written where it was asked to be (the destination exists): a usage mistake, not a failure.
 */
export class SnapshotTargetError extends Error {}

/**
 * The temporary directory a snapshot into `out` is written to before it is renamed (beside it: the rename stays on one
 * file system).
 */
export function partialPath(out: string): string {
  return join(dirname(resolve(out)), `.${basename(out)}.partial-${process.pid}`);
}

/** Flushes the file or directory at `path` to disk. */
function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Copies the store in `dataDir` into the new directory `out` (compacted, one committed state), and
 * returns the copy's head and size. Refuses an `out` that exists (SnapshotTargetError); on any failure
 * the temporary directory is removed and `out` is not created.
 */
export async function snapshotStore(dataDir: string, out: string): Promise<SnapshotResult> {
  if (existsSync(out)) throw new SnapshotTargetError(`${out} exists: a snapshot is written into a new directory`);
  const partial = partialPath(out);
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const store = openStore(dataDir, { readOnly: true });
  try {
    await store.env.backup(partial, true);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    await closeStore(store);
  }
  const dataFile = join(partial, STORE_DATA_FILE);
  fsyncPath(dataFile);
  fsyncPath(partial);
  const copy = openStore(partial, { readOnly: true });
  const head = new StoreReader(copy).head();
  await closeStore(copy);
  // The reader's lock file belongs to no store yet: the copy starts without one, as LMDB makes it.
  rmSync(join(partial, 'lock.mdb'), { force: true });
  renameSync(partial, out);
  fsyncPath(dirname(resolve(out)));
  return { head, bytes: statSync(join(out, STORE_DATA_FILE)).size };
}
