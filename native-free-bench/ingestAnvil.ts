/**
 * Ingest throughput from a real node: anvil mines a chain (the integration tests' workload: mixed
 * transactions, several logs per block), then runIngest copies it into fresh stores — with storage
 * diffs (prestateTracer) and without — and a fetch-only pass asks the node the same batches without
 * normalising or storing. Prints blocks/s, logs/s and the CPU seconds of anvil and of ingest, which
 * show what bounds the rate.
 *
 * node dist/native-free-bench/ingestAnvil.js [--blocks 3000] [--min-txs 4] [--max-txs 10] [--in-flight 8]
 * [--blocks-per-request 10]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { quantityToHex } from '#src/chain/hex.js';
import { INGEST_BLOCKS_PER_REQUEST, INGEST_REQUESTS_IN_FLIGHT } from '#src/config.js';
import { runIngest } from '#src/ingest/ingest.js';
import { type RpcCall, RpcClient } from '#src/ingest/rpcClient.js';
import { createLogger } from '#src/logger.js';
import { Anvil } from '../test/support/anvil.js';
import { Workload } from '../test/support/workload.js';

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `body`, returning its wall seconds and the CPU seconds anvil and this process spent. */
async function measure(
  anvil: Anvil,
  body: () => Promise<void>,
): Promise<{ wall: number; anvilCpu: number; ourCpu: number }> {
  const anvilBefore = cpuSeconds(anvil.pid);
  const ourBefore = process.cpuUsage();
  const started = performance.now();
  await body();
  const wall = (performance.now() - started) / 1000;
  const our = process.cpuUsage(ourBefore);
  return { wall, anvilCpu: cpuSeconds(anvil.pid) - anvilBefore, ourCpu: (our.user + our.system) / 1e6 };
}

/** Asks the node for blocks [0, head] as ingest does (block, receipts, optionally traces), discarding the answers. */
async function fetchOnly(
  url: string,
  head: number,
  traced: boolean,
  perRequest: number,
  inFlight: number,
): Promise<void> {
  const client = new RpcClient(url, { maxInFlight: inFlight });
  const requests: Promise<unknown>[] = [];
  for (let from = 0; from <= head; from += perRequest) {
    const calls: RpcCall[] = [];
    for (let n = from; n <= Math.min(head, from + perRequest - 1); n++) {
      calls.push(
        { method: 'eth_getBlockByNumber', params: [quantityToHex(n), true] },
        { method: 'eth_getBlockReceipts', params: [quantityToHex(n)] },
      );
      if (traced)
        calls.push({
          method: 'debug_traceBlockByNumber',
          params: [quantityToHex(n), { tracer: 'prestateTracer', tracerConfig: { diffMode: true, disableCode: true } }],
        });
    }
    requests.push(client.batch(calls));
  }
  await Promise.all(requests);
}

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '3000' },
    'min-txs': { type: 'string', default: '4' },
    'max-txs': { type: 'string', default: '10' },
    'in-flight': { type: 'string', default: String(INGEST_REQUESTS_IN_FLIGHT) },
    'blocks-per-request': { type: 'string', default: String(INGEST_BLOCKS_PER_REQUEST) },
  },
});
const blocks = Number(values.blocks);
const inFlight = Number(values['in-flight']);
const perRequest = Number(values['blocks-per-request']);

const anvil = await Anvil.start(['--no-mining']);
try {
  const workload = await Workload.deploy(anvil);
  const generated = await measure(anvil, () =>
    workload.mine(blocks, { min: Number(values['min-txs']), max: Number(values['max-txs']), special: false }),
  );
  const head = await anvil.head();
  const logs = (await anvil.rpc<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: quantityToHex(head) }])).length;
  console.log(
    `anvil mined ${head + 1} blocks with ${logs} logs (` +
      `${(logs / (head + 1)).toFixed(1)} per block) in ${generated.wall.toFixed(1)} s`,
  );
  console.log(
    `ingest settings: ${perRequest} blocks per request, ${inFlight} requests in ` +
      `flight; machine: ${(await import('node:os')).availableParallelism()} cores\n`,
  );
  const rows: string[][] = [['run', 'seconds', 'blocks/s', 'logs/s', 'anvil CPU s', 'ingest CPU s']];
  const row = (name: string, m: { wall: number; anvilCpu: number; ourCpu: number }) =>
    rows.push([
      name,
      m.wall.toFixed(2),
      ((head + 1) / m.wall).toFixed(0),
      (logs / m.wall).toFixed(0),
      m.anvilCpu.toFixed(2),
      m.ourCpu.toFixed(2),
    ]);
  for (const storage of ['prestate', 'none'] as const) {
    row(
      `fetch only, ${storage === 'prestate' ? 'with' : 'without'} traces`,
      await measure(anvil, () => fetchOnly(anvil.url, head, storage === 'prestate', perRequest, inFlight)),
    );
    const dir = mkdtempSync(join(tmpdir(), 'ethlogd-bench-ingest-'));
    try {
      row(
        `ingest --storage ${storage}`,
        await measure(anvil, async () => {
          const r = await runIngest({
            rpc: anvil.url,
            dataDir: dir,
            storage,
            tuning: { requestsInFlight: inFlight, blocksPerRequest: perRequest },
            logger: createLogger('warn'),
          });
          if (r.head !== head || r.logs !== logs)
            throw new Error(`ingested ${r.blocks} blocks and ${r.logs} logs, expected ${head + 1} and ${logs}`);
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const width = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(r.map((c, i) => (i === 0 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join('  '));
} finally {
  await anvil.stop();
}
