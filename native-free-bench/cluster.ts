/**
 * `make bench` section "cluster": throughput through HAProxy (deploy/haproxy.cfg as shipped) in front
 * of three replicas against one replica directly, and the balancer's cost per request. A generated
 * store is snapshotted three times (`ethlogd snapshot`), each copy served by `ethlogd serve` (one HTTP
 * thread: the three share this machine's cores); autocannon sends eth_blockNumber and
 * eth_getBlockByNumber("latest") over keep-alive connections: to one replica directly, through
 * HAProxy with one key (hashed to one replica: the same replica, plus the balancer), and through
 * HAProxy with six keys spread over the three. The overhead per request is the difference of the
 * mean latencies (autocannon's percentiles are whole milliseconds), one key through HAProxy against
 * direct. Each target gets a 1 s warm-up first.
 *
 *   node dist/native-free-bench/cluster.js [--seconds 5] [--connections 50]
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from '../src/store/apiKeys.js';
import { closeStore, openStore } from '../src/store/schema.js';
import { generateStore } from '../src/synth/generateStore.js';
import { freePort } from '../test/integration/anvil.js';
import { runCli } from '../test/integration/child.js';
import { HAPROXY_BIN, HAPROXY_CONFIG } from '../test/integration/haproxy.js';
import { until } from '../test/integration/poll.js';
import { startChild, type Child } from './http.js';
import type { Row } from './report.js';

/** Options of the cluster measurement. */
export interface ClusterBenchOptions {
  /** Seconds per autocannon run. */
  seconds: number;
  connections: number;
}

/** Blocks of the served chain: the requests read the head alone, so its length does not matter. */
const BLOCKS = 300;
/** Keys the spread load uses: enough that the ring gives every replica some. */
const SPREAD_KEYS = 6;
const REPLICAS = 3;

/** Uncompressed answers, as every HTTP section measures them. */
const HEADERS = { 'content-type': 'application/json', 'accept-encoding': 'identity' };

/** The request bodies, alternated. */
const BODIES = [
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] }),
];

/** Throughput and median latency of `paths` on `base`, requests alternating between BODIES over the paths. */
async function load(base: string, paths: string[], o: ClusterBenchOptions): Promise<{ rps: number; meanMs: number; errors: number }> {
  const requests = paths.flatMap((path) => BODIES.map((body) => ({ path, body })));
  await autocannon({ url: base, connections: o.connections, duration: 1, method: 'POST', headers: HEADERS, requests });
  const result = await autocannon({ url: base, connections: o.connections, duration: o.seconds, method: 'POST', headers: HEADERS, requests });
  return { rps: result.requests.average, meanMs: result.latency.average, errors: result.errors + result.non2xx };
}

/** Measures the cluster against one replica; rows for the report, or a line saying why not. */
export async function measureCluster(o: ClusterBenchOptions): Promise<Row[]> {
  if (HAPROXY_BIN === undefined) throw new Error('haproxy is not on PATH (Debian: apt-get install -y haproxy)');
  const root = mkdtempSync(join(tmpdir(), 'ethlogd-bench-cluster-'));
  const replicas: Child[] = [];
  let haproxy: ReturnType<typeof spawn> | undefined;
  try {
    const seed = join(root, 'seed');
    await generateStore(seed, { blocks: BLOCKS, seed: 'bench-cluster', density: 0.25, pending: true, progress: false });
    const store = openStore(seed);
    const keys = Array.from({ length: SPREAD_KEYS }, (_, i) => createApiKey(store, `bench ${i}`));
    await closeStore(store);
    for (let i = 1; i <= REPLICAS; i++) {
      const snap = await runCli(['snapshot', '--data', seed, '--out', join(root, `replica${i}`)]);
      if (snap.code !== 0) throw new Error(`snapshot failed: ${snap.stderr}`);
      replicas.push(await startChild(['dist/src/cli.js', 'serve', '--data', join(root, `replica${i}`), '--port', '0', '--http-threads', '1', '--threads', '1', '--grpc-port', 'off', '--access-log', 'off', '--log-level', 'warn']));
    }
    const port = await freePort();
    const env = { ...process.env, ETHLOGD_LB_BIND: `127.0.0.1:${port}`, ...Object.fromEntries(replicas.map((r, i) => [`ETHLOGD_REPLICA${i + 1}`, `127.0.0.1:${r.port}`])) };
    haproxy = spawn(HAPROXY_BIN, ['-f', HAPROXY_CONFIG, '-db'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const lb = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${lb}/v3/${keys[0]}`, { method: 'POST', headers: HEADERS, body: BODIES[0] }).catch(() => undefined))?.status === 200, 'HAProxy answers');
    // The replica one key hashes to, to compare the same replica with and without the balancer.
    const served = (await fetch(`${lb}/v3/${keys[0]}`, { method: 'POST', headers: HEADERS, body: BODIES[0] })).headers.get('x-ethlogd-replica')!;
    const replica = replicas[Number(served.replace('replica', '')) - 1]!;
    const direct = await load(`http://127.0.0.1:${replica.port}`, [`/v3/${keys[0]}`], o);
    const oneKey = await load(lb, [`/v3/${keys[0]}`], o);
    const spread = await load(lb, keys.map((k) => `/v3/${k}`), o);
    const errors = direct.errors + oneKey.errors + spread.errors;
    const note = `eth_blockNumber and eth_getBlockByNumber(latest) alternated, ${o.connections} keep-alive connections, ${o.seconds} s per run, one run${errors > 0 ? `; ${errors} failed requests` : ''}`;
    return [
      { figure: 'one replica directly (small requests)', ours: direct.rps, unit: 'req/s', note },
      { figure: 'through HAProxy, one key (the same replica)', ours: oneKey.rps, unit: 'req/s', baseline: direct.rps, baselineName: 'the replica directly', note },
      { figure: `through HAProxy, ${SPREAD_KEYS} keys over ${REPLICAS} replicas`, ours: spread.rps, unit: 'req/s', baseline: direct.rps, baselineName: 'one replica directly', note },
      { figure: "HAProxy's cost per request (mean latency, one key, against direct)", ours: (oneKey.meanMs - direct.meanMs) * 1000, unit: 'µs', note },
    ];
  } finally {
    if (haproxy !== undefined && haproxy.exitCode === null) {
      const exited = new Promise((resolve) => haproxy!.once('exit', resolve));
      haproxy.kill('SIGTERM');
      await exited;
    }
    await Promise.all(replicas.map((r) => r.stop()));
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string' }, connections: { type: 'string' } } });
  const rows = await measureCluster({ seconds: Number(values.seconds ?? 5), connections: Number(values.connections ?? 50) });
  for (const row of rows) console.log(`${row.figure}: ${row.ours.toFixed(0)} ${row.unit}${row.baseline === undefined ? '' : ` (${row.baselineName}: ${row.baseline.toFixed(0)})`}${row.note ? `  [${row.note}]` : ''}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
