/**
 * End-to-end HTTP figures against the real server (a child process) with autocannon: point
 * lookups against the bare uWebSockets.js ceiling, batches of 100, a 10,000-log answer, and
 * point-lookup latency while heavy eth_getLogs run.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import autocannon, { type Options } from 'autocannon';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { describeDataset } from '#src/synth/generator.js';
import { percentile } from './logQueries.js';
import type { ChartData, Row } from './report.js';

/** A child process serving HTTP. */
export interface Child {
  port: number;
  /** The process id (to read its memory). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `node args…` (under `taskset -c cpus` when given) and resolves once it prints a listening line with its port.
 */
export async function startChild(args: string[], cpus?: string): Promise<Child> {
  const argv = [process.execPath, ...args];
  const child: ChildProcess =
    cpus === undefined
      ? spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('taskset', ['-c', cpus, ...argv], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    lines.on('line', (line) => {
      const m = /listening on (?:http:\/\/[^:]+:)?(\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
  });
  child.removeAllListeners('exit');
  return {
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Uncompressed answers (node's fetch asks for gzip unless told): the figures measure the service, not zlib
 * (native-free-bench/compression.ts does).
 */
const JSON_HEADERS = { 'content-type': 'application/json', 'accept-encoding': 'identity' };

function rpc(method: string, params: unknown[], id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** Options of the HTTP measurements. */
export interface HttpBenchOptions {
  dataDir: string;
  seed: string;
  /** Seconds per autocannon run. */
  seconds: number;
  connections: number;
  /** Runs of each throughput figure; the median is reported. */
  runs: number;
}

/**
 * Milliseconds from sending `body` to `url` until the answer's last byte arrives (node:http; the bytes are counted, not
 * kept or decoded).
 */
function timeToLastByte(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { method: 'POST', headers: JSON_HEADERS }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(performance.now() - started));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Measures the HTTP figures; returns table rows and the throughput chart series. */
export async function measureHttp(o: HttpBenchOptions): Promise<{ rows: Row[]; throughput: ChartData['throughput'] }> {
  const store = openStore(o.dataDir);
  const key = createApiKey(store, 'bench');
  const reader = new StoreReader(store);
  const head = reader.meta()!.head;
  const hashes: string[] = [];
  for (let n = 0; hashes.length < 64 && n <= head; n += Math.max(1, Math.floor(head / 64))) {
    const h = reader.txHash(n, 0);
    if (h) hashes.push(bytesToHex(h));
  }
  const d = describeDataset({ blocks: head + 1, seed: o.seed, density: 1 });
  await closeStore(store);

  // The answer cache off: these rows repeat their calls, and measure answering them (the small-requests section
  // measures the cache).
  const ours = await startChild([
    'dist/src/cli.js',
    'serve',
    '--data',
    o.dataDir,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--access-log',
    'off',
    '--answer-cache-mb',
    '0',
  ]);
  const url = `http://127.0.0.1:${ours.port}/v3/${key}`;
  const post = async (body: string) => (await fetch(url, { method: 'POST', headers: JSON_HEADERS, body })).text();
  const median = async (run: () => Promise<number>) => {
    const values: number[] = [];
    for (let i = 0; i < o.runs; i++) values.push(await run());
    return percentile(values, 50);
  };
  const load = (options: Partial<Options>) =>
    autocannon({
      url,
      connections: o.connections,
      duration: o.seconds,
      method: 'POST',
      headers: JSON_HEADERS,
      ...options,
    });

  const rows: Row[] = [];
  try {
    const single = hashes.map((h, i) => ({ body: rpc('eth_getTransactionByHash', [h], i) }));
    const answerBytes = Buffer.byteLength(await post(single[0]!.body!));
    await load({ requests: single, duration: 1 });
    const singleRps = await median(async () => (await load({ requests: single })).requests.average);

    const bare = await startChild(['dist/native-free-bench/bareServer.js', String(answerBytes)]);
    let bareRps: number;
    try {
      const bareUrl = `http://127.0.0.1:${bare.port}/`;
      const bareLoad = () =>
        autocannon({
          url: bareUrl,
          connections: o.connections,
          duration: o.seconds,
          method: 'POST',
          headers: JSON_HEADERS,
          body: single[0]!.body,
        });
      await autocannon({
        url: bareUrl,
        connections: o.connections,
        duration: 1,
        method: 'POST',
        headers: JSON_HEADERS,
        body: single[0]!.body,
      });
      bareRps = await median(async () => (await bareLoad()).requests.average);
    } finally {
      await bare.stop();
    }
    rows.push({
      figure:
        `point lookups over HTTP (eth_getTransactionByHash, ${answerBytes} B ` +
        `answers, ${o.connections} keep-alive connections)`,
      ours: singleRps,
      unit: 'req/s',
      baseline: bareRps,
      baselineName: 'bare uWebSockets.js, constant body',
      target: { kind: 'min', value: 0.6, ofRatio: true, text: '≥ 60% of bare' },
    });

    const batch = JSON.stringify(
      hashes
        .concat(hashes)
        .slice(0, 100)
        .map((h, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getTransactionByHash', params: [h] })),
    );
    const batchCalls = (await median(async () => (await load({ body: batch })).requests.average)) * 100;
    rows.push({
      figure: 'batch of 100 point lookups (calls/s)',
      ours: batchCalls,
      unit: 'calls/s',
      baseline: singleRps,
      baselineName: 'single requests',
      target: { kind: 'min', value: 5, ofRatio: true, text: '≥ 5× single' },
    });

    const countFor = async (span: number) => {
      const body = rpc('eth_getLogs', [
        { fromBlock: quantityToHex(Math.max(0, head + 1 - span)), toBlock: quantityToHex(head) },
      ]);
      const parsed = JSON.parse(await post(body)) as { result?: unknown[] };
      return { body, count: parsed.result ? parsed.result.length : Number.POSITIVE_INFINITY };
    };
    let span = 1;
    let probe = await countFor(span);
    while (probe.count < 5_000 && span < head + 1) probe = await countFor((span = Math.min(head + 1, span * 2)));
    span = probe.count > 0 && Number.isFinite(probe.count) ? Math.floor((span * 9_900) / probe.count) : span;
    for (probe = await countFor(span); probe.count > 10_000; probe = await countFor(span))
      span = Math.floor(span * 0.95);
    const { body: logsBody, count } = probe;
    const times: number[] = [];
    const decoded: number[] = [];
    for (let i = 0; i < 15; i++) {
      times.push(await timeToLastByte(url, logsBody));
      const t = performance.now();
      await post(logsBody);
      decoded.push(performance.now() - t);
    }
    rows.push({
      figure:
        `a ${count}-log answer (every log of the last ${span} blocks: read, serialise, ` +
        "send), time to the last byte at one client, p50 (with the client's fetch + " +
        `UTF-8 decode: ${percentile(decoded, 50).toFixed(1)} ms)`,
      ours: percentile(times, 50),
      unit: 'ms',
      target: { kind: 'max', value: 15, text: '≤ 15 ms' },
      note:
        'over HTTP: from sending the request to receiving the last byte ' +
        'of the answer (node:http, bytes counted, not decoded)',
    });

    const transfer = bytesToHex(d.transferTopic);
    const heavyBody = rpc('eth_getLogs', [
      { fromBlock: '0x0', toBlock: 'latest', topics: [transfer, null, '0x' + 'ab'.repeat(32)] },
    ]);
    const quiet = await load({ requests: single, connections: 10 });
    let stop = false;
    let heavyDone = 0;
    const heavy = Array.from({ length: 4 }, async () => {
      while (!stop) {
        await post(heavyBody);
        heavyDone++;
      }
    });
    const busy = await load({ requests: single, connections: 10 });
    stop = true;
    await Promise.all(heavy);
    rows.push({
      figure: `point-lookup p99 while 4 heavy eth_getLogs run (${heavyDone} whole-range scans done meanwhile)`,
      ours: busy.latency.p99,
      unit: 'ms',
      baseline: quiet.latency.p99,
      baselineName: 'p99 with no heavy queries',
      target: { kind: 'max', value: 5, text: '≤ 5 ms' },
    });
    return {
      rows,
      throughput: [
        { name: 'bare uWS', rps: bareRps },
        { name: 'point lookup', rps: singleRps },
        { name: 'batch calls', rps: batchCalls },
      ],
    };
  } finally {
    await ours.stop();
  }
}
