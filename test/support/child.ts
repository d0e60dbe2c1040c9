/**
 * The built CLI (dist/src/cli.js) run as a child process, for tests that need another process:
 * its output captured as it comes, its exit awaited, and signals sent to it.
 */
import { type ChildProcess, spawn } from 'node:child_process';

const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;

/** A running CLI process. */
export interface CliProcess {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited and its output is all read. */
  exited: Promise<number | string>;
  /** Resolves once stderr matches `pattern`; rejects if the process exits first. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
}

/** Starts `ethlogd args...`. */
export function startCli(args: string[]): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  // 'close', not 'exit': 'exit' may come before the last of stdout and stderr has been read.
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const waitForStderr = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      let done = false;
      const check = () => {
        if (done) return;
        const m = err.match(pattern);
        if (m) {
          done = true;
          resolve(m);
        } else waiters.push(check);
      };
      void exited.then((code) => {
        if (!done) {
          done = true;
          const m = err.match(pattern);
          if (m) resolve(m);
          else reject(new Error(`ethlogd exited (${code}) before its stderr matched ${pattern}: ${err}`));
        }
      });
      check();
    });
  return { child, stdout: () => out, stderr: () => err, exited, waitForStderr };
}

/** Runs `ethlogd args...` to completion and returns its exit code and output. */
export async function runCli(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = startCli(args);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
