/**
 * `make bench-scale`: how the figures grow with the chain. One store, generated to the first size
 * and extended to each next one (generate N then a larger N continues the same chain), by default
 * in tenths of `--blocks` (210,000: about 100M logs) at mainnet density; at each size: the generate
 * rate of the blocks just added, the disk bytes generate wrote per log added (write_bytes of
 * /proc/PID/io: write amplification) and the store's bytes per log; at the last size (every size
 * with --measure-all), after `verify` of what the size added (its rate recorded at every size), over
 * HTTP against a fresh `serve`: with the server pinned to one core and wrk (one connection) on the
 * other, eth_getTransactionByHash of random hashes and eth_getStorageAt of random slots at random
 * blocks (cold: one pass, each call's first; warm: the same calls for 10 s), beside two controls
 * (eth_chainId on the same server, a bare uWebSockets.js server answering as many bytes); then, on
 * both cores again, p50/p99 of long-range eth_getLogs (one address over the whole chain, that
 * address with its topic0, and a sparse whole-range query of an absent address, in blocks/s) and of
 * the realtime ones (the last 10 blocks for one address, the head block by hash); then the server's
 * resident memory. The density is the one that fits this machine's disk at a million blocks
 * (printed), unless given, so runs of fewer sizes measure the same chain.
 * Written to native-free-bench/results/scale.*.
 *
 * node dist/native-free-bench/scale.js [--blocks 210000 | --sizes 10000,100000] [--density 1] [--measure-all]
 * [--no-verify] [--dir data/scale] [--reps 15]   (--no-verify: no verify at any size)
 * node dist/native-free-bench/scale.js --serve-only [--dir data/scale] [--density 1]   (the serve figures of the store
 * an earlier run left, into results/scale-serve.*)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { STORE_DATA_FILE } from '#src/store/dataFile.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, storeDiskBytes } from '#src/store/schema.js';
import { ANSWER_UPDATED_TOPIC } from '#src/synth/events.js';
import { generateChain, rareAddress } from '#src/synth/generator.js';
import { startChild } from './http.js';
import { percentile } from './logQueries.js';
import {
  affinity,
  GENERATOR_CPU,
  hasWrk,
  majorFaults,
  parseWrk,
  pin,
  runWrk,
  runWrkPass,
  SERVER_CPU,
  wrkScript,
} from './pinnedLoad.js';
import { machine, type Panel, panelsSvg, type Row, table } from './report.js';

/** The chain length by default: about 100M logs at mainnet density. */
const DEFAULT_BLOCKS = 210_000;
/** Steps of the run by default: a tenth of the chain each. */
const STEPS = 10;
/** The chain lengths measured by default: each tenth of DEFAULT_BLOCKS. */
const DEFAULT_SIZES = Array.from({ length: STEPS }, (_, i) => Math.round(((i + 1) * DEFAULT_BLOCKS) / STEPS));
/** Point lookups timed per kind at the last size (random hashes and slots; each cold once, then warm). */
const POINT_LOOKUPS = 2_000;
/** Seconds of each warm point-lookup load: the sampled calls again and again (~30 passes, a p99.9 of ~60k calls). */
const WARM_SECONDS = 10;
/**
 * Seconds of eth_chainId load after the server is pinned and before the cold passes: the first few hundred ms of a load
 * on a newly pinned server run slower whatever they ask (a bare server's first 2,000 calls: p99 1.26 ms against 0.4).
 */
const PINNED_WARMUP_SECONDS = 2;
/** The longest a cold pass may take (wrk stops itself after the pass's last answer). */
const COLD_PASS_LIMIT_SECONDS = 600;
/** Interval of the /proc/PID/io poll of the generating process, in ms. */
const IO_POLL_MS = 100;
/** Bytes a block takes in the store at density 1 (whole file: about 660 B per log, about 480 logs a block). */
const BYTES_PER_BLOCK_AT_DENSITY_1 = 330_000;
/** Share of the free disk the largest store may take: room for the system, other work and LMDB's growth. */
const DISK_SHARE = 0.5;
/** Highest density: mainnet's. */
const MAX_DENSITY = 1;
/** The seed of the scale chain. */
const SEED = 'scale';
/**
 * Result cap of the server: the one-address query returns ~1% of the blocks' worth of logs (10,000 at a million
 * blocks), all of them.
 */
const MAX_LOG_RESULTS = 1_000_000;
/** Deadline of the server's eth_getLogs: whole-chain queries of a million blocks must finish, not time out. */
const LOG_TIMEOUT_MS = 600_000;
/** Timed queries of each kind at each size by default: enough for a p99 of a few slow ones. */
const DEFAULT_REPS = 15;
/** Queries before timing: the first ones fill the page cache and warm the workers. */
const WARMUP_QUERIES = 2;
/**
 * Seed of the untimed point lookups made before the timed ones (other random transactions and slots): a fresh server's
 * first few thousand calls run code not yet compiled (p99 ~2 ms for one repeated call against ~0.5 ms later), which
 * the cold and warm figures are not about.
 */
const SERVER_WARMUP_SEED = 0x6a09e667;

/** What was measured at one size (the serve figures at the sizes measured in full). */
interface SizeResult {
  blocks: number;
  logs: number;
  generateLogsPerSecond: number;
  /**
   * The logs added per second of generate's time in the writer's transactions: the write path alone (records the
   * generating threads encoded, appended, indexed, frozen, merged and committed).
   */
  writerLogsPerSecond: number;
  /** Disk bytes the generating process wrote (write_bytes) per log it added. */
  writtenBytesPerLog: number;
  /** Bytes the store file grew by per log added (the size the writes are set against: goal ≤ 3× this). */
  grownBytesPerLog: number;
  bytesPerLog: number;
  /** verify's time at this size, checking what the size added since the last (incremental), and its rate. */
  verifySeconds?: number;
  verifyLogsPerSecond?: number;
  serveRssMiB?: number;
  /**
   * The part of it that is the process's own memory (RssAnon); the rest is LMDB's mapped pages of the store (RssFile),
   * shared page cache.
   */
  serveAnonMiB?: number;
  query?: Record<QueryName, { p50: number; p99: number; logs: number }>;
  lookups?: Record<LookupName, Latency>;
  /** The mean size of a transaction's answer, in bytes: what the bare server answers. */
  txAnswerBytes?: number;
}

/** Latency percentiles of a wrk load, in ms. */
interface Latency {
  p50: number;
  p99: number;
  p999: number;
  /** The server's major page faults during the load (pages read from disk: a warm load should take none). */
  majorFaults: number;
}

/**
 * The point lookups, and two controls measured beside them: eth_chainId on the same server (a call that reads
 * nothing) and a bare uWebSockets.js server answering as many bytes as a transaction (the transport alone).
 */
type LookupName = 'txCold' | 'txWarm' | 'storageCold' | 'storageWarm' | 'chainIdWarm' | 'bareWarm';

type QueryName = 'address' | 'addressTopic' | 'sparse' | 'recent' | 'byHash';

/** Blocks of the realtime range query: the last ten, as Subsquid asks them. */
const RECENT_BLOCKS = 10;

/**
 * The density whose largest store fits DISK_SHARE of the free space where `dir` lives, at most 1, two significant
 * digits (rounded down).
 */
function fittingDensity(dir: string, largest: number): { density: number; freeBytes: number } {
  mkdirSync(dirname(dir), { recursive: true });
  const fs = statfsSync(dirname(dir));
  const freeBytes = fs.bavail * fs.bsize;
  const raw = (DISK_SHARE * freeBytes) / (largest * BYTES_PER_BLOCK_AT_DENSITY_1);
  const scale = 10 ** (Math.floor(Math.log10(raw)) - 1);
  return { density: Math.min(MAX_DENSITY, Math.floor(raw / scale) * scale), freeBytes };
}

/** Runs `ethlogd args…` to its end; throws with its output when it fails. */
function cli(args: string[]): string {
  const r = spawnSync(process.execPath, ['dist/src/cli.js', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`ethlogd ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/**
 * One JSON-RPC call over HTTP (uncompressed): milliseconds from sending `body` until the answer's last byte, the
 * answer's size and its result; throws on an error answer or a null result.
 */
function call(url: string, body: string): Promise<{ ms: number; bytes: number; result: unknown }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks);
          const answer = JSON.parse(text.toString()) as { result?: unknown; error?: { message: string } };
          if (answer.result === undefined || answer.result === null)
            reject(new Error(`${body} answered ${JSON.stringify(answer)}`));
          else resolve({ ms, bytes: text.length, result: answer.result });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Milliseconds of one eth_getLogs call, and its answer's log count. */
async function timedQuery(url: string, body: string): Promise<{ ms: number; logs: number }> {
  const { ms, result } = await call(url, body);
  return { ms, logs: (result as unknown[]).length };
}

/**
 * Random point lookups over the whole chain: transactions of random blocks by hash, and slots of random blocks' writes
 * at random later blocks. A block's writes come from the generator (the chain's seed and `density`): a frozen block
 * keeps no list of them, so sampling the stored lists would pick only the recent blocks'.
 */
function lookupSamples(
  reader: StoreReader,
  head: number,
  density: number,
  seed = 0x2545f491,
): { txs: string[]; slots: string[] } {
  const random = (n: number) => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return seed % n;
  };
  const txs: string[] = [];
  const slots: string[] = [];
  for (
    let tries = 0;
    (txs.length < POINT_LOOKUPS || slots.length < POINT_LOOKUPS) && tries < 100 * POINT_LOOKUPS;
    tries++
  ) {
    const n = random(head + 1);
    const hashes = reader.txHashes(n);
    if (hashes.length > 0 && txs.length < POINT_LOOKUPS) {
      txs.push(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_getTransactionByHash',
          params: [bytesToHex(hashes[random(hashes.length)]!)],
        }),
      );
    }
    if (slots.length >= POINT_LOOKUPS) continue;
    const writes = (generateChain({ blocks: 1, seed: SEED, density, startNumber: n }).next().value as BlockBundle)
      .storage;
    if (writes.length === 0) continue;
    const write = writes[random(writes.length)]!;
    slots.push(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getStorageAt',
        params: [bytesToHex(write.address), bytesToHex(write.slot), quantityToHex(n + random(head - n + 1))],
      }),
    );
  }
  return { txs, slots };
}

/**
 * Runs `ethlogd generate …` to its end, reading its disk writes (write_bytes of /proc/PID/io) as it goes; returns its
 * output and the bytes.
 */
function generateWithIo(args: string[]): Promise<{ stdout: string; writeBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/cli.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let writeBytes = 0;
    const poll = () => {
      const io = /write_bytes:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/io`, 'utf8'))?.[1];
      if (io !== undefined) writeBytes = Number(io);
    };
    const timer = setInterval(() => {
      try {
        poll();
      } catch {
        // The process has just ended: the last reading stands.
      }
    }, IO_POLL_MS);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`ethlogd ${args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve({ stdout, writeBytes });
    });
  });
}

/** A resident-memory field of process `pid` (VmRSS, RssAnon), in MiB (Linux /proc). */
function rssMiB(pid: number, field: 'VmRSS' | 'RssAnon'): number {
  const kib = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

/** One wrk -t1 -c1 load of `bodies` on GENERATOR_CPU: one pass of them when `onePass`, else `seconds` of them. */
async function lookupLoad(
  url: string,
  pid: number,
  bodies: string[],
  onePass: boolean,
  seconds = WARM_SECONDS,
): Promise<Latency> {
  const faultsBefore = majorFaults(pid);
  const script = wrkScript(bodies, undefined, { check: true, stopAfter: onePass ? bodies.length : undefined });
  const r = parseWrk(
    await (onePass ? runWrkPass(url, script, COLD_PASS_LIMIT_SECONDS) : runWrk(url, script, seconds, 1, true)),
  );
  if (r.bad > 0) throw new Error(`${r.bad} of ${r.requests} point lookups failed (${bodies[0]}, …)`);
  if (onePass && r.requests < bodies.length) throw new Error(`a cold pass ended after ${r.requests} lookups`);
  return { p50: r.p50Ms, p99: r.p99Ms, p999: r.p999Ms, majorFaults: majorFaults(pid) - faultsBefore };
}

/**
 * The point lookups as the load benchmarks measure: the server (all its threads) pinned to SERVER_CPU and wrk, one
 * connection, on GENERATOR_CPU, so no client shares the server's core or adds pauses of its own to the tail. Each
 * kind's samples once (cold: each call's first) and then for WARM_SECONDS; then the controls.
 */
async function measureLookups(
  url: string,
  pid: number,
  samples: { txs: string[]; slots: string[] },
  txAnswerBytes: number,
): Promise<Record<LookupName, Latency>> {
  // The long-range queries after these run with the server on every core again (the scan pool's threads in parallel).
  const serverCpus = affinity(pid);
  pin(pid, SERVER_CPU);
  // This process (idle while wrk runs, but for its own threads) keeps off the server's core too; the sizes after this
  // one generate in children that inherit its CPUs, so it gets them back.
  const own = affinity(process.pid);
  pin(process.pid, GENERATOR_CPU);
  const bare = await startChild(['dist/native-free-bench/bareServer.js', String(txAnswerBytes)], SERVER_CPU);
  try {
    const chainId = [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' })];
    await lookupLoad(url, pid, chainId, false, PINNED_WARMUP_SECONDS);
    const txCold = await lookupLoad(url, pid, samples.txs, true);
    const txWarm = await lookupLoad(url, pid, samples.txs, false);
    const storageCold = await lookupLoad(url, pid, samples.slots, true);
    const storageWarm = await lookupLoad(url, pid, samples.slots, false);
    const chainIdWarm = await lookupLoad(url, pid, chainId, false);
    const bareWarm = await lookupLoad(`http://127.0.0.1:${bare.port}/`, bare.pid, samples.txs, false);
    return { txCold, txWarm, storageCold, storageWarm, chainIdWarm, bareWarm };
  } finally {
    await bare.stop();
    pin(process.pid, own);
    pin(pid, serverCpus);
  }
}

/** Serves the store in `dir`, times the point lookups, then the long-range queries, and reads the memory it holds. */
async function measureServe(dir: string, head: number, density: number, reps: number): Promise<Served> {
  const store = openStore(dir);
  const key = createApiKey(store, 'bench-scale');
  const reader = new StoreReader(store);
  const samples = lookupSamples(reader, head, density);
  const warmup = lookupSamples(reader, head, density, SERVER_WARMUP_SEED);
  const headHash = bytesToHex(reader.header(head)!.hash);
  // The realtime range asks for the contract of the newest log at or below the head.
  let newest = head;
  while (newest > 0 && reader.logs(newest).length === 0) newest--;
  const busy = bytesToHex(reader.logs(newest).at(-1)?.address ?? rareAddress(SEED));
  await closeStore(store);
  const server = await startChild([
    'dist/src/cli.js',
    'serve',
    '--data',
    dir,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--access-log',
    'off',
    '--answer-cache-mb',
    '0',
    '--max-log-results',
    String(MAX_LOG_RESULTS),
    '--log-timeout-ms',
    String(LOG_TIMEOUT_MS),
  ]);
  try {
    const url = `http://127.0.0.1:${server.port}/v3/${key}`;
    // The point lookups first: the long-range queries' answers (1.3 MB each for the rare address) leave the heap
    // a major collection that runs through the next seconds, and a lookup's warm p99 in them is 1.0 ms against 0.6.
    let txBytes = 0;
    for (const body of warmup.txs) txBytes += (await call(url, body)).bytes;
    for (const body of warmup.slots) await call(url, body);
    const txAnswerBytes = Math.round(txBytes / warmup.txs.length);
    const lookups = await measureLookups(url, server.pid, samples, txAnswerBytes);
    const rare = bytesToHex(rareAddress(SEED));
    const range = { fromBlock: '0x0', toBlock: quantityToHex(head) };
    const filters: Record<QueryName, object> = {
      address: { ...range, address: rare },
      addressTopic: { ...range, address: rare, topics: [bytesToHex(ANSWER_UPDATED_TOPIC)] },
      sparse: { ...range, address: '0x' + 'de'.repeat(20) },
      recent: {
        fromBlock: quantityToHex(Math.max(0, head - RECENT_BLOCKS + 1)),
        toBlock: quantityToHex(head),
        address: busy,
      },
      byHash: { blockHash: headHash },
    };
    const query = {} as NonNullable<SizeResult['query']>;
    for (const [name, filter] of Object.entries(filters) as [QueryName, object][]) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
      for (let i = 0; i < WARMUP_QUERIES; i++) await timedQuery(url, body);
      const times: number[] = [];
      let logs = 0;
      for (let i = 0; i < reps; i++) {
        const t = await timedQuery(url, body);
        times.push(t.ms);
        logs = t.logs;
      }
      query[name] = { p50: percentile(times, 50), p99: percentile(times, 99), logs };
    }
    return {
      serveRssMiB: rssMiB(server.pid, 'VmRSS'),
      serveAnonMiB: rssMiB(server.pid, 'RssAnon'),
      query,
      lookups,
      txAnswerBytes,
    };
  } finally {
    await server.stop();
  }
}

/** Generates (or extends) the store in `dir` to `blocks` blocks and measures every figure at that size. */
async function measureSize(
  dir: string,
  blocks: number,
  density: number,
  reps: number,
  logsBefore: number,
  full: boolean,
  verify: boolean,
): Promise<SizeResult> {
  const bytesBefore = existsSync(join(dir, STORE_DATA_FILE)) ? storeDiskBytes(dir) : 0;
  const { stdout: out, writeBytes } = await generateWithIo([
    'generate',
    '--out',
    dir,
    '--blocks',
    String(blocks),
    '--density',
    String(density),
    '--seed',
    SEED,
  ]);
  const summary = /^generated \d+ blocks, \d+ transactions, (\d+) logs in .* \((\d+) logs\/s; /.source;
  const generated = new RegExp(`${summary}the writer's transactions .* s, (\\d+) logs\\/s\\)`, 'm').exec(out);
  if (!generated) throw new Error(`generate printed no summary: ${out}`);
  const logs = logsBefore + Number(generated[1]);
  const measured = {
    blocks,
    logs,
    generateLogsPerSecond: Number(generated[2]),
    writerLogsPerSecond: Number(generated[3]),
    writtenBytesPerLog: writeBytes / Number(generated[1]),
    grownBytesPerLog: (storeDiskBytes(dir) - bytesBefore) / Number(generated[1]),
    bytesPerLog: storeDiskBytes(dir) / logs,
  };
  // verify at every size, each run checking what the last size added (its mark is kept in the store directory).
  let checked: SizeResult = measured;
  if (verify) {
    const started = performance.now();
    cli(['verify', '--data', dir]);
    const verifySeconds = (performance.now() - started) / 1000;
    checked = { ...measured, verifySeconds, verifyLogsPerSecond: Number(generated[1]) / verifySeconds };
  }
  if (!full) return checked;
  return { ...checked, ...(await measureServe(dir, blocks - 1, density, reps)) };
}

/** The table rows of one size. */
function rowsOf(r: SizeResult): Row[] {
  const at = `${r.blocks} blocks`;
  const growth: Row[] = [
    { figure: `${at}: generate (the blocks added to reach this size)`, ours: r.generateLogsPerSecond, unit: 'logs/s' },
    {
      figure: `${at}: the write path alone (logs added per second in generate's write transactions)`,
      ours: r.writerLogsPerSecond,
      unit: 'logs/s',
    },
    {
      figure:
        `${at}: disk bytes generate wrote per log added (write_bytes; the file grew ` +
        `${r.grownBytesPerLog.toFixed(0)} B/log: ${(r.writtenBytesPerLog / r.grownBytesPerLog).toFixed(2)}×)`,
      ours: r.writtenBytesPerLog,
      unit: 'B/log',
    },
    { figure: `${at}: store file per log (${r.logs} logs)`, ours: r.bytesPerLog, unit: 'B/log' },
  ];
  if (r.verifySeconds !== undefined && r.verifyLogsPerSecond !== undefined) {
    growth.push({
      figure: `${at}: verify of the logs added since the last size (${r.verifySeconds.toFixed(1)} s)`,
      ours: r.verifyLogsPerSecond,
      unit: 'logs/s',
    });
  }
  const { query, lookups, serveAnonMiB, serveRssMiB, txAnswerBytes } = r;
  if (!query || !lookups || serveAnonMiB === undefined || serveRssMiB === undefined || txAnswerBytes === undefined)
    return growth;
  return [...growth, ...servedRows(r.blocks, { query, lookups, serveAnonMiB, serveRssMiB, txAnswerBytes })];
}

/** The figures measured against `serve` at one size. */
type Served = Required<Pick<SizeResult, 'serveRssMiB' | 'serveAnonMiB' | 'query' | 'lookups' | 'txAnswerBytes'>>;

/** The table rows of what was measured against `serve` on a store of `blocks` blocks. */
function servedRows(blocks: number, r: Served): Row[] {
  const at = `${blocks} blocks`;
  const q = r.query;
  const l = r.lookups;
  const lookup = (name: string, x: Latency): Row => ({
    figure:
      `${at}: ${name}, p50 (p99 ${x.p99.toFixed(2)} ms, p99.9 ${x.p999.toFixed(2)} ms; ` +
      `${x.majorFaults} major faults)`,
    ours: x.p50,
    unit: 'ms',
  });
  const warm = `for ${WARM_SECONDS} s, warm`;
  return [
    lookup(`eth_getTransactionByHash, ${POINT_LOOKUPS} random hashes once, cold`, l.txCold),
    lookup(`eth_getTransactionByHash, the same hashes ${warm}`, l.txWarm),
    lookup(`eth_getStorageAt, ${POINT_LOOKUPS} random slots at random blocks once, cold`, l.storageCold),
    lookup(`eth_getStorageAt, the same ${warm}`, l.storageWarm),
    lookup(`control: eth_chainId on the same server ${warm}`, l.chainIdWarm),
    lookup(`control: a bare uWebSockets.js server answering ${r.txAnswerBytes} B ${warm}`, l.bareWarm),
    {
      figure:
        `${at}: serve's resident memory after the queries (its own, RssAnon: ` +
        `${r.serveAnonMiB.toFixed(0)} MiB; the rest the store's mapped pages)`,
      ours: r.serveRssMiB,
      unit: 'MiB',
    },
    {
      figure:
        `${at}: eth_getLogs, one address (~1% of blocks, ${q.address.logs} logs) ` +
        `over the whole chain, p50 (p99 ${q.address.p99.toFixed(1)} ms)`,
      ours: q.address.p50,
      unit: 'ms',
    },
    {
      figure:
        `${at}: eth_getLogs, that address + its topic0 (${q.addressTopic.logs} logs) ` +
        `over the whole chain, p50 (p99 ${q.addressTopic.p99.toFixed(1)} ms)`,
      ours: q.addressTopic.p50,
      unit: 'ms',
    },
    {
      figure:
        `${at}: eth_getLogs, an absent address over the whole chain (p50 ` +
        `${q.sparse.p50.toFixed(1)} ms, p99 ${q.sparse.p99.toFixed(1)} ms)`,
      ours: blocks / (q.sparse.p50 / 1000),
      unit: 'blocks/s',
      target: { kind: 'min', value: 20_000_000, text: '≥ 20M blocks/s at 1M blocks' },
    },
    {
      figure:
        `${at}: eth_getLogs, the last ${RECENT_BLOCKS} blocks for one contract (` +
        `${q.recent.logs} logs), p50 (p99 ${q.recent.p99.toFixed(2)} ms)`,
      ours: q.recent.p50,
      unit: 'ms',
    },
    {
      figure:
        `${at}: eth_getLogs, the head block by hash (${q.byHash.logs} ` +
        `logs), p50 (p99 ${q.byHash.p99.toFixed(2)} ms)`,
      ours: q.byHash.p50,
      unit: 'ms',
    },
  ];
}

/** The charts: each figure against the chain length. */
function panelsOf(results: SizeResult[]): Panel[] {
  // A size without the figure (verify left out) has no point.
  const series = (title: string, unit: string, value: (r: SizeResult) => number | undefined): Panel => ({
    title,
    unit,
    points: results.flatMap((r) => {
      const v = value(r);
      return v === undefined ? [] : [{ blocks: r.blocks, value: v }];
    }),
  });
  const full = results.filter((r) => r.query !== undefined);
  const served = (title: string, unit: string, value: (r: Required<SizeResult>) => number): Panel => ({
    title,
    unit,
    points: full.map((r) => ({ blocks: r.blocks, value: value(r as Required<SizeResult>) })),
  });
  return [
    series('generate', 'logs/s', (r) => r.generateLogsPerSecond),
    series('write path alone (in generate)', 'logs/s', (r) => r.writerLogsPerSecond),
    series('disk bytes written per log added', 'B', (r) => r.writtenBytesPerLog),
    series('store file per log', 'B', (r) => r.bytesPerLog),
    served('serve resident memory', 'MiB', (r) => r.serveRssMiB),
    served('serve own memory (RssAnon)', 'MiB', (r) => r.serveAnonMiB),
    served('tx by hash, warm, p99', 'ms', (r) => r.lookups.txWarm.p99),
    served('one address, whole chain, p50', 'ms', (r) => r.query.address.p50),
    served('address + topic0, whole chain, p50', 'ms', (r) => r.query.addressTopic.p50),
    served('absent address, whole chain', 'blocks/s', (r) => r.blocks / (r.query.sparse.p50 / 1000)),
    served(`last ${RECENT_BLOCKS} blocks, one contract, p50`, 'ms', (r) => r.query.recent.p50),
    served('head block by hash, p50', 'ms', (r) => r.query.byHash.p50),
    series('verify of the logs added', 'logs/s', (r) => r.verifyLogsPerSecond),
  ].filter((panel) => panel.points.length > 0);
}

/** The results directory of the benchmarks. */
const RESULTS = 'native-free-bench/results';

/**
 * --serve-only: measures what `serve` answers on the store in `dir` as it is (generated by an earlier run at `density`;
 * neither extended nor deleted), into results/scale-serve.*.
 */
async function serveOnly(dir: string, density: number, reps: number): Promise<void> {
  if (!existsSync(join(dir, STORE_DATA_FILE))) throw new Error(`--serve-only: no store in ${dir}`);
  const store = openStore(dir);
  const head = new StoreReader(store).meta()?.head;
  await closeStore(store);
  if (head === undefined) throw new Error(`--serve-only: the store in ${dir} holds no blocks`);
  const served = await measureServe(dir, head, density, reps);
  const md = `Machine: ${machine()}\n\nDensity ${density}, seed "${SEED}", the store in ${dir} as it was\n\n${table(
    servedRows(head + 1, served),
  )}\n`;
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    join(RESULTS, 'scale-serve.json'),
    `${JSON.stringify(
      { date: new Date().toISOString(), machine: machine(), density, seed: SEED, blocks: head + 1, served },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(RESULTS, 'scale-serve.md'), md);
  console.log(`${md}\nresults in ${RESULTS}/scale-serve.{json,md}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      blocks: { type: 'string' },
      density: { type: 'string' },
      dir: { type: 'string' },
      reps: { type: 'string' },
      'measure-all': { type: 'boolean' },
      'no-verify': { type: 'boolean' },
      'serve-only': { type: 'boolean' },
    },
  });
  if (!hasWrk()) throw new Error('the point lookups need wrk (apt-get install wrk): one connection on its own core');
  const last = Number(values.blocks ?? DEFAULT_BLOCKS);
  if (!Number.isSafeInteger(last) || last < STEPS)
    throw new Error(`--blocks: a block count of at least ${STEPS}, not ${values.blocks}`);
  const tenths = Array.from({ length: STEPS }, (_, i) => Math.round(((i + 1) * last) / STEPS));
  const sizes =
    values.sizes === undefined
      ? values.blocks === undefined
        ? DEFAULT_SIZES
        : tenths
      : values.sizes.split(',').map(Number);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`--sizes: positive block counts, comma-separated, not ${values.sizes}`);
  sizes.sort((a, b) => a - b);
  const dir = values.dir ?? 'data/scale';
  const reps = Number(values.reps ?? DEFAULT_REPS);
  if (values['serve-only'] === true) return serveOnly(dir, Number(values.density ?? MAX_DENSITY), reps);
  // Mainnet density unless given; the disk it needs is printed beside what is free.
  const largest = sizes[sizes.length - 1]!;
  const fitting = fittingDensity(dir, largest);
  const density = values.density === undefined ? MAX_DENSITY : Number(values.density);
  if (!(density > 0)) throw new Error(`--density: a positive number, not ${values.density}`);
  console.log(
    `scale benchmark: sizes ${sizes.join(', ')} blocks at density ${density} ` +
      `(${(fitting.freeBytes / 2 ** 30).toFixed(0)} GiB free: ${largest} blocks take about ` +
      `${((largest * density * BYTES_PER_BLOCK_AT_DENSITY_1) / 2 ** 30).toFixed(1)} GiB at the old ` +
      `layout's size; the largest density that fits half: ${fitting.density}); store in ${dir}`,
  );
  rmSync(dir, { recursive: true, force: true });
  const results: SizeResult[] = [];
  for (const blocks of sizes) {
    const started = Date.now();
    results.push(
      await measureSize(
        dir,
        blocks,
        density,
        reps,
        results.at(-1)?.logs ?? 0,
        values['measure-all'] === true || blocks === largest,
        values['no-verify'] !== true,
      ),
    );
    console.log(
      `${table(rowsOf(results.at(-1)!))}\n(${blocks} blocks: ${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
    );
  }
  const rows = results.flatMap(rowsOf);
  const md = `Machine: ${machine()}\n\nDensity ${density}, seed "${SEED}"\n\n${table(rows)}\n`;
  const out = RESULTS;
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'scale.json'),
    JSON.stringify({ date: new Date().toISOString(), machine: machine(), density, seed: SEED, results }, null, 2) +
      '\n',
  );
  writeFileSync(join(out, 'scale.md'), md);
  writeFileSync(join(out, 'scale.svg'), panelsSvg(panelsOf(results)));
  console.log(`${md}\nresults in ${out}/scale.{json,md,svg}`);
}

await main();
