/**
 * Load generation that does not take the server's CPU: wrk (Debian's `wrk`) pinned to one core with
 * the server, all its threads, pinned to another, and the server's CPU time per request from
 * /proc/PID/stat (utime + stime, every thread); autocannon in this process when wrk is missing.
 * Shared by the small-requests, mainnet-traffic and cluster sections.
 */

import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { startChild } from './http.js';

/** The CPU the load generator runs on, and the one every server runs on. */
export const GENERATOR_CPU = '0';
export const SERVER_CPU = '1';
const execFileAsync = promisify(execFile);
/** Clock ticks per second of /proc/PID/stat's utime and stime. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** What one load run measured on one server. */
export interface Load {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** The p99.9 latency (wrk: the script's done(), wrkScript). */
  p999Ms: number;
  /** Server CPU time per answered request, µs (every process measured, summed). */
  cpuUs: number;
  /** The same, per process measured, in the order given. */
  cpuUsBy: number[];
  /** Socket errors, timeouts and non-2xx answers. */
  bad: number;
  /**
   * The largest share of the measured time any thread of the first process spent runnable but waiting for a core (wrk
   * only; 0 with autocannon).
   */
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

/** The CPUs process `pid` may run on, as a taskset list (to pin it back after pinning it elsewhere). */
export function affinity(pid: number): string {
  const out = execFileSync('taskset', ['-pc', String(pid)]).toString();
  const list = /affinity list:\s*(\S+)/.exec(out)?.[1];
  if (list === undefined) throw new Error(`taskset -pc ${pid}: ${out}`);
  return list;
}

/** The fields of /proc/PID/stat after "pid (comm) " (the command may hold spaces), from the state on. */
function statFields(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

/** CPU seconds (user + system, all threads) process `pid` has used. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The major page faults (pages read from disk) process `pid` has taken, every thread: the 10th field. */
export function majorFaults(pid: number): number {
  return Number(statFields(pid)[9]);
}

/**
 * Nanoseconds each thread of process `pid` has spent runnable but waiting for a core (the second field of
 * /proc/PID/task/TID/schedstat), by thread id; a thread gone meanwhile is left out.
 */
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

/**
 * Spawns node with `args` (under `taskset -c cpus` when given), waits for it to listen, and names its URL with `path`.
 */
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

/** The line the script's done() prints the p99.9 latency on. */
const P999_LINE = 'Latency p99.9:';
/** The line the script's done() prints the answers it found wrong on (wrkScript's `check`). */
const FAILED_LINE = 'Failed answers:';
/**
 * The line the script prints when it has stopped after `stopAfter` answers: wrk's main thread sleeps out its -d
 * whatever its threads do, so runWrkPass interrupts it (SIGINT: wrk reports what it measured and exits).
 */
const STOPPED_LINE = 'Stopped after the last answer';

/** What a wrkScript does besides cycling its bodies. */
export interface WrkScriptOptions {
  /** Stops wrk after this many answers (with -c1: this many requests, each body once per pass). */
  stopAfter?: number;
  /**
   * Counts the answers that are not a 200 with a result (a JSON-RPC error, or a null result: a lookup that found
   * nothing), printed on FAILED_LINE; wrk itself sees only the status.
   */
  check?: boolean;
}

/** The Lua that counts answers and wrong ones, and stops after `stopAfter` (0: never); globals read in done(). */
function answerHook(stopAfter: number): string {
  return `answered = 0
failed = 0
response = function(status, headers, body)
  answered = answered + 1
  if status ~= 200 or not body:find('"result":', 1, true) or body:find('"result":null', 1, true) then
    failed = failed + 1
  end
  if ${stopAfter} > 0 and answered == ${stopAfter} then
    wrk.thread:stop()
    io.write("${STOPPED_LINE}\\n")
    io.flush()
  end
end
`;
}

/**
 * A wrk Lua script that POSTs `bodies` in turn, to each of `paths` in turn when given (else to the
 * URL's path), and prints the p99.9 latency when done (wrk's --latency stops at p99). The bodies sit
 * in a file of their own, one a line, read when the script loads: a table of string literals stops
 * compiling past LuaJIT's constants per function, and the mainnet-traffic section cycles more bodies.
 * With `options`, it checks the answers and may stop after a number of them (a response() hook costs
 * wrk a parse of each answer, so loads without it stay as they are).
 */
export function wrkScript(bodies: string[], paths?: string[], options: WrkScriptOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-wrk-'));
  const bodyFile = join(dir, 'bodies.txt');
  if (bodies.some((b) => b.includes('\n')))
    throw new Error('wrkScript: a body holds a newline (the body file keeps one a line)');
  writeFileSync(bodyFile, bodies.map((b) => `${b}\n`).join(''));
  const quotedPaths = (paths ?? []).map((p) => `[==[${p}]==]`).join(',\n');
  const hooked = options.check === true || options.stopAfter !== undefined;
  const path = join(dir, 'post.lua');
  writeFileSync(
    path,
    `local bodies = {}
for line in io.lines([==[${bodyFile}]==]) do bodies[#bodies + 1] = line end
local paths = {${quotedPaths}}
local i = 0
local j = 0
local threads = {}
setup = function(thread) threads[#threads + 1] = thread end
request = function()
  i = i % #bodies + 1
  if i == 1 and #paths > 0 then j = j % #paths + 1 end
  return wrk.format("POST", paths[j], { ["Content-Type"] = "application/json" }, bodies[i])
end
${hooked ? answerHook(options.stopAfter ?? 0) : ''}done = function(summary, latency, requests)
  io.write(string.format("${P999_LINE} %.0fus\\n", latency:percentile(99.9)))
  local failed = 0
  for _, thread in ipairs(threads) do failed = failed + (thread:get("failed") or 0) end
  io.write(string.format("${FAILED_LINE} %d\\n", failed))
end
`,
  );
  return path;
}

/** The command and arguments of wrk -t1 against `url` for `seconds` (on GENERATOR_CPU when `pinned`) with `script`. */
function wrkCommand(
  url: string,
  script: string,
  seconds: number,
  connections: number,
  pinned: boolean,
): [string, string[]] {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url];
  return pinned ? ['taskset', ['-c', GENERATOR_CPU, 'wrk', ...args]] : ['wrk', args];
}

/** Runs wrk against `url` for `seconds` (on GENERATOR_CPU when `pinned`) with `script`; resolves to its report. */
export async function runWrk(
  url: string,
  script: string,
  seconds: number,
  connections: number,
  pinned: boolean,
): Promise<string> {
  const [command, argv] = wrkCommand(url, script, seconds, connections, pinned);
  try {
    return (await execFileAsync(command, argv)).stdout;
  } catch (error) {
    throw new Error(`wrk failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  }
}

/**
 * Runs wrk -t1 -c1 against `url` on GENERATOR_CPU with `script`, a wrkScript with `stopAfter`, until the script has
 * its last answer (at most `limitSeconds`); resolves to wrk's report.
 */
export function runWrkPass(url: string, script: string, limitSeconds: number): Promise<string> {
  const [command, argv] = wrkCommand(url, script, limitSeconds, 1, true);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(STOPPED_LINE)) child.kill('SIGINT');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${err}`))));
  });
}

/** The figures of a wrk report (runWrk's output); `bad` counts the script's failed answers too. */
export function parseWrk(out: string): {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  requests: number;
  bad: number;
} {
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50Ms: wrkMs(/ 50%\s+(\S+)/.exec(out)![1]!),
    p99Ms: wrkMs(/ 99%\s+(\S+)/.exec(out)![1]!),
    p999Ms: wrkMs(new RegExp(`${P999_LINE} (\\S+)`).exec(out)![1]!),
    requests: Number(/(\d+) requests in/.exec(out)![1]),
    bad:
      non2xx +
      Number(new RegExp(`${FAILED_LINE} (\\d+)`).exec(out)?.[1] ?? 0) +
      (errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

/** One wrk process of a load: the bodies it cycles (to each of `paths` in turn, when given) over its connections. */
export interface LoadPart {
  bodies: string[];
  connections: number;
  paths?: string[];
}

/**
 * Runs one wrk process per part against `url` at once, for a second of warm-up and then `seconds`
 * measured (on GENERATOR_CPU when `pinned`), measuring the CPU time of `pids`. Each part's Load has
 * its own req/s and latencies; the CPU per request is the servers' time over every part's requests.
 */
export async function loadTogether(
  url: string,
  pids: number[],
  parts: LoadPart[],
  seconds: number,
  pinned: boolean,
): Promise<Load[]> {
  const scripts = parts.map((p) => wrkScript(p.bodies, p.paths));
  try {
    const runAll = (s: number) => Promise.all(parts.map((p, k) => runWrk(url, scripts[k]!, s, p.connections, pinned)));
    await runAll(1);
    const cpu0 = pids.map(cpuSeconds);
    const waits0 = runQueueWaits(pids[0]!);
    const reports = (await runAll(seconds)).map(parseWrk);
    const waitShare = largestWaitShare(waits0, runQueueWaits(pids[0]!), seconds);
    const requests = reports.reduce((sum, r) => sum + r.requests, 0);
    const cpu = cpuFigures(perRequest(pids, cpu0, requests));
    return reports.map(({ rps, p50Ms, p99Ms, p999Ms, bad }) => ({ rps, p50Ms, p99Ms, p999Ms, ...cpu, bad, waitShare }));
  } finally {
    for (const script of scripts) rmSync(join(script, '..'), { recursive: true, force: true });
  }
}

/** Server CPU µs per request of each of `pids` since the readings `before` (cpuSeconds), over `requests` answered. */
function perRequest(pids: number[], before: number[], requests: number): number[] {
  return pids.map((pid, i) => ((cpuSeconds(pid) - before[i]!) * 1e6) / Math.max(1, requests));
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
export async function load(
  url: string,
  pids: number[],
  bodies: string[],
  run: LoadRun,
  wrk: boolean,
  pinned: boolean,
  paths?: string[],
): Promise<Load> {
  if (wrk)
    return (await loadTogether(url, pids, [{ bodies, connections: run.connections, paths }], run.seconds, pinned))[0]!;
  const requests = (paths ?? [undefined]).flatMap((path) => bodies.map((body) => ({ path, body })));
  const options = {
    url,
    connections: run.connections,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    requests,
  };
  await autocannon({ ...options, duration: 1 });
  const cpu0 = pids.map(cpuSeconds);
  const r = await autocannon({ ...options, duration: run.seconds });
  return {
    rps: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    p999Ms: r.latency.p99_9,
    ...cpuFigures(perRequest(pids, cpu0, r.requests.total)),
    bad: r.errors + r.timeouts + r.non2xx,
    waitShare: 0,
  };
}
