/**
 * gRPC front benchmark against a store served by a child `ethlogd serve` process (so the client
 * does not share the server's main thread): unary calls/s (GetBlockByNumber and GetStorageAt at
 * random blocks, many calls in flight on one channel, beside the same calls over HTTP keep-alive as
 * the baseline) and
 * streamed logs/s (StreamLogs over a block range, read by a proto-loader client that decodes every
 * log, and by a client that only counts the encoded logs). It adds one API key, labelled `bench`,
 * to the store.
 *
 * node dist/native-free-bench/grpc.js --data data/bench [--seconds 5] [--concurrency 64] [--blocks 2000] [--threads 2]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { loadDefinition, SERVICE_NAME } from '#src/grpc/definition.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { percentile } from './logQueries.js';

const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;

type Obj = Record<string, any>;

/** Starts `ethlogd serve` with gRPC on a free port; resolves with the process, the gRPC address and the HTTP URL. */
async function serve(data: string, threads: number): Promise<{ child: ChildProcess; address: string; url: string }> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--data',
      data,
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--threads',
      String(threads),
      '--access-log',
      'off',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    const m = /grpc listening on (\S+)/.exec(out);
    const u = /^listening on (\S+)/m.exec(out);
    if (m && u) return { child, address: m[1]!, url: u[1]! };
  }
  throw new Error(`serve exited before listening: ${out}`);
}

/** A lookup at a random block: resolves with its latency in milliseconds. */
type Lookup = (block: number) => Promise<number>;

/** One unary query at a block, as a gRPC request and as the JSON-RPC call it stands for. */
interface Query {
  name: string;
  rpc: string;
  request(block: number): object;
  method: string;
  params(block: number): unknown[];
}

const SLOT_OWNER = '0x' + '5a'.repeat(20);

const QUERIES: Query[] = [
  {
    name: 'block with transaction hashes',
    rpc: 'GetBlockByNumber',
    request: (n) => ({ block: { number: String(n) }, fullTransactions: false }),
    method: 'eth_getBlockByNumber',
    params: (n) => ['0x' + n.toString(16), false],
  },
  {
    name: 'storage slot',
    rpc: 'GetStorageAt',
    request: (n) => ({
      address: Buffer.from(SLOT_OWNER.slice(2), 'hex'),
      position: Buffer.from([n % 256]),
      block: { number: String(n) },
    }),
    method: 'eth_getStorageAt',
    params: (n) => [SLOT_OWNER, '0x' + (n % 256).toString(16), '0x' + n.toString(16)],
  },
];

/** `query` over a gRPC channel. */
function grpcLookup(client: grpc.Client, md: grpc.Metadata, query: Query): Lookup {
  const call = (client as unknown as Record<string, (...args: unknown[]) => void>)[query.rpc]!.bind(client);
  return (block) =>
    new Promise<number>((resolve, reject) => {
      const t = performance.now();
      call(query.request(block), md, (error: Error | null) => (error ? reject(error) : resolve(performance.now() - t)));
    });
}

/** `query` over HTTP keep-alive connections. */
function httpLookup(url: string, key: string, agent: Agent, query: Query): Lookup {
  return (block) =>
    new Promise<number>((resolve, reject) => {
      const t = performance.now();
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: query.method, params: query.params(block) });
      const req = request(
        `${url}/v3/${key}`,
        { method: 'POST', agent, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(performance.now() - t));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

/** Keeps `concurrency` lookups of random blocks in flight for `seconds`; returns calls/s and latency percentiles. */
async function unaryRate(lookup: Lookup, head: number, seconds: number, concurrency: number) {
  const one = () => lookup(Math.floor(Math.random() * (head + 1)));
  const run = async (ms: number) => {
    const latencies: number[] = [];
    const end = performance.now() + ms;
    const lane = async () => {
      while (performance.now() < end) latencies.push(await one());
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, lane));
    return { latencies, elapsed: performance.now() - started };
  };
  await run(1000);
  const { latencies, elapsed } = await run(seconds * 1000);
  return { rate: latencies.length / (elapsed / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** Counts the `logs` entries (field 1) of an encoded LogBatch without decoding them. */
function countLogs(batch: Buffer): number {
  let count = 0;
  let p = 0;
  while (p < batch.length) {
    const tag = batch[p++]!;
    let length = 0;
    let scale = 1;
    for (;;) {
      const byte = batch[p++]!;
      length += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
    }
    p += length;
    if (tag === 0x0a) count++;
  }
  return count;
}

/** Streams [from, to] unfiltered to the end; returns logs, bytes and seconds. */
async function streamRate(client: grpc.Client, md: grpc.Metadata, from: number, to: number, decode: boolean) {
  const request = { filter: { fromBlock: { number: String(from) }, toBlock: { number: String(to) } } };
  const started = performance.now();
  let logs = 0;
  let bytes = 0;
  const call = (
    client as unknown as Record<string, (...args: unknown[]) => grpc.ClientReadableStream<Obj | Buffer>>
  ).StreamLogs!.bind(client)(request, md);
  for await (const batch of call as AsyncIterable<Obj | Buffer>) {
    if (decode) logs += ((batch as Obj).logs ?? []).length;
    else {
      logs += countLogs(batch as Buffer);
      bytes += (batch as Buffer).length;
    }
  }
  return { logs, bytes, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      seconds: { type: 'string' },
      concurrency: { type: 'string' },
      blocks: { type: 'string' },
      threads: { type: 'string' },
    },
  });
  const data = values.data ?? 'data/bench';
  const seconds = Number(values.seconds ?? 5);
  const concurrency = Number(values.concurrency ?? 64);
  const blocks = Number(values.blocks ?? 2000);
  const threads = Number(values.threads ?? 2);

  const store = openStore(data);
  const key = createApiKey(store, 'bench');
  const head = new StoreReader(store).meta()!.head;
  await closeStore(store);

  const { child, address, url } = await serve(data, threads);
  const definition = loadDefinition();
  const EthLogs = (
    grpc.loadPackageDefinition(definition) as unknown as { ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } } }
  ).ethlogd.v1.EthLogs;
  const service = definition[SERVICE_NAME] as unknown as grpc.ServiceDefinition;
  const RawEthLogs = grpc.makeGenericClientConstructor(
    { StreamLogs: { ...service.StreamLogs!, responseDeserialize: (b: Buffer) => b } },
    'EthLogs',
  );
  const md = new grpc.Metadata();
  md.set('x-api-key', key);
  const client = new EthLogs(address, grpc.credentials.createInsecure());
  const raw = new RawEthLogs(address, grpc.credentials.createInsecure());
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    for (const query of QUERIES) {
      for (const [name, lookup] of [
        [`gRPC ${query.rpc}, ${concurrency} in flight on one channel`, grpcLookup(client, md, query)],
        [`HTTP ${query.method}, ${concurrency} keep-alive connections`, httpLookup(url, key, agent, query)],
      ] as const) {
        const unary = await unaryRate(lookup, head, seconds, concurrency);
        console.log(
          `${query.name}, ${name}: ${unary.rate.toFixed(0)} calls/s, p50 ` +
            `${unary.p50.toFixed(2)} ms, p99 ${unary.p99.toFixed(2)} ms`,
        );
      }
    }
    agent.destroy();
    const from = Math.max(0, head - blocks + 1);
    await streamRate(raw, md, from, Math.min(head, from + 99), false);
    for (const [name, c, decode] of [
      ['counted, not decoded', raw, false],
      ['decoded by proto-loader', client, true],
    ] as const) {
      const s = await streamRate(c, md, from, head, decode);
      const extra = decode ? '' : `, ${(s.bytes / s.seconds / 1e6).toFixed(0)} MB/s`;
      console.log(
        `StreamLogs unfiltered, ${head - from + 1} blocks, ${name}: ${s.logs} logs in ` +
          `${s.seconds.toFixed(2)} s = ${(s.logs / s.seconds).toFixed(0)} logs/s${extra}`,
      );
    }
  } finally {
    client.close();
    raw.close();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
