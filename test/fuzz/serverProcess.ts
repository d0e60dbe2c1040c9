/**
 * The server under test in its own process (the fuzz and load-isolation tests): `node
 * dist/src/cli.js serve` as a child, so a crash shows as an exit (with its stderr) instead of taking
 * the test runner down, the client's work does not share the server's main thread, and its memory
 * can be read from /proc (VmRSS) while it runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;

/** Most stderr kept for a report (the tail). */
const STDERR_KEEP_CHARS = 64 * 1024;

/** A running `ethlogd serve`. */
export interface ServerProcess {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  host: string;
  port: number;
  pid: number;
  /** The exit code or signal once the process has exited, else undefined. */
  exit(): number | string | undefined;
  /** The tail of its stderr. */
  stderr(): string;
  /** Its resident set size in KiB (VmRSS of /proc/PID/status). */
  rssKiB(): number;
  /** SIGTERM, then resolves with how it exited. */
  stop(): Promise<number | string>;
}

/** Starts `ethlogd serve --data dir --port 0 ...args` and resolves once it listens. */
export async function startServerProcess(dir: string, args: string[] = []): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--data', dir, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let exit: number | string | undefined;
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP_CHARS);
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = code ?? signal ?? -1;
      resolve(exit);
    }),
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening:\n${stderr}`)));
  });
  const m = /^listening on (http:\/\/([\d.]+):(\d+))$/.exec(first);
  if (!m) throw new Error(`unexpected first line of serve: ${first}`);
  return {
    url: m[1]!,
    host: m[2]!,
    port: Number(m[3]),
    pid: child.pid!,
    exit: () => exit,
    stderr: () => stderr,
    rssKiB: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]);
    },
    stop: async () => {
      if (exit === undefined) child.kill('SIGTERM');
      return exited;
    },
  };
}
