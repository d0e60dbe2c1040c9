/**
 * `make bench` section "cluster": throughput through HAProxy (deploy/haproxy.cfg as shipped) in front
 * of three replicas against one replica directly, and the balancer's cost per request. A generated
 * store is snapshotted three times (`ethlogd snapshot`), each copy served by `ethlogd serve` (one HTTP
 * thread). The requests alternate eth_blockNumber and eth_getBlockByNumber("latest") over keep-alive
 * connections: to one replica directly, through HAProxy with one key (hashed to one replica: the same
 * replica, plus the balancer), and through HAProxy with six keys spread over the three. The load
 * generator is wrk pinned to core 0, the replicas and HAProxy all pinned to core 1 (pinnedLoad.ts;
 * autocannon in this process when wrk is missing), so every run has the same one core to serve with;
 * the balancer's cost is HAProxy's own CPU time per request from /proc.
 *
 *   node dist/native-free-bench/cluster.js [--seconds 5] [--connections 50]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';
import { freePort } from '../test/support/anvil.js';
import { runCli } from '../test/support/child.js';
import { HAPROXY_BIN, HAPROXY_CONFIG } from '../test/support/haproxy.js';
import { until } from '../test/support/poll.js';
import { GENERATOR_CPU, hasWrk, type Load, load, pin, SERVER_CPU, type Server, startPinned } from './pinnedLoad.js';
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

/** The headers of the requests this section sends to set up (the load sends no Accept-Encoding: uncompressed). */
const HEADERS = { 'content-type': 'application/json' };

/** The request bodies, alternated. */
const BODIES = [
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] }),
];

/** Measures the cluster against one replica; rows for the report, or a line saying why not. */
export async function measureCluster(o: ClusterBenchOptions): Promise<Row[]> {
  if (HAPROXY_BIN === undefined) throw new Error('haproxy is not on PATH (Debian: apt-get install -y haproxy)');
  const wrk = hasWrk();
  if (!wrk) execFileSync('taskset', ['-a', '-cp', GENERATOR_CPU, String(process.pid)], { stdio: 'ignore' });
  const root = mkdtempSync(join(tmpdir(), 'ethlogd-bench-cluster-'));
  const replicas: Server[] = [];
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
      const args = [
        'dist/src/cli.js',
        'serve',
        '--data',
        join(root, `replica${i}`),
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--http-threads',
        '1',
        '--threads',
        '1',
        '--grpc-port',
        'off',
        '--access-log',
        'off',
        '--log-level',
        'warn',
      ];
      replicas.push(await startPinned(args, SERVER_CPU, ''));
    }
    const port = await freePort();
    const env = {
      ...process.env,
      ETHLOGD_LB_BIND: `127.0.0.1:${port}`,
      ...Object.fromEntries(replicas.map((r, i) => [`ETHLOGD_REPLICA${i + 1}`, new URL(r.url).host])),
    };
    haproxy = spawn(HAPROXY_BIN, ['-f', HAPROXY_CONFIG, '-db'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    pin(haproxy.pid!, SERVER_CPU);
    const lb = `http://127.0.0.1:${port}`;
    await until(
      async () =>
        (
          await fetch(`${lb}/v3/${keys[0]}`, { method: 'POST', headers: HEADERS, body: BODIES[0] }).catch(
            () => undefined,
          )
        )?.status === 200,
      'HAProxy answers',
    );
    // The replica one key hashes to, to compare the same replica with and without the balancer.
    const served = (
      await fetch(`${lb}/v3/${keys[0]}`, { method: 'POST', headers: HEADERS, body: BODIES[0] })
    ).headers.get('x-ethlogd-replica')!;
    const replica = replicas[Number(served.replace('replica', '')) - 1]!;
    const run = { seconds: o.seconds, connections: o.connections };
    const direct = await load(`${replica.url}/v3/${keys[0]}`, [replica.pid], BODIES, run, wrk, true);
    const oneKey = await load(`${lb}/v3/${keys[0]}`, [replica.pid, haproxy.pid!], BODIES, run, wrk, true);
    const spread = await load(
      lb,
      [...replicas.map((r) => r.pid), haproxy.pid!],
      BODIES,
      run,
      wrk,
      true,
      keys.map((k) => `/v3/${k}`),
    );
    const bad = direct.bad + oneKey.bad + spread.bad;
    const generator = wrk
      ? `wrk -t1 -c${o.connections} on core ${GENERATOR_CPU}`
      : `autocannon -c${o.connections} in the benchmark's process on core ${GENERATOR_CPU} (wrk is not installed)`;
    const note =
      `eth_blockNumber and eth_getBlockByNumber(latest) alternated, ${generator}, replicas and HAProxy on core ` +
      `${SERVER_CPU}, ${o.seconds} s per run, one run${bad > 0 ? `; ${bad} failed requests` : ''}`;
    const ms = (l: Load) => `p50 ${l.p50Ms.toFixed(2)} / p99 ${l.p99Ms.toFixed(2)} ms`;
    return [
      {
        figure: 'one replica directly (small requests)',
        ours: direct.rps,
        unit: 'req/s',
        note: `${ms(direct)}, replica CPU ${direct.cpuUs.toFixed(1)} µs/request; ${note}`,
      },
      {
        figure: 'through HAProxy, one key (the same replica)',
        ours: oneKey.rps,
        unit: 'req/s',
        baseline: direct.rps,
        baselineName: 'the replica directly',
        note: `${ms(oneKey)}, replica CPU ${oneKey.cpuUsBy[0]!.toFixed(1)} µs/request`,
      },
      {
        figure: `through HAProxy, ${SPREAD_KEYS} keys over ${REPLICAS} replicas (one core for all)`,
        ours: spread.rps,
        unit: 'req/s',
        baseline: direct.rps,
        baselineName: 'one replica directly',
        note: ms(spread),
      },
      {
        figure: "HAProxy's CPU per request (one key)",
        ours: oneKey.cpuUsBy[1]!,
        unit: 'µs',
        baseline: direct.cpuUs,
        baselineName: "the replica's own CPU per request",
      },
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
  const rows = await measureCluster({
    seconds: Number(values.seconds ?? 5),
    connections: Number(values.connections ?? 50),
  });
  for (const row of rows)
    console.log(
      `${row.figure}: ${row.ours.toFixed(0)} ${row.unit}` +
        `${row.baseline === undefined ? '' : ` (${row.baselineName}: ${row.baseline.toFixed(0)})`}` +
        `${row.note ? `  [${row.note}]` : ''}`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
