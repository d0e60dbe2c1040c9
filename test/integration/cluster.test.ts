/**
 * Three replicas behind a real HAProxy (deploy/haproxy.cfg as shipped): each `serve --follow-rpc` on
 * its own store, seeded with `ethlogd snapshot`, following one anvil. Several API keys send the
 * realtime request mix (eth_blockNumber, eth_getLogs by blockHash and over the last 10 blocks,
 * eth_getBlockByNumber latest), each key one request after another, through the balancer while anvil
 * mines; a replica that serves keys is SIGKILLed, later restarted on its store; anvil reorganises once.
 * No request fails; for every key X-Ethlogd-Head never decreases; the restarted replica catches up
 * and is ready again; all three stores end identical. A WebSocket subscribed to newHeads through the
 * balancer (reconnecting and subscribing again whenever its replica goes away) hears the final head. Skipped, saying
 * so by name, when haproxy or anvil is missing (CLUSTER_REQUIRED=1, as make test-cluster sets, makes a missing haproxy
 * a failure).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, freePort } from '../support/anvil.js';
import { type CliProcess, runCli, startCli } from '../support/child.js';
import { HAPROXY_MISSING, Haproxy } from '../support/haproxy.js';
import { until } from '../support/poll.js';
import { diffStores } from '../support/storeDiff.js';
import { Workload } from '../support/workload.js';

/** API keys sending requests at once, each one request after another. */
const KEYS = 6;
const REPLICAS = 3;
/**
 * Longest any request of the test may take: above HAProxy's 15 s server timeout, so a hung replica is named rather than
 * waited on for fetch's 300 s.
 */
const REQUEST_TIMEOUT_MS = 20_000;

/** fetch with the test's timeout. */
function fetchOnce(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}

if (HAPROXY_MISSING && process.env.CLUSTER_REQUIRED === '1') throw new Error(HAPROXY_MISSING);
const SKIP = HAPROXY_MISSING || ANVIL_MISSING;

type Obj = Record<string, any>;
const hex = (n: number) => '0x' + n.toString(16);

/** One replica: its store, port and process. */
interface Replica {
  name: string;
  dir: string;
  port: number;
  process: CliProcess;
}

let anvil: Anvil;
let workload: Workload;
let root: string;
let keys: string[];
let replicas: Replica[];
let haproxy: Haproxy;
let lb: string;

/** Starts replica `r` (serve --follow-rpc on its store and port) and waits until it listens. */
async function startReplica(r: Omit<Replica, 'process'>): Promise<Replica> {
  const process = startCli([
    'serve',
    '--data',
    r.dir,
    '--port',
    String(r.port),
    '--threads',
    '1',
    '--http-threads',
    '2',
    '--grpc-port',
    'off',
    '--access-log',
    'off',
    '--log-level',
    'warn',
    '--follow-rpc',
    anvil.url,
    '--follow-poll-ms',
    '20',
    '--max-lag-blocks',
    '2',
  ]);
  await until(
    async () => (await fetchOnce(`http://127.0.0.1:${r.port}/health`).catch(() => undefined))?.ok === true,
    `${r.name} listens`,
  );
  return { ...r, process };
}

/** The /ready answer of replica `r`, asked directly. */
async function readyOf(r: Replica): Promise<{ status: number; body: Obj }> {
  const res = await fetchOnce(`http://127.0.0.1:${r.port}/ready`).catch((error: Error) =>
    assert.fail(`${r.name} /ready: ${error.message}`),
  );
  return { status: res.status, body: (await res.json()) as Obj };
}

/** Waits until every replica in `among` is ready at anvil's head. */
async function allAtAnvilHead(among: Replica[]): Promise<void> {
  const tip = await anvil.rpc<Obj>('eth_getBlockByNumber', ['latest', false]);
  for (const r of among) {
    await until(
      async () => {
        const ready = await readyOf(r);
        return ready.status === 200 && ready.body.hash === tip.hash;
      },
      `${r.name} is ready at anvil's head ${Number(tip.number)}`,
      30_000,
    );
  }
}

/** What one key's client saw. */
interface KeyRun {
  requests: number;
  failures: string[];
  heads: number[];
  /** Replica names that answered it, in order of first answer. */
  servedBy: Set<string>;
}

/** One key's client: the realtime mix, one request after another, until `stop()` says so. */
async function client(key: string, stop: () => boolean): Promise<KeyRun> {
  const run: KeyRun = { requests: 0, failures: [], heads: [], servedBy: new Set() };
  let head = 0;
  let hash: string | undefined;
  for (let i = 0; !stop(); i++) {
    const kind = i % 4;
    const body =
      kind === 0
        ? { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] }
        : kind === 1
          ? { jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: ['latest', false] }
          : kind === 2 && hash !== undefined
            ? { jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [{ blockHash: hash }] }
            : {
                jsonrpc: '2.0',
                id: i,
                method: 'eth_getLogs',
                params: [{ fromBlock: hex(Math.max(0, head - 9)), toBlock: hex(head) }],
              };
    run.requests++;
    try {
      const res = await fetchOnce(`${lb}/v3/${key}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const answer = JSON.parse(text) as Obj;
      if (res.status !== 200 || answer.error !== undefined) {
        run.failures.push(`${body.method}: HTTP ${res.status} ${text.slice(0, 200)}`);
        continue;
      }
      run.heads.push(Number(res.headers.get('x-ethlogd-head')));
      run.servedBy.add(res.headers.get('x-ethlogd-replica') ?? '?');
      if (kind === 0) head = Number(answer.result);
      if (kind === 1) {
        head = Number(answer.result.number);
        hash = answer.result.hash as string;
      }
    } catch (error) {
      run.failures.push(`${body.method}: ${(error as Error).message}`);
    }
  }
  return run;
}

/** A newHeads subscriber through the balancer that reconnects whenever its socket closes. */
class HeadsSubscriber {
  /** Hashes of every head notified, over all connections. */
  readonly hashes = new Set<string>();
  /** Replicas that took the upgrade (X-Ethlogd-Replica of the 101 answer). */
  readonly replicas = new Set<string>();
  connections = 0;
  private socket: WebSocket | undefined;
  private stopped = false;

  constructor(private readonly url: string) {
    this.connect();
  }

  private connect(): void {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.on('upgrade', (res) => this.replicas.add(String(res.headers['x-ethlogd-replica'])));
    socket.on('open', () => {
      this.connections++;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Obj;
      if (message.method === 'eth_subscription') this.hashes.add(message.params.result.hash as string);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!this.stopped) setImmediate(() => this.connect());
    });
  }

  /** Closes the socket and stops reconnecting. */
  close(): void {
    this.stopped = true;
    this.socket?.close();
  }
}

before(async () => {
  if (SKIP) return;
  root = mkdtempSync(join(tmpdir(), 'ethlogd-cluster-'));
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  workload = await Workload.deploy(anvil, 11);
  await workload.mine(10, { special: false });
  const seed = join(root, 'seed');
  await runIngest({ rpc: anvil.url, dataDir: seed, logger: createLogger('warn') });
  const store = openStore(seed);
  keys = Array.from({ length: KEYS }, (_, i) => createApiKey(store, `client ${i}`));
  await closeStore(store);
  const ports = await Promise.all(Array.from({ length: REPLICAS + 1 }, () => freePort()));
  replicas = [];
  for (let i = 0; i < REPLICAS; i++) {
    const dir = join(root, `replica${i + 1}`);
    const snap = await runCli(['snapshot', '--data', seed, '--out', dir]);
    assert.equal(snap.code, 0, snap.stderr);
    replicas.push(await startReplica({ name: `replica${i + 1}`, dir, port: ports[i]! }));
  }
  await workload.discover();
  lb = `http://127.0.0.1:${ports[REPLICAS]}`;
  haproxy = Haproxy.start(
    `127.0.0.1:${ports[REPLICAS]}`,
    replicas.map((r) => `127.0.0.1:${r.port}`),
  );
  await allAtAnvilHead(replicas);
  await until(
    async () =>
      haproxy.running &&
      (
        await fetchOnce(`${lb}/v3/${keys[0]}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
        }).catch(() => undefined)
      )?.status === 200,
    `HAProxy answers: ${haproxy.output()}`,
  );
});

after(async () => {
  await haproxy?.stop();
  for (const r of replicas ?? []) r.process.child.kill('SIGKILL');
  await anvil?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

test('cluster: three replicas behind HAProxy, a replica killed and restarted, ' +
  'a reorganisation: no failed request, no head going back, identical stores', {
  skip: SKIP,
}, async (t) => {
  let stopping = false;
  const clients = keys.map((key) => client(key, () => stopping));
  const subscriber = new HeadsSubscriber(`${lb.replace('http:', 'ws:')}/ws/v3/${keys[0]}`);
  try {
    await workload.mine(8, { special: false });
    // The replica that serves the most keys so far is killed.
    const answered = new Map<string, number>();
    await until(async () => {
      const res = await Promise.all(
        keys.map((key) =>
          fetchOnce(`${lb}/v3/${key}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
          }),
        ),
      );
      for (const r of res)
        assert.equal(
          r.status,
          200,
          `through HAProxy: ${r.status} ${JSON.stringify([...r.headers])} ${haproxy.output()}`,
        );
      for (const r of res)
        answered.set(r.headers.get('x-ethlogd-replica')!, (answered.get(r.headers.get('x-ethlogd-replica')!) ?? 0) + 1);
      return answered.size > 0;
    }, 'the keys are spread');
    const victimName = [...answered].sort((a, b) => b[1] - a[1])[0]![0];
    const victim = replicas.find((r) => r.name === victimName);
    assert.ok(
      victim,
      `HAProxy names the replica that answered (X-Ethlogd-Replica): ${[...answered.keys()].join(', ')}`,
    );
    victim.process.child.kill('SIGKILL');
    await victim.process.exited;
    await workload.mine(8, { special: false });
    const others = replicas.filter((r) => r !== victim);
    await allAtAnvilHead(others);
    const restarted = await startReplica(victim);
    replicas[replicas.indexOf(victim)] = restarted;
    await workload.mine(4, { special: false });
    await allAtAnvilHead(replicas);
    await anvil.rpc('anvil_reorg', [
      3,
      [
        [workload.action(true), 0],
        [workload.action(true), 1],
        [workload.action(true), 2],
      ],
    ]);
    await workload.syncNonces();
    await workload.mine(6, { special: false });
    await allAtAnvilHead(replicas);
    const tip = await anvil.rpc<Obj>('eth_getBlockByNumber', ['latest', false]);
    await until(
      async () => subscriber.hashes.has(tip.hash as string),
      `the WebSocket through HAProxy hears the head ${Number(tip.number)} (${subscriber.connections} connections)`,
    );
    t.diagnostic(
      `WebSocket: ${subscriber.hashes.size} heads over ${subscriber.connections} ` +
        `connections, upgrades taken by ${[...subscriber.replicas].join(', ')}`,
    );
    t.diagnostic(`killed and restarted ${victimName} (it served ${answered.get(victimName)} of ${KEYS} keys)`);
  } finally {
    stopping = true;
    subscriber.close();
  }
  const runs = await Promise.all(clients);
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  t.diagnostic(
    `${requests} requests from ${KEYS} keys; answered by ${runs.map((r) => [...r.servedBy].join('+')).join(', ')}`,
  );
  assert.deepEqual(
    runs.flatMap((r) => r.failures),
    [],
    'no request failed',
  );
  for (const [i, run] of runs.entries()) {
    const back = run.heads.findIndex((h, j) => j > 0 && h < run.heads[j - 1]!);
    assert.equal(
      back,
      -1,
      `key ${i}: X-Ethlogd-Head went back from ${run.heads[back - 1]} to ` +
        `${run.heads[back]} (answers by ${[...run.servedBy].join(', ')})`,
    );
    assert.ok(run.requests > 10, `key ${i} sent requests throughout`);
  }
  for (const r of replicas) {
    r.process.child.kill('SIGTERM');
    assert.equal(await r.process.exited, 0, `${r.name} stopped cleanly`);
  }
  const stores: Store[] = replicas.map((r) => openStore(r.dir, { readOnly: true }));
  try {
    for (const other of stores.slice(1))
      assert.deepEqual(diffStores(stores[0]!, other), [], 'the replicas hold identical stores');
  } finally {
    for (const s of stores) await closeStore(s);
  }
});
