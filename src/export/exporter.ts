/**
 * Runs an export: plans the range's chunks, skips those whose file is complete, removes the
 * temporaries of an interrupted run, and keeps a window of chunk tasks on a Piscina pool (each
 * worker builds and encodes its chunk and writes it to the chunk's temporary, worker.ts), completing
 * each file as its task returns (flushed, then renamed: files.ts). Aborting stops the dispatch; the
 * chunks in flight are still completed, so an interrupted export leaves complete files only.
 */
import { Piscina } from 'piscina';
import { LOG_WORKER_NICE, WORKER_LOAD_WAIT_MS } from '../config.js';
import { type Chunk, chunkFileName, networkName, planChunks } from './chunks.js';
import type { CompressionName } from './compression.js';
import { completeFile, existingFiles, removeFiles, superseded, syncDir, tempName, tempPath } from './files.js';
import { ExportOptionsError, exportRecord, readRecord, recordDifferences, writeRecord } from './optionsRecord.js';
import type { ExportKind } from './schemas.js';
import type { ExportResult, ExportTask } from './task.js';

/**
 * Chunk tasks in flight per worker thread: one being built while the next waits, so no thread idles while the main
 * thread writes.
 */
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
  const pings = Array.from({ length: threads }, () =>
    (pool as unknown as Piscina<Int32Array, void>).run(barrier, { name: 'ready' }),
  );
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

/**
 * Stops the pool once its threads have loaded (bounded): terminating a thread while it loads lmdb's addon aborts the
 * process.
 */
async function stopPool(pool: Piscina<ExportTask, ExportResult>, ready: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ready, new Promise((resolve) => (timer = setTimeout(resolve, WORKER_LOAD_WAIT_MS)))]);
  clearTimeout(timer);
  await pool.destroy();
}

/**
 * Removes the temporary of `dir/name`, if any, once its chunk will not be completed (a failed export leaves no
 * temporary it wrote; one it could not remove the next run does).
 */
async function discard(dir: string, name: string): Promise<void> {
  await removeFiles(dir, [tempName(name)]).catch(() => undefined);
}

/**
 * Runs `job`; rejects on a worker failure or a file that cannot be written, after the chunks in flight have settled.
 */
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
  if (replaced.length > 0 && job.overwrite !== true)
    throw new ExportOptionsError(job.out, job.kind, replaced.length, differences);
  await removeFiles(job.out, [...existing.stale, ...replaced]);
  for (const name of replaced) existing.complete.delete(name);
  await writeRecord(job.out, network, job.kind, record);
  const summary: ExportSummary = {
    kind: job.kind,
    written: [],
    skipped: [],
    removed: [...existing.stale, ...replaced],
    rows: 0,
    bytes: 0,
    interrupted: false,
  };
  const todo: ChunkTodo[] = [];
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
  if (todo.length > 0)
    await runChunks(job, todo, existing.complete, summary, (blocks) => {
      blocksDone += blocks;
      report();
    });
  summary.written.sort();
  if (summary.written.length > 0 || summary.removed.length > 0) await syncDir(job.out);
  return summary;
}

/** A chunk still to export and the name of its file. */
interface ChunkTodo {
  chunk: Chunk;
  name: string;
}

/** The state of one runChunks: the chunks, the window of tasks in flight, and what they did. */
interface ChunkRun {
  job: ExportJob;
  todo: ChunkTodo[];
  /** The complete files of earlier runs (a chunk written now supersedes shorter ones). */
  complete: ReadonlyMap<string, Chunk>;
  summary: ExportSummary;
  onChunk: (blocks: number) => void;
  pool: Piscina<ExportTask, ExportResult>;
  /** Most tasks in flight. */
  window: number;
  /** The index in todo of the next chunk to dispatch. */
  next: number;
  inFlight: number;
  /** The completions of returned chunks, chained: files are completed one at a time. */
  writes: Promise<void>;
  /** The first failure; none is dispatched after it. */
  failure: Error | undefined;
  /** Resolves runChunks' wait once no task is in flight and none is left to dispatch. */
  resolve: () => void;
  onAbort: () => void;
}

/** A pool of `threads` threads: the prestarted one when it has as many, else a new one. */
function takePool(threads: number): { pool: Piscina<ExportTask, ExportResult>; ready: Promise<void> } {
  const taken = prestarted !== undefined && prestarted.threads >= threads ? prestarted : undefined;
  if (taken !== undefined) prestarted = undefined;
  return taken ?? startPool(threads);
}

/** Exports the chunks of `todo` on a pool, a window in flight, writing each file as it comes back. */
async function runChunks(
  job: ExportJob,
  todo: ChunkTodo[],
  complete: ReadonlyMap<string, Chunk>,
  summary: ExportSummary,
  onChunk: (blocks: number) => void,
): Promise<void> {
  const threads = Math.max(1, Math.min(job.threads, todo.length));
  const { pool, ready } = takePool(threads);
  const run: ChunkRun = {
    job,
    todo,
    complete,
    summary,
    onChunk,
    pool,
    window: threads * TASKS_PER_THREAD,
    next: 0,
    inFlight: 0,
    writes: Promise.resolve(),
    failure: undefined,
    resolve: () => undefined,
    onAbort: () => settle(run),
  };
  try {
    await new Promise<void>((resolve) => {
      run.resolve = resolve;
      job.signal?.addEventListener('abort', run.onAbort, { once: true });
      dispatch(run);
      settle(run);
    });
  } finally {
    await stopPool(pool, ready);
  }
  if (run.failure) throw run.failure;
}

/** Whether a failure or the signal stops the dispatch. */
function stopped(run: ChunkRun): boolean {
  return run.failure !== undefined || run.job.signal?.aborted === true;
}

/** Ends the run once no task is in flight and none is left to dispatch (or the dispatch is stopped). */
function settle(run: ChunkRun): void {
  if (run.inFlight > 0) return;
  if (run.next < run.todo.length && !stopped(run)) return;
  run.summary.interrupted = run.next < run.todo.length && run.failure === undefined;
  run.job.signal?.removeEventListener('abort', run.onAbort);
  run.resolve();
}

/** Dispatches chunks until the window is full, none is left, or the run is stopped. */
function dispatch(run: ChunkRun): void {
  while (run.inFlight < run.window && run.next < run.todo.length && !stopped(run)) {
    const { chunk, name } = run.todo[run.next++]!;
    run.inFlight++;
    const { job } = run;
    const path = tempPath(job.out, name);
    const task: ExportTask = {
      dataDir: job.dataDir,
      kind: job.kind,
      from: chunk.from,
      to: chunk.to,
      addresses: job.addresses,
      topics: job.topics,
      hex: job.hex,
      compression: job.compression,
      chainId: job.chainId,
      path,
    };
    run.pool.run(task).then(
      (result) => chunkReturned(run, chunk, name, result),
      (error: unknown) => {
        run.failure ??= new Error(`export worker died: ${error instanceof Error ? error.message : String(error)}`);
        discardChunk(run, name);
      },
    );
  }
}

/**
 * A chunk leaves the window once its file is written (or discarded), so results waiting for the
 * disk hold the dispatch back.
 */
function chunkDone(run: ChunkRun): void {
  run.inFlight--;
  dispatch(run);
  settle(run);
}

/** Queues the removal of the chunk's temporary, then its leaving the window. */
function discardChunk(run: ChunkRun, name: string): void {
  run.writes = run.writes.then(() => discard(run.job.out, name)).then(() => chunkDone(run));
}

/** Takes a chunk's result: a failure stops the run; a success queues the completion of its file. */
function chunkReturned(run: ChunkRun, chunk: Chunk, name: string, result: ExportResult): void {
  if (!result.ok) {
    run.failure ??= new Error(`export of blocks ${chunk.from}–${chunk.to} failed: ${result.message}`);
    discardChunk(run, name);
    return;
  }
  run.writes = run.writes.then(() => completeChunk(run, chunk, name, result.rows, result.bytes));
}

/**
 * Completes the chunk's file (removing the shorter files it supersedes) and counts it, unless the
 * run has failed: then, or when completing fails, its temporary is removed.
 */
async function completeChunk(run: ChunkRun, chunk: Chunk, name: string, rows: number, bytes: number): Promise<void> {
  const { job, summary } = run;
  if (run.failure === undefined) {
    try {
      await completeFile(job.out, name);
      const replaced = superseded(run.complete, chunk);
      await removeFiles(job.out, replaced);
      summary.removed.push(...replaced);
      summary.written.push(name);
      summary.rows += rows;
      summary.bytes += bytes;
      run.onChunk(chunk.to - chunk.from + 1);
    } catch (error) {
      run.failure ??= new Error(`cannot write ${name} in ${job.out}: ${(error as Error).message}`);
    }
  }
  if (run.failure !== undefined) await discard(job.out, name);
  chunkDone(run);
}
