/**
 * The follow-mode ingest of a replica (serve --follow-rpc), run as a supervised child process:
 * `ethlogd ingest --follow` on the served store. A child, not the serving process's own loop, because
 * lmdb-js shares one environment per file within a process, opened with the first opener's flags (the
 * server's handles are read-only), and because a write transaction's commit would stall the main
 * thread's requests; as a child it writes as any `ingest --follow` does, beside the server.
 * Its log lines go to this process's stderr as they are. When it exits unasked (the node is gone past
 * the client's retries, a conflict), the exit is logged as an error and it is started again after a
 * wait that doubles up to a bound; it is never left stopped. The child stops by itself if this process
 * dies (its IPC channel closes), so a killed replica leaves no writer behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  REPLICA_HEALTHY_RUN_MS,
  REPLICA_INGEST_STOP_MS,
  REPLICA_RESTART_MAX_MS,
  REPLICA_RESTART_MIN_MS,
} from '../config.js';
import type { Logger, LogLevel } from '../logger.js';

/** The built command line's entry (dist/src/cli.js). */
const CLI = new URL('../cli.js', import.meta.url).pathname;

/** What the child follows and how. */
export interface FollowChildOptions {
  /** The node's JSON-RPC URL. */
  rpc: string;
  /** The store the replica serves. */
  dataDir: string;
  /** The child's head poll interval. */
  pollMs: number;
  /** Storage history mode of the ingest (prestate or none). */
  storage: string;
  /** The child's log level (its lines go to stderr as JSON, as this process's). */
  logLevel: LogLevel;
  logger: Logger;
}

/** A follow-mode ingest kept running until closed. */
export class FollowChild {
  private child: ChildProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private waitMs = REPLICA_RESTART_MIN_MS;
  private closing = false;

  /** Starts the child at once. */
  constructor(private readonly options: FollowChildOptions) {
    this.start();
  }

  /** Spawns the child and watches its exit. */
  private start(): void {
    const { rpc, dataDir, pollMs, storage, logLevel, logger } = this.options;
    const args = [
      CLI,
      'ingest',
      '--rpc',
      rpc,
      '--data',
      dataDir,
      '--follow',
      '--poll-ms',
      String(pollMs),
      '--storage',
      storage,
      '--log-level',
      logLevel,
      '--progress-seconds',
      '60',
    ];
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.child = child;
    logger.info(`replica: follow-mode ingest started (pid ${child.pid})`);
    child.once('error', (error) => logger.error('replica: the follow-mode ingest could not be started', error));
    child.once('exit', (code, signal) => {
      this.child = undefined;
      if (this.closing) return;
      const ranMs = performance.now() - started;
      if (ranMs >= REPLICA_HEALTHY_RUN_MS) this.waitMs = REPLICA_RESTART_MIN_MS;
      logger.error(
        `replica: the follow-mode ingest exited (${signal ?? `code ${code}`}) after ${(ranMs / 1000).toFixed(1)} s: ` +
          `restarting it in ${this.waitMs} ms`,
      );
      this.restartTimer = setTimeout(() => this.start(), this.waitMs);
      this.waitMs = Math.min(this.waitMs * 2, REPLICA_RESTART_MAX_MS);
    });
  }

  /**
   * Stops the child: SIGTERM (it commits its current batch), SIGKILL past REPLICA_INGEST_STOP_MS; resolves once it has
   * exited.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => {
      this.options.logger.warn(
        `replica: the follow-mode ingest did not stop within ${REPLICA_INGEST_STOP_MS} ms: killed`,
      );
      child.kill('SIGKILL');
    }, REPLICA_INGEST_STOP_MS);
    await exited;
    clearTimeout(killer);
  }
}
