/**
 * The export's file protocol, which makes it resumable and safe to interrupt: a chunk's file is
 * written under a hidden temporary name, flushed to disk, then renamed to its final name, so a
 * final name only ever holds a complete file (a crash or a kill leaves at most temporaries, which
 * the next run removes). A final name present is a complete chunk, skipped by a rerun.
 */
import { mkdir, open, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Chunk, parseChunkFileName } from './chunks.js';
import type { ExportKind } from './schemas.js';

/** What marks a temporary: a leading dot (hidden, so no `*.parquet` glob reads one) and this suffix. */
const TEMP_SUFFIX = '.tmp';

/** The output directory cannot be created or written: nothing was exported. */
export class OutDirError extends Error {
  /** Names the directory and the reason. */
  constructor(dir: string, reason: string) {
    super(`cannot write to ${dir}: ${reason}`);
  }
}

/**
 * Creates `dir` when absent and checks that a file can be created in it (a probe written and removed); throws
 * OutDirError otherwise.
 */
export async function prepareOutDir(dir: string): Promise<void> {
  const probe = tempPath(dir, `probe-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await unlink(probe);
  } catch (error) {
    throw new OutDirError(dir, (error as Error).message);
  }
}

/** The temporary name a file is written under before it is renamed to `name`. */
export function tempName(name: string): string {
  return `.${name}${TEMP_SUFFIX}`;
}

/** The path of the temporary a file `dir/name` is written to first. */
export function tempPath(dir: string, name: string): string {
  return join(dir, tempName(name));
}

/**
 * Completes `dir/name` from its temporary, written whole: flushed to disk, then renamed; the directory's entry is
 * flushed by syncDir.
 */
export async function completeFile(dir: string, name: string): Promise<void> {
  const temp = tempPath(dir, name);
  const handle = await open(temp, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, join(dir, name));
}

/** Flushes `dir`'s entries (the renames) to disk. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The complete files of `kind` on `network` in `dir`, by name, with their chunks. */
export interface ExistingFiles {
  complete: Map<string, Chunk>;
  /** Temporaries an earlier run left (killed while writing them). */
  stale: string[];
}

/** Lists the files of `kind` on `network` in `dir`: complete ones by name, and leftover temporaries. */
export async function existingFiles(dir: string, network: string, kind: ExportKind): Promise<ExistingFiles> {
  const complete = new Map<string, Chunk>();
  const stale: string[] = [];
  for (const name of await readdir(dir)) {
    const chunk = parseChunkFileName(name, network, kind);
    if (chunk) complete.set(name, chunk);
    else if (
      name.startsWith('.') &&
      name.endsWith(TEMP_SUFFIX) &&
      parseChunkFileName(name.slice(1, -TEMP_SUFFIX.length), network, kind)
    )
      stale.push(name);
  }
  return { complete, stale };
}

/** Removes the files `names` of `dir` (already gone is fine). */
export async function removeFiles(dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    await unlink(join(dir, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/**
 * The complete files a new chunk's file replaces: those starting at its first block and ending
 * before its last (the chunk at the head, exported again once the chain grew past it).
 */
export function superseded(complete: ReadonlyMap<string, Chunk>, chunk: Chunk): string[] {
  return [...complete].filter(([, c]) => c.from === chunk.from && c.to < chunk.to).map(([name]) => name);
}
