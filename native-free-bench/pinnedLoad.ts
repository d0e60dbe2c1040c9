/**
 * Load generation that does not take the server's CPU: wrk (Debian's `wrk`) pinned to one core with
 * the server, all its threads, pinned to another, and the server's CPU time per request from
 * /proc/PID/stat (utime + stime, every thread); autocannon in this process when wrk is missing.
 * Shared by the small-requests and cluster sections.
 */
import autocannon from 'autocannon';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './http.js';

/** The CPU the load generator runs on, and the one every server runs on. */
export const GENERATOR_CPU = '0';
export const SERVER_CPU = '1';
/** Clock ticks per second of /proc/PID/stat's utime and stime. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** What one load run measured on one server. */
export interface Load {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time per answered request, µs (every process measured, summed). */
  cpuUs: number;
  /** The same, per process measured, in the order given. */
  cpuUsBy: number[];
  /** Socket errors, timeouts and non-2xx answers. */
  bad: number;
  /** The largest share of the measured time any thread of the first process spent runnable but waiting for a core (wrk only; 0 with autocannon). */
  waitShare: number;
}

/** The CPU figures of a load from the per-process µs per request. */
function cpuFigures(cpuUsBy: number[]): { cpuUs: number; cpuUsBy: number[] } {
  return { cpuUs: cpuUsBy.reduce((sum, us) => sum + us, 0), cpuUsBy };
}

/** Whether Debian's wrk is on the PATH. */
export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** Pins every thread of process `pid` to `cpus` (a taskset list, e.g. "1" or "0,1"). */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-cp', cpus, String(pid)], { stdio: 'ignore' });
}

/** CPU seconds (user + system, all threads) process `pid` has used. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Nanoseconds each thread of process `pid` has spent runnable but waiting for a core (the second field of /proc/PID/task/TID/schedstat), by thread id; a thread gone meanwhile is left out. */
function runQueueWaits(pid: number): Map<string, number> {
  const waits = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      waits.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return waits;
}

/** The largest share of `seconds` any thread waited for a core between the two readings of runQueueWaits. */
function largestWaitShare(before: Map<string, number>, after: Map<string, number>, seconds: number): number {
  let most = 0;
  for (const [tid, ns] of after) most = Math.max(most, (ns - (before.get(tid) ?? ns)) / (seconds * 1e9));
  return most;
}

/** A server child process and the port it listens on. */
export interface Server {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Spawns node with `args` (under `taskset -c cpus` when given), waits for it to listen, and names its URL with `path`. */
export async function startPinned(args: string[], cpus: string | undefined, path: string): Promise<Server> {
  const child = await startChild(args, cpus);
  return { pid: child.pid, url: `http://127.0.0.1:${child.port}${path}`, stop: child.stop };
}

/** Milliseconds in a wrk latency figure ("812.00us", "3.41ms", "1.02s"). */
export function wrkMs(figure: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(figure);
  if (!m) throw new Error(`wrk latency: ${figure}`);
  return Number(m[1]) * { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2] as 'us' | 'ms' | 's' | 'm'];
}

/** A wrk Lua script that POSTs `bodies` in turn, to each of `paths` in turn when given (else to the URL's path). */
export function wrkScript(bodies: string[], paths?: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ethlogd-wrk-')), 'post.lua');
  const quoted = bodies.map((b) => `[==[${b}]==]`).join(',\n');
  const quotedPaths = (paths ?? []).map((p) => `[==[${p}]==]`).join(',\n');
  writeFileSync(
    path,
    `local bodies = {${quoted}}
local paths = {${quotedPaths}}
local i = 0
local j = 0
request = function()
  i = i % #bodies + 1
  if i == 1 and #paths > 0 then j = j % #paths + 1 end
  return wrk.format("POST", paths[j], { ["Content-Type"] = "application/json" }, bodies[i])
end
`,
  );
  return path;
}

/** Runs wrk against `url` for `seconds` (on GENERATOR_CPU when `pinned`) with `script`; returns its report. */
export function runWrk(url: string, script: string, seconds: number, connections: number, pinned: boolean): string {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url];
  const r = pinned ? spawnSync('taskset', ['-c', GENERATOR_CPU, 'wrk', ...args]) : spawnSync('wrk', args);
  if (r.status !== 0) throw new Error(`wrk failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** How long and how wide a load runs. */
export interface LoadRun {
  /** Seconds measured (after one second of warm-up). */
  seconds: number;
  connections: number;
}

/**
 * Loads `url` with `bodies` (to each of `paths` on its origin in turn, when given) for `run.seconds`
 * after a second of warm-up, measuring the CPU time of `pids` (the server, and whatever else serves
 * the requests); wrk when `wrk`, else autocannon in this process.
 */
export async function load(url: string, pids: number[], bodies: string[], run: LoadRun, wrk: boolean, pinned: boolean, paths?: string[]): Promise<Load> {
  const cpu = () => pids.map(cpuSeconds);
  const perRequest = (before: number[], requests: number) => cpu().map((after, i) => ((after - before[i]!) * 1e6) / Math.max(1, requests));
  if (wrk) {
    const script = wrkScript(bodies, paths);
    try {
      runWrk(url, script, 1, run.connections, pinned);
      const cpu0 = cpu();
      const waits0 = runQueueWaits(pids[0]!);
      const out = runWrk(url, script, run.seconds, run.connections, pinned);
      const waitShare = largestWaitShare(waits0, runQueueWaits(pids[0]!), run.seconds);
      const requests = Number(/(\d+) requests in/.exec(out)![1]);
      const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      return {
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
        p50Ms: wrkMs(/ 50%\s+(\S+)/.exec(out)![1]!),
        p99Ms: wrkMs(/ 99%\s+(\S+)/.exec(out)![1]!),
        ...cpuFigures(perRequest(cpu0, requests)),
        bad: non2xx + (errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
        waitShare,
      };
    } finally {
      rmSync(join(script, '..'), { recursive: true, force: true });
    }
  }
  const requests = (paths ?? [undefined]).flatMap((path) => bodies.map((body) => ({ path, body })));
  const options = { url, connections: run.connections, method: 'POST' as const, headers: { 'content-type': 'application/json' }, requests };
  await autocannon({ ...options, duration: 1 });
  const cpu0 = cpu();
  const r = await autocannon({ ...options, duration: run.seconds });
  return { rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, ...cpuFigures(perRequest(cpu0, r.requests.total)), bad: r.errors + r.timeouts + r.non2xx, waitShare: 0 };
}
