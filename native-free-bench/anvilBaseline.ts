/**
 * The peer baseline: anvil and ethlogd serving the same chain. Anvil mines the integration tests'
 * workload (mixed transactions emitting logs and writing storage), runIngest copies that chain with
 * its storage diffs into a fresh store, our server serves the store, and both answer the same
 * request bodies, sampled from the ingested chain: throughput with autocannon (same settings for
 * both), one-client latency (requests interleaved between the two), and eth_getLogs latency over a
 * few selectivities. Both are first checked to answer alike (test/support/differ.ts). Anvil runs
 * with --no-mining, so it is idle apart from answering while measured.
 *
 *   node dist/native-free-bench/anvilBaseline.js [--blocks 300] [--seconds 2] [--runs 1]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Options } from 'autocannon';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { MAX_LOG_RESULTS } from '#src/config.js';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { encodeBlockKey, STORAGE_PREFIX_BYTES } from '#src/store/keys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { Anvil, batchCalls, type Call } from '../test/support/anvil.js';
import { ANVIL_EXTRAS, compareAnswers } from '../test/support/differ.js';
import { Workload } from '../test/support/workload.js';
import { startChild } from './http.js';
import { percentile, prng } from './logQueries.js';
import { type ChartData, type Row, table } from './report.js';

/** Options of the anvil comparison. */
export interface AnvilBenchOptions {
  /** Blocks anvil mines with the workload (the deployment block comes on top). */
  blocks: number;
  /** Seconds per autocannon run. */
  seconds: number;
  connections: number;
  /** Autocannon runs per figure and server; the median is reported. */
  runs: number;
  /** Sequential requests per method and server for the one-client latency figures. */
  latencyRequests: number;
  /** Repetitions of each eth_getLogs query per server. */
  logReps: number;
}

/** The anvil rows, the throughput bars of the chart, the chain measured and any answer that differed. */
export interface AnvilBenchResults {
  rows: Row[];
  throughput: ChartData['throughput'];
  chain: { blocks: number; txs: number; logs: number; mineSeconds: number; ingestSeconds: number };
  mismatches: string[];
}

/** Distinct request bodies per point-lookup method (autocannon cycles through them). */
const SAMPLES = 64;

/**
 * Uncompressed answers (node's fetch asks for gzip unless told): the figures measure the service, not zlib
 * (native-free-bench/compression.ts does).
 */
const JSON_HEADERS = { 'content-type': 'application/json', 'accept-encoding': 'identity' };
const TARGET_RPS = { kind: 'min', value: 1, ofRatio: true, text: '≥ 1× anvil' } as const;
const TARGET_LATENCY = { kind: 'max', value: 1, ofRatio: true, text: '≤ 1× anvil' } as const;

/** One measured method: its calls (the same bodies go to both servers) and the answer kind for the differ. */
export interface Method {
  name: string;
  kind: string;
  calls: Call[];
}

/** An eth_getLogs query of the comparison. */
interface LogQuery {
  label: string;
  filter: Record<string, unknown>;
}

const hex = quantityToHex;
const body = (c: Call, id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: c.method, params: c.params });

/** The key of the largest count that stays within the result cap (ties: the first). */
function busiest<K>(counts: Map<K, number>): K | undefined {
  let best: K | undefined;
  for (const [k, n] of counts) if (n <= MAX_LOG_RESULTS && (best === undefined || n > counts.get(best)!)) best = k;
  return best;
}

/** A transaction by its block number and index in the block. */
export interface TxPosition {
  n: number;
  i: number;
}

/** The eth_getStorageAt parameters [address, slot, block] of every slot block `n` wrote, at block `n`. */
export function writtenSlots(store: Store, n: number): string[][] {
  const prefixes = store.storageWrites.getBinary(encodeBlockKey(n));
  const slots: string[][] = [];
  for (let at = 0; prefixes && at < prefixes.length; at += STORAGE_PREFIX_BYTES) {
    slots.push([
      bytesToHex(prefixes.subarray(at, at + 20)),
      bytesToHex(prefixes.subarray(at + 20, at + STORAGE_PREFIX_BYTES)),
      hex(n),
    ]);
  }
  return slots;
}

/**
 * The five point-lookup methods: transactions by hash (`byHash`) and by block and index (`byIndex`),
 * blocks by number with hashes and with full transactions (`numbers`), and written `slots`.
 */
export function lookupMethods(
  reader: StoreReader,
  at: { byHash: TxPosition[]; numbers: number[]; byIndex: TxPosition[]; slots: string[][] },
): Method[] {
  return [
    {
      name: 'eth_getTransactionByHash',
      kind: 'transaction',
      calls: at.byHash.map(({ n, i }) => ({
        method: 'eth_getTransactionByHash',
        params: [bytesToHex(reader.txHash(n, i)!)],
      })),
    },
    {
      name: 'eth_getBlockByNumber (hashes)',
      kind: 'block',
      calls: at.numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
    },
    {
      name: 'eth_getBlockByNumber (full txs)',
      kind: 'block',
      calls: at.numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] })),
    },
    {
      name: 'eth_getTransactionByBlockNumberAndIndex',
      kind: 'transaction',
      calls: at.byIndex.map(({ n, i }) => ({
        method: 'eth_getTransactionByBlockNumberAndIndex',
        params: [hex(n), hex(i)],
      })),
    },
    {
      name: 'eth_getStorageAt (a written slot, at the block that wrote it)',
      kind: 'storage',
      calls: at.slots.map((params) => ({ method: 'eth_getStorageAt', params })),
    },
  ];
}

/**
 * Samples the request parameters from the ingested store: real transactions, blocks, written slots, log addresses and
 * topics.
 */
export function sampleRequests(
  store: Store,
  head: number,
): { methods: Method[]; logQueries: LogQuery[]; txs: number; logs: number } {
  const reader = new StoreReader(store);
  const rand = prng(head);
  const withTxs: { n: number; count: number }[] = [];
  const written: number[] = [];
  const byAddress = new Map<string, number>();
  const byTopic = new Map<string, number>();
  const byPair = new Map<string, number>();
  const emitters = new Map<string, Set<string>>();
  let txs = 0;
  let logs = 0;
  for (let n = 0; n <= head; n++) {
    const count = reader.txHashes(n).length;
    txs += count;
    if (count > 0) withTxs.push({ n, count });
    if (store.storageWrites.getBinary(encodeBlockKey(n))) written.push(n);
    for (const log of reader.logs(n)) {
      logs++;
      const address = bytesToHex(log.address);
      byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
      if (log.topics.length === 0) continue;
      const topic = bytesToHex(log.topics[0]!);
      byTopic.set(topic, (byTopic.get(topic) ?? 0) + 1);
      byPair.set(`${address} ${topic}`, (byPair.get(`${address} ${topic}`) ?? 0) + 1);
      emitters.set(topic, (emitters.get(topic) ?? new Set()).add(address));
    }
  }
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)]!;
  const positions = () =>
    Array.from({ length: SAMPLES }, () => {
      const { n, count } = pick(withTxs);
      return { n, i: Math.floor(rand() * count) };
    });
  const numbers = Array.from({ length: SAMPLES }, () => 1 + Math.floor(rand() * head));
  const slots = Array.from({ length: SAMPLES }, () => pick(writtenSlots(store, pick(written))));
  const methods = lookupMethods(reader, { byHash: positions(), numbers, byIndex: positions(), slots });

  const whole = { fromBlock: '0x0', toBlock: hex(head) };
  const address = busiest(byAddress)!;
  const [pairAddress, pairTopic] = busiest(byPair)!.split(' ');
  const widest = [...emitters]
    .filter(([t]) => byTopic.get(t)! <= MAX_LOG_RESULTS)
    .sort(([a, x], [b, y]) => y.size - x.size || byTopic.get(b)! - byTopic.get(a)!)[0]![0];
  const recent = Math.min(100, head + 1);
  const logQueries: LogQuery[] = [
    {
      label:
        'one contract over the whole chain (the busiest under the ' +
        `${MAX_LOG_RESULTS}-log cap, ${byAddress.get(address)} logs)`,
      filter: { ...whole, address },
    },
    {
      label: `address + topic0 over the whole chain (${byPair.get(`${pairAddress} ${pairTopic}`)} logs)`,
      filter: { ...whole, address: pairAddress, topics: [pairTopic] },
    },
    {
      label:
        'a topic0 alone over the whole chain (emitted by ' +
        `${emitters.get(widest)!.size} contracts, ${byTopic.get(widest)} logs)`,
      filter: { ...whole, topics: [widest] },
    },
    {
      label: `the same contract, last ${recent} blocks`,
      filter: { fromBlock: hex(head + 1 - recent), toBlock: hex(head), address },
    },
  ];
  return { methods, logQueries, txs, logs };
}

/**
 * After 8 warm-up requests to each, times `count` sequential requests per endpoint, each the next of
 * `bodies` sent to both (which goes first alternates); returns the latencies (ms) by endpoint.
 */
async function sequential(urls: [string, string], bodies: string[], count: number): Promise<[number[], number[]]> {
  const times: [number[], number[]] = [[], []];
  const post = async (url: string, b: string) =>
    (await fetch(url, { method: 'POST', headers: JSON_HEADERS, body: b })).text();
  for (let i = 0; i < 8; i++) for (const url of urls) await post(url, bodies[i % bodies.length]!);
  for (let i = 0; i < count; i++) {
    const b = bodies[i % bodies.length]!;
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = performance.now();
      await post(urls[k]!, b);
      times[k]!.push(performance.now() - t);
    }
  }
  return times;
}

/** Mines the chain on anvil, ingests it, serves it, checks both answer alike, and measures both. */
export async function measureAnvil(o: AnvilBenchOptions): Promise<AnvilBenchResults> {
  const anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-bench-anvil-'));
  try {
    let started = performance.now();
    const workload = await Workload.deploy(anvil);
    await workload.mine(o.blocks, { min: 4, max: 10, special: false });
    const mineSeconds = (performance.now() - started) / 1000;
    const head = await anvil.head();
    started = performance.now();
    const ingested = await runIngest({
      rpc: anvil.url,
      dataDir: dir,
      storage: 'prestate',
      logger: createLogger('warn'),
    });
    const ingestSeconds = (performance.now() - started) / 1000;
    if (ingested.head !== head) throw new Error(`ingested up to block ${ingested.head}, anvil's head is ${head}`);
    const store = openStore(dir);
    const key = createApiKey(store, 'bench');
    const { methods, logQueries, txs, logs } = sampleRequests(store, head);
    await closeStore(store);
    console.log(
      `  anvil chain: ${head + 1} blocks, ${txs} txs, ${logs} logs (mined in ` +
        `${mineSeconds.toFixed(1)} s, ingested with storage diffs in ${ingestSeconds.toFixed(1)} s)`,
    );

    // The answer cache off: these rows repeat each call, and compare the work of answering it with anvil's.
    const ours = await startChild([
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
    ]);
    try {
      const urls: [string, string] = [`http://127.0.0.1:${ours.port}/v3/${key}`, anvil.url];
      const mismatches: string[] = [];
      for (const m of methods) {
        mismatches.push(...(await compareAnswers(urls[0], urls[1], m.kind, m.calls, ANVIL_EXTRAS)));
        const failed = (await batchCalls(urls[0], m.calls)).filter((r) => r.error || r.result === null).length;
        if (failed > 0)
          mismatches.push(`${m.name}: ${failed} of ${m.calls.length} sampled calls answered with an error or null`);
      }
      for (const q of logQueries)
        mismatches.push(
          ...(await compareAnswers(
            urls[0],
            urls[1],
            'log',
            [{ method: 'eth_getLogs', params: [q.filter] }],
            ANVIL_EXTRAS,
          )),
        );
      if (mismatches.length > 0) {
        console.log(
          `  anvil and ethlogd answer differently (${mismatches.length} differences; figures compare unlike answers):`,
        );
        for (const line of mismatches.slice(0, 10)) console.log(`    ${line}`);
      } else console.log('  anvil and ethlogd answer every sampled request alike');

      const rows: Row[] = [];
      const chain = `${head + 1}-block anvil chain`;
      const load = async (url: string, requests: Options['requests']) => {
        const results = [];
        for (let i = 0; i < o.runs; i++)
          results.push(
            await autocannon({
              url,
              connections: o.connections,
              duration: o.seconds,
              method: 'POST',
              headers: JSON_HEADERS,
              requests,
            }),
          );
        const bad = results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0);
        return {
          rps: percentile(
            results.map((r) => r.requests.average),
            50,
          ),
          bad,
        };
      };
      const throughput: ChartData['throughput'] = [];
      for (const m of methods) {
        const bodies = m.calls.map(body);
        const requests = bodies.map((b) => ({ body: b }));
        // The one-client loop comes first: it also warms both servers up for autocannon.
        const [oursMs, anvilMs] = await sequential(urls, bodies, o.latencyRequests);
        const [mine, theirs] = [await load(urls[0], requests), await load(urls[1], requests)];
        rows.push(
          {
            figure:
              `${m.name} vs anvil (${SAMPLES} distinct requests, ` +
              `${chain}, ${o.connections} keep-alive connections)`,
            ours: mine.rps,
            unit: 'req/s',
            baseline: theirs.rps,
            baselineName: 'anvil, same requests',
            target: TARGET_RPS,
            note:
              mine.bad + theirs.bad > 0
                ? `errors, timeouts or non-2xx answers: ours ${mine.bad}, anvil ${theirs.bad}`
                : undefined,
          },
          {
            figure:
              `${m.name} vs anvil, one client, p50 (p99 ours ${percentile(oursMs, 99).toFixed(2)} ` +
              `ms, anvil ${percentile(anvilMs, 99).toFixed(2)} ms)`,
            ours: percentile(oursMs, 50),
            unit: 'ms',
            baseline: percentile(anvilMs, 50),
            baselineName: 'anvil, same requests',
            target: TARGET_LATENCY,
            note: `${o.latencyRequests} sequential requests to each, alternating between the two`,
          },
        );
        if (m.name === 'eth_getTransactionByHash')
          throughput.push({ name: 'ethlogd, peer', rps: mine.rps }, { name: 'anvil, peer', rps: theirs.rps });
      }
      for (const q of logQueries) {
        const [oursMs, anvilMs] = await sequential(
          urls,
          [body({ method: 'eth_getLogs', params: [q.filter] }, 1)],
          o.logReps,
        );
        rows.push({
          figure:
            `eth_getLogs vs anvil: ${q.label}, one client, p50 (p99 ours ` +
            `${percentile(oursMs, 99).toFixed(1)} ms, anvil ${percentile(anvilMs, 99).toFixed(1)} ms)`,
          ours: percentile(oursMs, 50),
          unit: 'ms',
          baseline: percentile(anvilMs, 50),
          baselineName: 'anvil, same filter',
          target: TARGET_LATENCY,
          note: `${o.logReps} sequential requests to each, alternating between the two`,
        });
      }
      return { rows, throughput, chain: { blocks: head + 1, txs, logs, mineSeconds, ingestSeconds }, mismatches };
    } finally {
      await ours.stop();
    }
  } finally {
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { blocks: { type: 'string' }, seconds: { type: 'string' }, runs: { type: 'string' } },
  });
  const { rows } = await measureAnvil({
    blocks: Number(values.blocks ?? 300),
    seconds: Number(values.seconds ?? 2),
    connections: 50,
    runs: Number(values.runs ?? 1),
    latencyRequests: 300,
    logReps: 20,
  });
  console.log(table(rows));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
