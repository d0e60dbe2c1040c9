/**
 * `ethlogd loadtest`: replays a workload corpus (ethlogd workload) against a JSON-RPC URL over
 * keep-alive connections for a duration (src/workload/loadClient.ts), with a progress line on
 * stderr and req/s, latency percentiles and errors by shape on stdout.
 */
import { readFile } from 'node:fs/promises';
import { formatSummary, runLoad } from '../workload/loadClient.js';
import { MixError, parseCorpus } from '../workload/mixes.js';
import { integer, parse, positive, required, UsageError } from './args.js';

/** Default connections: a few indexers' worth, enough to keep a server core busy. */
const DEFAULT_CONNECTIONS = 16;
/** Most connections: far beyond what one Node client drives usefully, a bound on a typo. */
const MAX_CONNECTIONS = 10_000;
/** Default seconds of load. */
const DEFAULT_DURATION_S = 10;
/** Default milliseconds a request may take before it counts as a socket error: beyond eth_getLogs's 10 s deadline. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Exit code when some request failed: the run finished, but the server did not answer everything. */
const EXIT_ERRORS = 3;

/** Usage text of `loadtest`. */
export const LOADTEST_USAGE = `Usage: ethlogd loadtest --url URL --workload FILE [--connections C] [--duration D]
                        [--timeout-ms MS]

Sends the requests of FILE (written by ethlogd workload) to URL, in order and cycling, over C
keep-alive HTTP connections for D seconds, each connection sending its next request when the
previous one is answered. A progress line goes to stderr every second; at the end stdout gets the
requests per second, latency p50/p99/p99.9 and the errors (JSON-RPC errors, HTTP statuses other
than 200, requests with no answer) by shape, with the first error of each shape. This client
takes a core of its own at a few thousand requests a second: for more, run wrk with the .lua file
workload wrote (docs/load-testing.md).

Options:
  --url URL          JSON-RPC endpoint, e.g. http://127.0.0.1:8545/v3/KEY     required
  --workload FILE    corpus written by ethlogd workload                       required
  --connections C    keep-alive connections                                   default ${DEFAULT_CONNECTIONS}
  --duration D       seconds of load                                          default ${DEFAULT_DURATION_S}
  --timeout-ms MS    a request unanswered after MS counts as a socket error   default ${DEFAULT_TIMEOUT_MS}
  -h, --help         this text

Exit codes: 0 every request answered without error; ${EXIT_ERRORS} some failed (the summary says which);
1 the run could not start (e.g. an unreadable file); 2 a usage error.`;

/** Runs `loadtest`. */
export async function loadtestCommand(argv: string[]): Promise<number> {
  const text = { type: 'string' } as const;
  const { values } = parse(argv, { url: text, workload: text, connections: text, duration: text, 'timeout-ms': text });
  if (values.help) {
    console.log(LOADTEST_USAGE);
    return 0;
  }
  const url = required(values.url, 'url');
  if (!/^https?:\/\/./.test(url) || !URL.canParse(url)) {
    throw new UsageError('--url must be an http:// or https:// URL');
  }
  const file = required(values.workload, 'workload');
  const connections = integer(values.connections, 'connections', DEFAULT_CONNECTIONS, 1, MAX_CONNECTIONS);
  const seconds = positive(values.duration, 'duration', DEFAULT_DURATION_S);
  const timeoutMs = integer(values['timeout-ms'], 'timeout-ms', DEFAULT_TIMEOUT_MS, 1);
  let requests;
  try {
    requests = parseCorpus(await readFile(file, 'utf8'), file);
  } catch (error) {
    if (error instanceof MixError) throw new UsageError(error.message);
    throw new Error(`cannot read the workload ${file}: ${(error as Error).message}`);
  }

  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  const tty = process.stderr.isTTY === true;
  let summary;
  try {
    summary = await runLoad({
      url,
      requests,
      connections,
      durationMs: seconds * 1000,
      timeoutMs,
      signal: controller.signal,
      onProgress: (p) => {
        const rate = (p.requests / p.seconds).toFixed(0);
        const line =
          `${Math.min(p.seconds, seconds).toFixed(0)}/${seconds} s: ` +
          `${p.requests} requests, ${rate} req/s, ${p.errors} errors`;
        process.stderr.write(tty ? `\r${line}\u001b[K` : `${line}\n`);
      },
    });
  } finally {
    process.off('SIGINT', stop);
    if (tty) process.stderr.write('\n');
  }
  console.log(formatSummary(summary, connections));
  return summary.errors > 0 ? EXIT_ERRORS : 0;
}
