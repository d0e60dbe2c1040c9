/**
 * `make bench-hostile`: the attacks of the hostile-clients issue against one `ethlogd serve` child
 * with default options on a generated mainnet-density store (600 blocks), each for a fixed time,
 * while a probe (another API key, in a worker thread of its own) sends a small call every 20 ms.
 * Per attack: the probe's p50 / p99 / max and errors, the child's peak RSS (VmRSS read from /proc
 * every 100 ms), what the attacker got, and whether the server stayed up; then a verdict against
 * the bounds (probe p50 ≤ 100 ms, max ≤ 1 s, RSS ≤ 2 GiB, server up).
 *
 *   node dist/native-free-bench/hostile.js [--data data/bench-traffic] [--seconds 12] [--only 1,4,8]
 *
 * The cached store is copied to a temporary directory first: the run adds API keys and, for the
 * fan-out attack, appends blocks to the copy (as `ingest --follow` would, from this process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import * as grpc from '@grpc/grpc-js';
import WebSocket from 'ws';
import { loadDefinition, SERVICE_NAME } from '#src/grpc/definition.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { nextBlocks } from '../test/support/chainGrowth.js';
import { ensureDataset } from './dataset.js';

const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;

/** The issue's bounds for another key's small calls and the server's memory. */
const BOUND_P50_MS = 100;
const BOUND_MAX_MS = 1000;
const BOUND_RSS_BYTES = 2 * 1024 ** 3;
/** How often the probe sends a call, and how often the child's RSS is read. */
const PROBE_EVERY_MS = 20;
const RSS_EVERY_MS = 100;
/** A probe call not answered within this counts as an error (and its latency as this). */
const PROBE_TIMEOUT_MS = 10_000;

/** The store the benchmark serves (the mainnet-traffic bench's, shared with it). */
const DATASET = { blocks: 600, density: 1, seed: 'traffic' };

type Counts = Record<string, number>;
type Posted = { got: string; answer?: unknown };
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** Closes the attacker's sockets itself: their close is not counted as the server's answer. */
function hangUp(sockets: WebSocket[]): void {
  for (const ws of sockets) {
    (ws as WebSocket & { ours?: boolean }).ours = true;
    ws.terminate();
  }
}
const bump = (c: Counts, k: string, n = 1) => void (c[k] = (c[k] ?? 0) + n);

interface Target {
  url: string;
  ws: string;
  grpc: string;
  port: number;
  head: number;
  /** A log of the head block: its address and first topic make a small filter. */
  address: string;
  topic: string;
  probeKey: string;
  keys: string[];
  pid: number;
}

// ---------------------------------------------------------------- the probe (a worker thread)

interface ProbeResult {
  latencies: number[];
  errors: Counts;
}

/** Sends one small call every PROBE_EVERY_MS until told to stop; posts latencies and errors. */
async function probe(t: Target): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const calls = [
    { method: 'eth_blockNumber', params: [] },
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
    {
      method: 'eth_getLogs',
      params: [{ fromBlock: 'latest', toBlock: 'latest', address: t.address, topics: [t.topic] }],
    },
  ];
  let result: ProbeResult = { latencies: [], errors: {} };
  let running = true;
  parentPort!.on('message', (m: string) => {
    if (m === 'take') {
      parentPort!.postMessage(result);
      result = { latencies: [], errors: {} };
    } else if (m === 'stop') running = false;
  });
  let i = 0;
  const one = (call: (typeof calls)[number]) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const done = (error?: string) => {
        result.latencies.push(performance.now() - started);
        if (error) bump(result.errors, error);
        resolve();
      };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, ...call });
      const options = { method: 'POST', agent, headers: JSON_HEADERS, timeout: PROBE_TIMEOUT_MS };
      const req = request(`${t.url}/v3/${t.probeKey}`, options, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          if (res.statusCode !== 200) return done(`HTTP ${res.statusCode}`);
          try {
            const answer = JSON.parse(text) as { error?: { code: number } };
            done(answer.error ? `${call.method} ${answer.error.code}` : undefined);
          } catch {
            done('unparsable answer');
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => {
        const code = (e as NodeJS.ErrnoException).code ?? e.message;
        done(e.message === 'timeout' ? `no answer in ${PROBE_TIMEOUT_MS} ms` : code);
      });
      req.end(body);
    });
  while (running) {
    void one(calls[i++ % calls.length]!);
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  agent.destroy();
}

if (!isMainThread && (workerData as { probe?: Target })?.probe) void probe((workerData as { probe: Target }).probe);

// ---------------------------------------------------------------- the server and /proc

async function serve(data: string): Promise<{ child: ChildProcess; url: string; grpc: string }> {
  const args = [CLI, 'serve', '--data', data, '--port', '0', '--grpc-port', '0', '--access-log', 'off'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (d) => {
    const text = String(d);
    if (/FATAL|heap limit|Uncaught|uncaught/i.test(text)) process.stderr.write(`serve: ${text}`);
  });
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    const m = /grpc listening on (\S+)/.exec(out);
    const u = /^listening on (\S+)/m.exec(out);
    if (m && u) {
      child.stdout!.resume();
      return { child, url: u[1]!, grpc: m[1]! };
    }
  }
  throw new Error(`serve exited before listening: ${out}`);
}

/** The child's resident set in bytes now, or undefined once it is gone. */
function rss(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The child's CPU time so far (user + system) in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function alive(t: Target): Promise<boolean> {
  try {
    const res = await fetch(`${t.url}/health`, { signal: AbortSignal.timeout(5000) });
    return res.ok;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- attacker helpers

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number, bytes: number) => '0x' + n.toString(16).padStart(bytes * 2, '0');

/** The issue's big filter: 2,500 addresses and 2,500 topics (5,000 parameters, ~278 KB). */
function bigFilter(seed: number): { address: string[]; topics: string[][] } {
  return {
    address: Array.from({ length: 2500 }, (_, i) => hex(seed * 1e6 + i, 20)),
    topics: [Array.from({ length: 2500 }, (_, i) => hex(seed * 1e6 + i, 32))],
  };
}

/** One JSON-RPC POST; resolves with what the attacker got ("HTTP 429 -32005", "ECONNRESET", …) and the answer. */
function post(url: string, body: string | Buffer, agent: Agent | false, timeoutMs = 60_000): Promise<Posted> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: JSON_HEADERS, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', () => resolve({ got: `HTTP ${res.statusCode} cut` }));
      res.on('end', () => {
        let answer: any;
        try {
          answer = JSON.parse(Buffer.concat(chunks).toString());
        } catch {
          return resolve({ got: `HTTP ${res.statusCode} (not JSON)` });
        }
        const items: any[] = Array.isArray(answer) ? answer : [answer];
        const codes = items.map((a) => (a?.error ? String(a.error.code) : 'ok'));
        resolve({ got: `HTTP ${res.statusCode} ${[...new Set(codes)].join('/')}`, answer });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ got: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(body);
  });
}

/** Runs `lanes` loops of `body` until `until`. */
async function lanes(n: number, until: number, body: (lane: number) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async (_, lane) => {
      while (Date.now() < until) await body(lane);
    }),
  );
}

interface AttackOutcome {
  got: Counts;
  note?: string;
}

type StreamClient = { StreamLogs(r: object, m: grpc.Metadata): grpc.ClientReadableStream<Buffer> };

type Attack = (t: Target, ms: number) => Promise<AttackOutcome>;

// ---------------------------------------------------------------- the attacks

/** 1. eth_newFilter with 2,500 addresses + 2,500 topics from 4 keys in a loop; the filters are removed after. */
const filters: Attack = async (t, ms) => {
  const got: Counts = {};
  const until = Date.now() + ms;
  const installed: [string, string][] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  await lanes(8, until, async (lane) => {
    const key = t.keys[lane % 4]!;
    const params = [bigFilter(lane * 1000 + installed.length)];
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_newFilter', params });
    const r = await post(`${t.url}/v3/${key}`, body, agent);
    bump(got, r.got);
    const id = (r.answer as { result?: string })?.result;
    if (id) installed.push([key, id]);
    if (!id) await sleep(50);
  });
  for (const [key, id] of installed) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_uninstallFilter', params: [id] });
    await post(`${t.url}/v3/${key}`, body, agent);
  }
  agent.destroy();
  return { got, note: `${installed.length} filters installed` };
};

/** A WebSocket that counts what it is answered; resolves once open (or with the refusal). */
function socket(url: string, got: Counts): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 });
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { error?: { code: number }; result?: unknown; method?: string };
      if (m.method === 'eth_subscription') bump(got, 'notification');
      else bump(got, m.error ? `error ${m.error.code}` : 'subscribed');
    });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      bump(got, `upgrade HTTP ${res.statusCode}`);
      resolve(undefined);
    });
    ws.once('error', (e) => {
      bump(got, `socket ${(e as NodeJS.ErrnoException).code ?? e.message}`);
      resolve(undefined);
    });
    ws.once('close', (code) => {
      if (!(ws as WebSocket & { ours?: boolean }).ours) bump(got, `close ${code}`);
    });
  });
}

/** 2. WebSocket subscriptions with the big filter: sockets of 128 each from 4 keys, opened until the time is up. */
const subscriptions: Attack = async (t, ms) => {
  const got: Counts = {};
  const until = Date.now() + ms;
  const sockets: WebSocket[] = [];
  let subscribeSent = 0;
  await lanes(4, until, async (lane) => {
    const ws = await socket(`${t.ws}/ws/v3/${t.keys[lane]}`, got);
    if (!ws) {
      await sleep(100);
      return;
    }
    sockets.push(ws);
    for (let i = 0; i < 128 && Date.now() < until; i++) {
      const params = ['logs', bigFilter(sockets.length * 1000 + i)];
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params }));
      subscribeSent++;
      if (ws.bufferedAmount < 8 * 1024 * 1024) continue;
      while (ws.bufferedAmount > 1024 * 1024 && Date.now() < until) await sleep(10);
    }
    while (ws.bufferedAmount > 0 && Date.now() < until) await sleep(10);
  });
  await sleep(500);
  hangUp(sockets);
  return { got, note: `${sockets.length} sockets, ${subscribeSent} eth_subscribe sent` };
};

/** 3. Deeply nested JSON: 2.5M levels (5 MB) posted in a loop by 3 clients. */
const nested: Attack = async (t, ms) => {
  const got: Counts = {};
  const body = Buffer.from('['.repeat(2_500_000) + ']'.repeat(2_500_000));
  const agent = new Agent({ keepAlive: true, maxSockets: 3 });
  await lanes(3, Date.now() + ms, async () => bump(got, (await post(`${t.url}/v3/${t.keys[0]}`, body, agent)).got));
  agent.destroy();
  return { got };
};

/** A whole-chain eth_getLogs that scans every block: one contract's logs of one event. */
const wholeChain = (t: Target, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'eth_getLogs',
  params: [{ fromBlock: '0x0', toBlock: 'latest', address: t.address, topics: [t.topic] }],
});

/** 4. 300 concurrent whole-chain eth_getLogs from one key. */
const getLogs: Attack = async (t, ms) => {
  const got: Counts = {};
  const agent = new Agent({ keepAlive: true, maxSockets: 300 });
  const body = JSON.stringify(wholeChain(t));
  await lanes(300, Date.now() + ms, async () => bump(got, (await post(`${t.url}/v3/${t.keys[0]}`, body, agent)).got));
  agent.destroy();
  return { got };
};

/** 5. 500 gRPC StreamLogs of the whole chain, unfiltered, whose client never reads (10 channels of 50). */
const streams: Attack = async (t, ms) => {
  const got: Counts = {};
  const service = loadDefinition()[SERVICE_NAME] as unknown as grpc.ServiceDefinition;
  const methods = { StreamLogs: { ...service.StreamLogs!, responseDeserialize: (b: Buffer) => b } };
  const Raw = grpc.makeGenericClientConstructor(methods, 'EthLogs');
  const md = new grpc.Metadata();
  md.set('x-api-key', t.keys[0]!);
  const clients = Array.from({ length: 10 }, () => new Raw(t.grpc, grpc.credentials.createInsecure()));
  const calls: grpc.ClientReadableStream<Buffer>[] = [];
  for (let i = 0; i < 500; i++) {
    const client = clients[i % 10] as unknown as StreamClient;
    const call = client.StreamLogs({ filter: { fromBlock: { number: '0' }, toBlock: { number: String(t.head) } } }, md);
    call.pause();
    call.on('error', (e: grpc.ServiceError) => {
      bump(got, `${grpc.status[e.code]}${e.details ? `: ${e.details.slice(0, 40)}` : ''}`);
    });
    call.on('end', () => bump(got, 'ended'));
    calls.push(call);
  }
  await sleep(ms);
  const open = calls.length - Object.values(got).reduce((a, b) => a + b, 0);
  for (const call of calls) call.cancel();
  await sleep(200);
  for (const c of clients) c.close();
  return { got, note: `${open} still open when cancelled` };
};

/** 6. 1,000-call heavy batches whose client leaves after 2 s; then the child's CPU over the next 5 s. */
const leavingBatch: Attack = async (t, ms) => {
  const got: Counts = {};
  const body = JSON.stringify(Array.from({ length: 1000 }, (_, i) => wholeChain(t, i)));
  const until = Date.now() + ms - 5000;
  while (Date.now() < until) {
    const req = request(`${t.url}/v3/${t.keys[0]}`, { method: 'POST', agent: false, headers: JSON_HEADERS }, (res) => {
      bump(got, `answered HTTP ${res.statusCode} within 2 s`);
      res.resume();
    });
    req.on('error', () => undefined);
    req.end(body);
    await sleep(2000);
    req.destroy();
    bump(got, 'left after 2 s');
    await sleep(500);
  }
  const cpu0 = cpuSeconds(t.pid);
  await sleep(5000);
  const busy = (cpuSeconds(t.pid) - cpu0) / 5;
  const cpu = `${(busy * 100).toFixed(0)}% of a core`;
  return { got, note: `child CPU over the 5 s after the last client left: ${cpu} (probe included)` };
};

/** One raw HTTP request on its own connection: what came back first ("HTTP 413", "closed unanswered after 10.0 s"). */
function raw(t: Target, text: string): Promise<string> {
  return new Promise((resolve) => {
    const started = Date.now();
    const s = connect(t.port, '127.0.0.1');
    let answered = false;
    s.setTimeout(15_000, () => s.destroy());
    s.on('data', (d) => {
      if (answered) return;
      answered = true;
      resolve(`HTTP ${/^HTTP\/1\.1 (\d+)/.exec(String(d))?.[1] ?? '?'}`);
      s.destroy();
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      if (!answered) resolve(`closed unanswered after ${Math.round((Date.now() - started) / 1000)} s`);
    });
    s.write(text);
  });
}

/** 7. Malformed HTTP in loops: a 6 MiB Content-Length with 10 bytes sent; two Content-Lengths; 49 headers. */
const httpParsing: Attack = async (t, ms) => {
  const got: Counts = {};
  const head = (extra: string) =>
    `POST /v3/${t.keys[0]} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}\r\n`;
  const many = Array.from({ length: 49 }, (_, i) => `X-H${i}: ${i}\r\n`).join('');
  const cases: [string, string][] = [
    ['6 MiB length, 10 bytes', head(`Content-Length: ${6 * 1024 * 1024}\r\n`) + '0123456789'],
    ['two lengths', head('Content-Length: 5\r\nContent-Length: 40\r\n') + '{"a":1}'.padEnd(40, ' ')],
    ['49 headers', head(many + 'Content-Length: 2\r\n') + '{}'],
  ];
  await lanes(cases.length * 3, Date.now() + ms, async (lane) => {
    const [name, text] = cases[lane % cases.length]!;
    bump(got, `${name}: ${await raw(t, text)}`);
  });
  return { got };
};

/** 8. Fan-out: 10 sockets × 128 unfiltered `logs` subscriptions, then a block every 2 s added to the served store. */
function fanOut(data: string): Attack {
  return async (t, ms) => {
    const got: Counts = {};
    const opened = await Promise.all(Array.from({ length: 10 }, () => socket(`${t.ws}/ws/v3/${t.keys[1]}`, got)));
    const sockets = opened.filter((s) => s !== undefined);
    for (const ws of sockets) {
      for (let i = 0; i < 128; i++) {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['logs', {}] }));
      }
    }
    while ((got.subscribed ?? 0) + (got['error -32005'] ?? 0) < sockets.length * 128) await sleep(20);
    const store = openStore(data);
    const reader = new StoreReader(store);
    const writer = new StoreWriter(store);
    let logs = 0;
    const until = Date.now() + ms;
    try {
      while (Date.now() < until) {
        const blocks = nextBlocks(reader, 1);
        logs += blocks[0]!.logs.length;
        writer.append({ blocks });
        await sleep(2000);
      }
    } finally {
      await sleep(1000);
      hangUp(sockets);
      await closeStore(store);
    }
    const expected = logs * 128 * sockets.length;
    return { got, note: `${logs} new logs: ${got.notification ?? 0} of ${expected} notifications delivered` };
  };
}

// ---------------------------------------------------------------- the run

export interface HostileRow {
  attack: string;
  p50: number;
  p99: number;
  max: number;
  probeCalls: number;
  probeErrors: Counts;
  peakRss: number;
  up: boolean;
  got: Counts;
  note?: string;
  verdict: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const fmtCounts = (c: Counts) =>
  Object.entries(c)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ×${n}`)
    .join('; ') || '—';

function verdict(r: Omit<HostileRow, 'verdict'>): string {
  const broken: string[] = [];
  if (!r.up) broken.push('server down');
  if (!(r.p50 <= BOUND_P50_MS)) broken.push(`probe p50 ${r.p50.toFixed(0)} ms > ${BOUND_P50_MS}`);
  if (!(r.max <= BOUND_MAX_MS)) broken.push(`probe max ${r.max.toFixed(0)} ms > ${BOUND_MAX_MS}`);
  if (r.peakRss > BOUND_RSS_BYTES) broken.push(`RSS ${(r.peakRss / 2 ** 20).toFixed(0)} MiB > 2 GiB`);
  if (Object.keys(r.probeErrors).length > 0) broken.push('probe errors');
  return broken.length === 0 ? 'within bounds' : `BREAKS: ${broken.join(', ')}`;
}

export function markdown(rows: HostileRow[]): string {
  const lines = [
    '| attack | probe p50 ms | probe p99 ms | probe max ms | probe calls / errors | peak RSS MiB | up | attacker got |',
    '|---|---:|---:|---:|---|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.attack} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(0)} | ` +
        `${r.probeCalls} / ${fmtCounts(r.probeErrors)} | ${(r.peakRss / 2 ** 20).toFixed(0)} | ` +
        `${r.up ? 'yes' : 'NO'} | ` +
        `${fmtCounts(r.got)}${r.note ? ` (${r.note})` : ''} |`,
    ),
    '',
    ...rows.map((r) => `- ${r.attack}: ${r.verdict}`),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = { data: { type: 'string' }, seconds: { type: 'string' }, only: { type: 'string' } } as const;
  const { values } = parseArgs({ options });
  const cached = values.data ?? 'data/bench-traffic';
  const ms = Number(values.seconds ?? 12) * 1000;
  const only = values.only?.split(',').map(Number);
  ensureDataset({ dir: cached, ...DATASET });
  const data = mkdtempSync(join(tmpdir(), 'ethlogd-hostile-'));
  cpSync(cached, data, { recursive: true });

  const store = openStore(data);
  const reader = new StoreReader(store);
  const head = reader.head()!;
  let sample = head;
  while (reader.logs(sample).length === 0) sample--;
  const log = reader.logs(sample)[0]!;
  const probeKey = createApiKey(store, 'hostile-probe');
  const keys = [1, 2, 3, 4].map((i) => createApiKey(store, `hostile-attacker-${i}`));
  await closeStore(store);

  const served = await serve(data);
  const child = served.child;
  let exited = false;
  child.once('exit', (code, signal) => {
    exited = true;
    console.log(`serve exited: ${code ?? signal}`);
  });
  const port = Number(new URL(served.url).port);
  const t: Target = {
    url: served.url,
    ws: served.url.replace('http://', 'ws://'),
    grpc: served.grpc,
    port,
    head,
    address: '0x' + Buffer.from(log.address).toString('hex'),
    topic: '0x' + Buffer.from(log.topics[0]!).toString('hex'),
    probeKey,
    keys,
    pid: child.pid!,
  };

  const attacks: [number, string, Attack][] = [
    [0, 'none (probe only)', async (_t, ms) => (await sleep(ms), { got: {} })],
    [1, '1. eth_newFilter 2,500 addresses + 2,500 topics, 4 keys, 8 loops', filters],
    [2, '2. WebSocket: sockets of 128 big-filter subscriptions, 4 keys', subscriptions],
    [3, '3. nested JSON, 2.5M levels (5 MB), 3 loops', nested],
    [4, '4. 300 concurrent whole-chain eth_getLogs, one key', getLogs],
    [5, '5. 500 gRPC StreamLogs never read', streams],
    [6, '6. 1,000-call heavy batch, client leaves after 2 s', leavingBatch],
    [7, '7. malformed HTTP in loops (9 connections)', httpParsing],
    [8, '8. fan-out: 10 sockets × 128 logs subscriptions, a block every 2 s', fanOut(data)],
  ];
  const worker = new Worker(new URL(import.meta.url), { workerData: { probe: t } });
  const take = () =>
    new Promise<ProbeResult>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage('take');
    });
  const rows: HostileRow[] = [];
  try {
    await sleep(1000);
    await take();
    for (const [n, name, attack] of attacks) {
      if (only && n !== 0 && !only.includes(n)) continue;
      if (exited) break;
      console.log(`${name} …`);
      let peakRss = 0;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rss(t.pid) ?? 0)), RSS_EVERY_MS);
      const outcome = await attack(t, ms);
      clearInterval(sampler);
      const probed = await take();
      const up = !exited && (await alive(t));
      const sorted = probed.latencies.sort((a, b) => a - b);
      const row = {
        attack: name,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        max: sorted.at(-1) ?? Number.NaN,
        probeCalls: sorted.length,
        probeErrors: probed.errors,
        peakRss,
        up,
        got: outcome.got,
        note: outcome.note,
      };
      rows.push({ ...row, verdict: verdict(row) });
      console.log(markdown(rows.slice(-1)));
      // Let what the attack left behind drain before the next one starts.
      await sleep(3000);
      await take();
    }
  } finally {
    worker.postMessage('stop');
    await worker.terminate();
    if (!exited) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(data, { recursive: true, force: true });
  }
  console.log(
    `\nHostile clients: serve with default options on a ${DATASET.blocks}-block mainnet-density store, ` +
      `${ms / 1000} s an attack, probe every ${PROBE_EVERY_MS} ms from another key\n\n${markdown(rows)}`,
  );
}

if (isMainThread && import.meta.url === `file://${process.argv[1]}`) await main();
