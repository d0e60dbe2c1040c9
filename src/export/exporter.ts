/**
 * Runs an export: plans the range's chunks, skips those whose file is complete, removes the
 * temporaries of an interrupted run, and keeps a window of chunk tasks on a Piscina pool (each
 * worker builds and encodes its chunk and writes it to the chunk's temporary, worker.ts), completing
 * each file as its task returns (flushed, then renamed: files.ts). Aborting stops the dispatch; the
 * chunks in flight are still completed, so an interrupted export leaves complete files only.
 */
import { Piscina } from 'piscina';
import { LOG_WORKER_NICE, WORKER_LOAD_WAIT_MS } from '../config.js';
import { chunkFileName, networkName, planChunks, type Chunk } from './chunks.js';
import { completeFile, existingFiles, removeFiles, superseded, syncDir, tempName, tempPath } from './files.js';
import type { CompressionName } from './compression.js';
import { exportRecord, ExportOptionsError, readRecord, recordDifferences, writeRecord } from './optionsRecord.js';
import type { ExportKind } from './schemas.js';
import type { ExportResult, ExportTask } from './task.js';

/** Chunk tasks in flight per worker thread: one being built while the next waits, so no thread idles while the main thread writes. */
const TASKS_PER_THREAD = 2;

/** What to export and how. */
export interface ExportJob {
  dataDir: string;
  /** The directory the files go to (it exists and is writable). */
  out: string;
  kind: ExportKind;
  /** The blocks to export, inclusive, already resolved against the store (from > to: nothing). */
  from: number;
  to: number;
  /** The logs filter (logs only): addresses (empty: any) and topic positions (null: any). */
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
  chainId: bigint;
  chunkBlocks: number;
  compression: CompressionName;
  hex: boolean;
  /** Replace the datatype's files of an export with other options (else such files refuse the export). */
  overwrite?: boolean;
  threads: number;
  /** Aborting stops the export after the chunks in flight. */
  signal?: AbortSignal;
  /** Told after every chunk done or skipped. */
  onProgress?: (progress: ExportProgress) => void;
}

/** How far an export is. */
export interface ExportProgress {
  /** Blocks of the range in chunks done or skipped. */
  blocks: number;
  totalBlocks: number;
  /** Rows written so far (skipped files not counted). */
  rows: number;
}

/** What an export did. */
export interface ExportSummary {
  kind: ExportKind;
  /** Files written, in order of their chunks. */
  written: string[];
  /** Complete files of earlier runs, left as they were. */
  skipped: string[];
  /** Files removed: temporaries of an interrupted run, and shorter files of a chunk now written in full. */
  removed: string[];
  /** Rows in the files written. */
  rows: number;
  /** Bytes of the files written. */
  bytes: number;
  /** Whether the signal stopped it before every chunk was done. */
  interrupted: boolean;
}

/** A started pool of `threads` export workers, and a promise settled once every thread has loaded. */
function startPool(threads: number): { pool: Piscina<ExportTask, ExportResult>; ready: Promise<void> } {
  const pool = new Piscina<ExportTask, ExportResult>({
    filename: new URL('./worker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // A bulk job: it yields to a server's lookups on the same machine, as the log scans do.
    niceIncrement: LOG_WORKER_NICE,
  });
  const barrier = new Int32Array(new SharedArrayBuffer(8));
  barrier[1] = threads;
  const pings = Array.from({ length: threads }, () => (pool as unknown as Piscina<Int32Array, void>).run(barrier, { name: 'ready' }));
  return { pool, ready: Promise.allSettled(pings).then(() => undefined) };
}

/** A pool prestartPool started for the next export, until an export takes it or stopPrestartedPool stops it. */
let prestarted: { threads: number; pool: Piscina<ExportTask, ExportResult>; ready: Promise<void> } | undefined;

/**
 * Starts the pool of the next export, of `threads` threads, ahead of it: its threads load their
 * modules while the caller still loads its own and opens the store (the command line does, on the
 * critical path of a short export). The next runExport needing at most that many threads takes it;
 * stopPrestartedPool stops it when none did.
 */
export function prestartPool(threads: number): void {
  prestarted ??= { threads, ...startPool(threads) };
}

/** Stops the prestarted pool when no export took it (the export failed or had nothing to write). */
export async function stopPrestartedPool(): Promise<void> {
  const left = prestarted;
  prestarted = undefined;
  if (left !== undefined) await stopPool(left.pool, left.ready);
}

/** Stops the pool once its threads have loaded (bounded): terminating a thread while it loads lmdb's addon aborts the process. */
async function stopPool(pool: Piscina<ExportTask, ExportResult>, ready: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ready, new Promise((resolve) => (timer = setTimeout(resolve, WORKER_LOAD_WAIT_MS)))]);
  clearTimeout(timer);
  await pool.destroy();
}

/** Removes the temporary of `dir/name`, if any, once its chunk will not be completed (a failed export leaves no temporary it wrote; one it could not remove the next run does). */
async function discard(dir: string, name: string): Promise<void> {
  await removeFiles(dir, [tempName(name)]).catch(() => undefined);
}

/** Runs `job`; rejects on a worker failure or a file that cannot be written, after the chunks in flight have settled. */
export async function runExport(job: ExportJob): Promise<ExportSummary> {
  const network = networkName(job.chainId);
  const chunks = planChunks(job.from, job.to, job.chunkBlocks);
  const totalBlocks = Math.max(0, job.to - job.from + 1);
  const existing = await existingFiles(job.out, network, job.kind);
  // The options the directory's files were written with: others refuse the export (or, with
  // overwrite, replace the files). Files without a record (an older version's) are taken as this run's.
  const record = exportRecord(job);
  const recorded = await readRecord(job.out, network, job.kind);
  const differences = recorded === undefined ? [] : recordDifferences(recorded, record);
  const replaced = differences.length > 0 ? [...existing.complete.keys()] : [];
  if (replaced.length > 0 && job.overwrite !== true) throw new ExportOptionsError(job.out, job.kind, replaced.length, differences);
  await removeFiles(job.out, [...existing.stale, ...replaced]);
  for (const name of replaced) existing.complete.delete(name);
  await writeRecord(job.out, network, job.kind, record);
  const summary: ExportSummary = { kind: job.kind, written: [], skipped: [], removed: [...existing.stale, ...replaced], rows: 0, bytes: 0, interrupted: false };
  const todo: { chunk: Chunk; name: string }[] = [];
  let blocksDone = 0;
  for (const chunk of chunks) {
    const name = chunkFileName(network, job.kind, chunk);
    if (existing.complete.has(name)) {
      summary.skipped.push(name);
      blocksDone += chunk.to - chunk.from + 1;
    } else {
      todo.push({ chunk, name });
    }
  }
  const report = () => job.onProgress?.({ blocks: blocksDone, totalBlocks, rows: summary.rows });
  report();
  if (todo.length > 0) await runChunks(job, todo, existing.complete, summary, (blocks) => {
    blocksDone += blocks;
    report();
  });
  summary.written.sort();
  if (summary.written.length > 0 || summary.removed.length > 0) await syncDir(job.out);
  return summary;
}

/** Exports the chunks of `todo` on a pool, a window in flight, writing each file as it comes back. */
async function runChunks(
  job: ExportJob,
  todo: { chunk: Chunk; name: string }[],
  complete: ReadonlyMap<string, Chunk>,
  summary: ExportSummary,
  onChunk: (blocks: number) => void,
): Promise<void> {
  const threads = Math.max(1, Math.min(job.threads, todo.length));
  const taken = prestarted !== undefined && prestarted.threads >= threads ? prestarted : undefined;
  if (taken !== undefined) prestarted = undefined;
  const { pool, ready } = taken ?? startPool(threads);
  const window = threads * TASKS_PER_THREAD;
  let failure: Error | undefined;
  try {
    await new Promise<void>((resolve) => {
      let next = 0;
      let inFlight = 0;
      let writes = Promise.resolve();
      const onAbort = () => settle();
      const stopped = () => failure !== undefined || job.signal?.aborted === true;
      const settle = () => {
        if (inFlight > 0) return;
        if (next < todo.length && !stopped()) return;
        summary.interrupted = next < todo.length && failure === undefined;
        job.signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const dispatch = () => {
        while (inFlight < window && next < todo.length && !stopped()) {
          const { chunk, name } = todo[next++]!;
          inFlight++;
          const path = tempPath(job.out, name);
          const task: ExportTask = { dataDir: job.dataDir, kind: job.kind, from: chunk.from, to: chunk.to, addresses: job.addresses, topics: job.topics, hex: job.hex, compression: job.compression, chainId: job.chainId, path };
          // A chunk leaves the window once its file is written, so results waiting for the disk hold the dispatch back.
          const done = () => {
            inFlight--;
            dispatch();
            settle();
          };
          pool.run(task).then(
            (result) => {
              if (!result.ok) {
                failure ??= new Error(`export of blocks ${chunk.from}–${chunk.to} failed: ${result.message}`);
                writes = writes.then(() => discard(job.out, name)).then(done);
                return;
              }
              writes = writes.then(async () => {
                if (failure === undefined) {
                  try {
                    await completeFile(job.out, name);
                    const replaced = superseded(complete, chunk);
                    await removeFiles(job.out, replaced);
                    summary.removed.push(...replaced);
                    summary.written.push(name);
                    summary.rows += result.rows;
                    summary.bytes += result.bytes;
                    onChunk(chunk.to - chunk.from + 1);
                  } catch (error) {
                    failure ??= new Error(`cannot write ${name} in ${job.out}: ${(error as Error).message}`);
                  }
                }
                if (failure !== undefined) await discard(job.out, name);
                done();
              });
            },
            (error: unknown) => {
              failure ??= new Error(`export worker died: ${error instanceof Error ? error.message : String(error)}`);
              writes = writes.then(() => discard(job.out, name)).then(done);
            },
          );
        }
      };
      job.signal?.addEventListener('abort', onAbort, { once: true });
      dispatch();
      settle();
    });
  } finally {
    await stopPool(pool, ready);
  }
  if (failure) throw failure;
}
