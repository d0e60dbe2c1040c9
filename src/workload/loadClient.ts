/**
 * The load client of `ethlogd loadtest`: a corpus replayed over N keep-alive HTTP connections for
 * a duration, each connection sending its next request as soon as the previous one is answered
 * (closed loop, as wrk does), with latency percentiles and errors by shape. Node's own client is
 * slower than wrk: on the server's machine it takes CPU the server would use (docs/load-testing.md).
 */
import http from 'node:http';
import https from 'node:https';
import type { WorkloadRequest } from './mixes.js';
import { SHAPES } from './shapes.js';

/** Latency buckets grow by 1%: percentiles to within 1%, in a fixed, small table whatever the run's length. */
const BUCKET_GROWTH = 1.01;
/** Buckets from 1 µs up to BUCKET_GROWTH^BUCKETS µs (about 14 minutes): beyond any request's latency. */
const BUCKETS = 2100;

/** Latencies in buckets of 1% width. */
export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  total = 0;

  /** Counts one latency of `ms` milliseconds. */
  add(ms: number): void {
    const us = Math.max(1, ms * 1000);
    this.counts[Math.min(BUCKETS - 1, Math.ceil(Math.log(us) / Math.log(BUCKET_GROWTH)))]!++;
    this.total++;
  }

  /**
   * The latency in ms at or under which `p` percent of the counted ones were (the bucket's upper
   * edge); 0 when none was counted.
   */
  percentile(p: number): number {
    if (this.total === 0) return 0;
    const rank = Math.ceil((p / 100) * this.total);
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= rank) return BUCKET_GROWTH ** b / 1000;
    }
    return BUCKET_GROWTH ** (BUCKETS - 1) / 1000;
  }
}

/** What went wrong with requests of one shape. */
export interface ShapeCounts {
  requests: number;
  /** Answers carrying a JSON-RPC error (for a batch: answers with at least one). */
  rpcErrors: number;
  /** Answers with an HTTP status other than 200. */
  httpErrors: number;
  /** Requests that got no answer (connection refused, reset, timed out). */
  socketErrors: number;
  /** The first error seen, for the report. */
  example?: string;
  latency: LatencyHistogram;
}

/** A run's progress, reported about once a second and once at the end. */
export interface Progress {
  seconds: number;
  requests: number;
  errors: number;
}

/** A finished run. */
export interface LoadSummary {
  seconds: number;
  requests: number;
  errors: number;
  latency: LatencyHistogram;
  byShape: Map<string, ShapeCounts>;
}

/** How to run a load. */
export interface LoadOptions {
  url: string;
  requests: WorkloadRequest[];
  connections: number;
  durationMs: number;
  /** Milliseconds a request may take before it counts as a socket error. */
  timeoutMs: number;
  onProgress?: (progress: Progress) => void;
  /** Aborting ends the run early (requests in flight are awaited). */
  signal?: AbortSignal;
}

/** How often onProgress is called. */
const PROGRESS_MS = 1000;

/** Marks a JSON-RPC error in an answer as ethlogd and other servers write it (compact JSON). */
const ERROR_MARK = '"error":{';

/** One POST: resolves with the status and body, or rejects on a socket error or the timeout. */
function post(url: URL, agent: http.Agent, body: Buffer, timeoutMs: number): Promise<{ status: number; text: string }> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': body.length };
    const req = send(url, { method: 'POST', agent, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Replays `options.requests` in order, cycling, over the connections for the duration. */
export async function runLoad(options: LoadOptions): Promise<LoadSummary> {
  const url = new URL(options.url);
  const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const bodies = options.requests.map((r) => Buffer.from(JSON.stringify(r.body)));
  const byShape = new Map<string, ShapeCounts>();
  // Known shapes in their listed order, then any other name the corpus uses.
  for (const r of [...SHAPES.map((s) => ({ shape: s.name })), ...options.requests]) {
    if (byShape.has(r.shape)) continue;
    byShape.set(r.shape, {
      requests: 0,
      rpcErrors: 0,
      httpErrors: 0,
      socketErrors: 0,
      latency: new LatencyHistogram(),
    });
  }
  const latency = new LatencyHistogram();
  const started = performance.now();
  const end = started + options.durationMs;
  let next = 0;
  let requests = 0;
  let errors = 0;
  const report = () => options.onProgress?.({ seconds: (performance.now() - started) / 1000, requests, errors });
  const progress = setInterval(report, PROGRESS_MS);

  const loop = async () => {
    while (performance.now() < end && options.signal?.aborted !== true) {
      const at = next;
      next = (next + 1) % bodies.length;
      const counts = byShape.get(options.requests[at]!.shape)!;
      const sent = performance.now();
      let failure: string | undefined;
      try {
        const { status, text } = await post(url, agent, bodies[at]!, options.timeoutMs);
        if (status !== 200) {
          counts.httpErrors++;
          failure = `HTTP ${status}: ${text.slice(0, 200)}`;
        } else if (text.includes(ERROR_MARK)) {
          counts.rpcErrors++;
          failure = text.slice(text.indexOf(ERROR_MARK), text.indexOf(ERROR_MARK) + 200);
        }
      } catch (error) {
        counts.socketErrors++;
        failure = (error as Error).message;
      }
      const ms = performance.now() - sent;
      counts.requests++;
      counts.latency.add(ms);
      latency.add(ms);
      requests++;
      if (failure !== undefined) {
        errors++;
        counts.example ??= failure;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, loop));
  } finally {
    clearInterval(progress);
    agent.destroy();
  }
  // The last line always comes, however the interval and the duration's end fall.
  report();
  return { seconds: (performance.now() - started) / 1000, requests, errors, latency, byShape };
}

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** The summary as the loadtest command prints it: totals, then one row per shape. */
export function formatSummary(s: LoadSummary, connections: number): string {
  const percentiles = (h: LatencyHistogram) => [50, 99, 99.9].map((p) => ms(h.percentile(p)));
  const [p50, p99, p999] = percentiles(s.latency);
  const lines = [
    `${s.requests} requests in ${s.seconds.toFixed(1)} s over ${connections} connections: ` +
      `${(s.requests / s.seconds).toFixed(0)} req/s, ` +
      `latency p50 ${p50} / p99 ${p99} / p99.9 ${p999} ms, ${s.errors} errors`,
    '',
    '| shape | requests | req/s | p50 ms | p99 ms | p99.9 ms | JSON-RPC errors | HTTP errors | socket errors |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [shape, c] of s.byShape) {
    if (c.requests === 0) continue;
    lines.push(
      `| ${shape} | ${c.requests} | ${(c.requests / s.seconds).toFixed(0)} | ${percentiles(c.latency).join(' | ')} | ` +
        `${c.rpcErrors} | ${c.httpErrors} | ${c.socketErrors} |`,
    );
  }
  const examples = [...s.byShape].flatMap(([shape, c]) =>
    c.example === undefined ? [] : [`  ${shape}: ${c.example}`],
  );
  if (examples.length > 0) lines.push('', 'First error of each shape that had one:', ...examples);
  return lines.join('\n');
}
