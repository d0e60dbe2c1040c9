/**
 * The cost of forwarding (serve --upstream): eth_call through ethlogd to anvil against eth_call to
 * anvil directly, the same bodies, so the difference is what ethlogd adds per call: its CPU time
 * (parsing, pinning the block tag, the upstream request and its answer, the reply) and the latency
 * of the extra hop.
 *
 * Anvil mines the integration tests' workload and `runIngest` copies the chain into a store; the
 * bodies call the Emitters' view functions at blocks of the chain, half of them at `latest` (which
 * ethlogd pins to its head, anvil's head too: it mines nothing meanwhile). Every body is first
 * checked to get the same answer both ways. The load generator is wrk pinned to core 0 (autocannon
 * in this process when wrk is missing), anvil and ethlogd pinned to core 1; per run: req/s, p50/p99
 * at `connections` keep-alive connections, and each process's CPU time per call (utime + stime of
 * /proc/PID/stat, every thread). Single calls, then batches of BATCH_CALLS calls.
 *
 *   node dist/native-free-bench/forwarding.js [--blocks 64] [--seconds 5] [--connections 32]
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { encodeFunctionData } from 'viem';
import { closeStore } from '#src/store/schema.js';
import { postJson, type Reply } from '../test/support/anvil.js';
import { contracts } from '../test/support/contracts.js';
import { GENERATOR_CPU, hasWrk, type Load, load, pin, SERVER_CPU, startPinned } from './pinnedLoad.js';
import { type Row, table } from './report.js';
import { fmtMs, fmtRps, withAnvilChain } from './smallRequests.js';

/** Options of the forwarding comparison. */
export interface ForwardBenchOptions {
  /** Blocks anvil mines with the workload (the deployment block comes on top). */
  blocks: number;
  /** Seconds of measured load per run (after one second of warm-up). */
  seconds: number;
  connections: number;
}

/** Distinct eth_call bodies the generator cycles through. */
const SAMPLES = 64;

/** Calls per body of the batched run: an indexer's batching transport sends tens at once. */
const BATCH_CALLS = 20;

/** The Emitter's storage the workload writes, read by view calls: its counter and a recipient's balance. */
function callBodies(emitters: string[], recipient: string, head: number): unknown[] {
  const { abi } = contracts().Emitter!;
  const counter = encodeFunctionData({ abi, functionName: 'counter' });
  const balance = encodeFunctionData({ abi, functionName: 'balances', args: [recipient as `0x${string}`] });
  return Array.from({ length: SAMPLES }, (_, i) => {
    const block = i % 2 === 0 ? 'latest' : '0x' + (1 + ((i * 7) % head)).toString(16);
    return {
      jsonrpc: '2.0',
      id: i,
      method: 'eth_call',
      params: [{ to: emitters[i % emitters.length], data: i % 4 < 2 ? counter : balance }, block],
    };
  });
}

/** The bodies of the batched run: BATCH_CALLS consecutive calls each. */
function batchBodies(calls: unknown[]): string[] {
  return calls.map((_, i) =>
    JSON.stringify(
      Array.from({ length: BATCH_CALLS }, (__, j) => ({ ...(calls[(i + j) % calls.length] as object), id: j })),
    ),
  );
}

/** The same answer both ways for every call, or the calls that differ. */
async function differences(ours: string, anvil: string, calls: unknown[]): Promise<string[]> {
  const [a, b] = (await Promise.all([postJson(ours, calls), postJson(anvil, calls)])) as [Reply[], Reply[]];
  return calls.flatMap((call, i) =>
    JSON.stringify(a[i]) === JSON.stringify(b[i])
      ? []
      : [`${JSON.stringify(call)}: ${JSON.stringify(a[i])} vs ${JSON.stringify(b[i])}`],
  );
}

/** The measured runs of one shape. */
interface Measured {
  name: string;
  calls: number;
  direct: Load;
  forwarded: Load;
}

/** The rows of one shape: req/s and p50 against anvil's, ethlogd's CPU per call. */
function rows(m: Measured, generator: string): Row[] {
  const note = `${generator}; µs per call of the request's ${m.calls} call${m.calls === 1 ? '' : 's'}`;
  return [
    {
      figure: `forwarded ${m.name}: req/s through ethlogd`,
      ours: m.forwarded.rps,
      unit: 'req/s',
      baseline: m.direct.rps,
      baselineName: 'anvil direct',
      note,
    },
    {
      figure: `forwarded ${m.name}: p50 through ethlogd`,
      ours: m.forwarded.p50Ms,
      unit: 'ms',
      baseline: m.direct.p50Ms,
      baselineName: 'anvil direct',
      note,
    },
    {
      figure: `forwarded ${m.name}: ethlogd CPU per call`,
      ours: m.forwarded.cpuUsBy[0]! / m.calls,
      unit: 'µs',
      baseline: m.direct.cpuUsBy[0]! / m.calls,
      baselineName: "anvil's per call",
      note,
    },
  ];
}

/** Mines and ingests the chain, checks the answers alike, and measures single and batched eth_call both ways. */
export async function measureForwarding(
  o: ForwardBenchOptions,
): Promise<{ rows: Row[]; table: string; mismatches: string[] }> {
  if (availableParallelism() < 2)
    throw new Error(
      'the forwarding section pins the load generator and the servers to two different cores: this machine has one',
    );
  const wrk = hasWrk();
  const generator = wrk
    ? `wrk -t1 -c${o.connections} on core ${GENERATOR_CPU}, anvil and ethlogd on core ${SERVER_CPU}`
    : `autocannon on core ${GENERATOR_CPU} (wrk is not installed), anvil and ethlogd on core ${SERVER_CPU}`;
  if (!wrk) execFileSync('taskset', ['-a', '-cp', GENERATOR_CPU, String(process.pid)], { stdio: 'ignore' });
  return withAnvilChain(o.blocks, 'bench-forward', async ({ anvil, dir, head, store, key }) => {
    await closeStore(store);
    // The deployment block: three Emitters, then the Factory.
    const emitters = (await anvil.rpc<{ contractAddress: string | null }[]>('eth_getBlockReceipts', ['0x1']))
      .flatMap((r) => (r.contractAddress === null ? [] : [r.contractAddress]))
      .slice(0, 3);
    const calls = callBodies(emitters, anvil.accounts[0]!, head);
    console.log(`  forwarding: ${head + 1}-block anvil chain, ${emitters.length} Emitters; ${generator}`);
    const ours = await startPinned(
      [
        'dist/src/cli.js',
        'serve',
        '--data',
        dir,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--log-level',
        'warn',
        '--upstream',
        anvil.url,
      ],
      SERVER_CPU,
      `/v3/${key}`,
    );
    try {
      const mismatches = await differences(ours.url, anvil.url, calls);
      if (mismatches.length > 0)
        console.log(`  anvil and ethlogd answer differently: ${mismatches.slice(0, 3).join('; ')}`);
      pin(anvil.pid, SERVER_CPU);
      const single = calls.map((c) => JSON.stringify(c));
      const measured: Measured[] = [];
      for (const [name, bodies, n] of [
        ['eth_call', single, 1],
        [`batches of ${BATCH_CALLS} eth_call`, batchBodies(calls), BATCH_CALLS],
      ] as const) {
        const direct = await load(anvil.url, [anvil.pid], [...bodies], o, wrk, true);
        const forwarded = await load(ours.url, [ours.pid, anvil.pid], [...bodies], o, wrk, true);
        measured.push({ name, calls: n, direct, forwarded });
        console.log(
          `  ${name}: anvil ${fmtRps(direct.rps)} req/s p50 ${fmtMs(direct.p50Ms)} ms; ` +
            `through ethlogd ${fmtRps(forwarded.rps)} req/s p50 ${fmtMs(forwarded.p50Ms)} ms; ` +
            `CPU µs per call: ethlogd ${(forwarded.cpuUsBy[0]! / n).toFixed(1)}, anvil ` +
            `${(forwarded.cpuUsBy[1]! / n).toFixed(1)} (direct ` +
            `${(direct.cpuUsBy[0]! / n).toFixed(1)}); bad ${direct.bad}/${forwarded.bad}`,
        );
      }
      const all = measured.flatMap((m) => rows(m, wrk ? 'wrk' : 'autocannon'));
      return { rows: all, table: table(all), mismatches };
    } finally {
      await ours.stop();
    }
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { blocks: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' } },
  });
  const result = await measureForwarding({
    blocks: Number(values.blocks ?? 64),
    seconds: Number(values.seconds ?? 5),
    connections: Number(values.connections ?? 32),
  });
  console.log(result.table);
  if (result.mismatches.length > 0) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
