/**
 * The gRPC front through a real @grpc/grpc-js client over a real port, beside the HTTP front of the
 * same service: every RPC answers what the HTTP front answers for the same query, every error maps
 * to its status with the JSON-RPC answer in the trailers, keys are checked on every call, server
 * reflection lists the service, and StreamLogs delivers more than 10,000 logs to a slow client,
 * stops scanning while the client does not read, and resumes from its cursor after a cancel with
 * nothing repeated or missed. docs/grpc.md's client example runs against it too.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle, StorageWrite } from '#src/chain/types.js';
import { loadDefinition } from '#src/grpc/definition.js';
import { CODE_TRAILER, DATA_TRAILER, MESSAGE_TRAILER } from '#src/grpc/errors.js';
import type { StreamProgress } from '#src/grpc/streamLogs.js';
import { createLogger } from '#src/logger.js';
import { TASKS_PER_THREAD } from '#src/logs/planner.js';
import { INVALID_KEY_MESSAGE, missingKeyMessage, REVOKED_KEY_MESSAGE, UNAUTHORIZED } from '#src/rpc/errors.js';
import { type RunningService, type ServiceOptions, startService } from '#src/service.js';
import { generateChain } from '#src/synth/generator.js';
import { type Obj, wireBlock, wireLog, wireReceipt, wireTransaction } from '../grpcWire.js';
import { makeDataset, type RpcResponse, type TestDataset } from '../support/harness.js';

const BLOCKS = 600;
const DENSITY = 0.05;
const SEED = 'grpc';
const HEAD = BLOCKS - 1;
const THREADS = 2;
/** Scan tasks the engine may run ahead of the chunk a stream is writing. */
const WINDOW = THREADS * TASKS_PER_THREAD;
/** Small batches and tasks, so a 14k-log stream is hundreds of messages and dozens of tasks. */
const STREAM = { batchBytes: 8 * 1024, taskLogs: 512 };
/**
 * Logs a paused client may have coming while the server waits for it: grpc-js buffers 16 messages
 * on each side and HTTP/2 holds a 64 KiB window, about 300 KB of ~270-byte logs.
 */
const IN_TRANSIT_LOGS = 1500;
const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;
const hex = quantityToHex;

/** A connected client of one service. */
interface Connection {
  client: grpc.Client;
  close(): void;
}

/** A failed call: its status, details, and the JSON-RPC error from the trailers. */
interface Failure {
  code: grpc.status;
  details: string;
  jsonrpc: { code: number; message: string; data?: unknown };
}

let dataset: TestDataset;
let svc: RunningService;
let conn: Connection;
let chain: BlockBundle[];

const EthLogs = (
  grpc.loadPackageDefinition(loadDefinition()) as unknown as {
    ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } };
  }
).ethlogd.v1.EthLogs;

function connect(port: number): Connection {
  const client = new EthLogs(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return { client, close: () => client.close() };
}

function metadata(key: string | null): grpc.Metadata {
  const md = new grpc.Metadata();
  if (key !== null) md.set('x-api-key', key);
  return md;
}

function method(client: grpc.Client, name: string): (...args: unknown[]) => grpc.ClientReadableStream<Obj> {
  return (client as unknown as Record<string, (...args: unknown[]) => grpc.ClientReadableStream<Obj>>)[name]!.bind(
    client,
  );
}

/** Calls a unary RPC; rejects with the ServiceError. */
function call(name: string, request: object, key: string | null = dataset.key, client = conn.client): Promise<Obj> {
  return new Promise((resolve, reject) => {
    method(client, name)(request, metadata(key), (error: grpc.ServiceError | null, response: Obj) =>
      error ? reject(error) : resolve(response),
    );
  });
}

function failureOf(error: unknown): Failure {
  const e = error as grpc.ServiceError;
  assert.ok(e.metadata, `a gRPC error: ${String(error)}`);
  const data = e.metadata.get(DATA_TRAILER)[0];
  const jsonrpc: Failure['jsonrpc'] = {
    code: Number(e.metadata.get(CODE_TRAILER)[0]),
    message: String(e.metadata.get(MESSAGE_TRAILER)[0]),
  };
  if (data !== undefined) jsonrpc.data = JSON.parse(String(data));
  return { code: e.code, details: e.details, jsonrpc };
}

/** The failure of a unary RPC that must fail. */
async function failure(
  name: string,
  request: object,
  key: string | null = dataset.key,
  client = conn.client,
): Promise<Failure> {
  try {
    await call(name, request, key, client);
  } catch (error) {
    return failureOf(error);
  }
  return assert.fail(`${name} succeeded`);
}

/** Opens a StreamLogs call. */
function stream(
  request: object,
  key: string | null = dataset.key,
  options: grpc.CallOptions = {},
  client = conn.client,
): grpc.ClientReadableStream<Obj> {
  return method(client, 'StreamLogs')(request, metadata(key), options);
}

/** Reads a whole stream: its batches and their logs (as wire objects). */
async function collect(s: grpc.ClientReadableStream<Obj>): Promise<{ batches: Obj[]; logs: Obj[] }> {
  const batches: Obj[] = [];
  for await (const batch of s as AsyncIterable<Obj>) batches.push(batch);
  return { batches, logs: batches.flatMap((b) => (b.logs ?? []).map(wireLog)) };
}

/** The failure that ends a stream that must fail. */
async function streamFailure(s: grpc.ClientReadableStream<Obj>): Promise<Failure> {
  try {
    await collect(s);
  } catch (error) {
    return failureOf(error);
  }
  return assert.fail('the stream succeeded');
}

async function http(name: string, params: unknown[], service = svc): Promise<RpcResponse> {
  const res = await fetch(`${service.url}/v3/${dataset.key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: name, params }),
  });
  return (await res.json()) as RpcResponse;
}

async function httpResult(name: string, params: unknown[]): Promise<any> {
  const res = await http(name, params);
  assert.equal(res.error, undefined, `${name} ${JSON.stringify(params)}: ${JSON.stringify(res.error)}`);
  return res.result;
}

/** eth_getLogs over [from, to] in pieces of `step` blocks (each under the result cap), concatenated. */
async function httpLogs(filter: Obj, from: number, to: number, step = 200): Promise<Obj[]> {
  const out: Obj[] = [];
  for (let a = from; a <= to; a += step)
    out.push(
      ...((await httpResult('eth_getLogs', [
        { ...filter, fromBlock: hex(a), toBlock: hex(Math.min(to, a + step - 1)) },
      ])) as Obj[]),
    );
  return out;
}

const bytes = (hexText: string) => Buffer.from(hexText.slice(2), 'hex');
const number = (n: number) => ({ number: String(n) });
const tag = (name: string) => ({ tag: `BLOCK_TAG_${name.toUpperCase()}` });
const cursorOf = (log: Obj) => ({
  blockNumber: BigInt(log.blockNumber).toString(),
  logIndex: BigInt(log.logIndex).toString(),
});

async function start(extra: Partial<ServiceOptions> = {}): Promise<RunningService> {
  return startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    grpcPort: 0,
    logger: createLogger('warn'),
    threads: THREADS,
    grpcStream: STREAM,
    ...extra,
  });
}

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, SEED);
  svc = await start();
  conn = connect(svc.grpcPort!);
  chain = [];
  for (const b of generateChain({ blocks: BLOCKS, seed: SEED, density: DENSITY, pending: true })) {
    chain.push(b);
    if (chain.length === 80) break;
  }
});

after(async () => {
  conn.close();
  await svc.close();
  dataset.remove();
});

describe('the service', () => {
  test('serves gRPC beside HTTP, and server reflection lists it', async () => {
    assert.ok(svc.grpcPort! > 0 && svc.grpcPort !== svc.port);
    const reflectionProto = join(
      dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
      'build/proto/grpc/reflection/v1/reflection.proto',
    );
    const pkg = grpc.loadPackageDefinition(loadSync(reflectionProto, { oneofs: true })) as any;
    const client = new pkg.grpc.reflection.v1.ServerReflection(
      `127.0.0.1:${svc.grpcPort}`,
      grpc.credentials.createInsecure(),
    );
    try {
      const ask = (request: object) =>
        new Promise<Obj>((resolve, reject) => {
          const s = client.ServerReflectionInfo();
          s.on('data', (response: Obj) => {
            resolve(response);
            s.end();
          });
          s.on('error', reject);
          s.write(request);
        });
      const list = await ask({ listServices: '' });
      const names = (list.listServicesResponse.service as Obj[]).map((s) => s.name);
      assert.ok(names.includes('ethlogd.v1.EthLogs'), names.join(', '));
      const file = await ask({ fileContainingSymbol: 'ethlogd.v1.EthLogs' });
      const descriptors = Buffer.concat(file.fileDescriptorResponse.fileDescriptorProto as Buffer[]).toString('latin1');
      for (const name of ['ethlogd.v1', 'StreamLogs', 'GetStorageAt', 'LogBatch', 'resume_from', 'block_number'])
        assert.ok(descriptors.includes(name), name);
    } finally {
      client.close();
    }
  });
});

describe('unary RPCs answer what the HTTP front answers', () => {
  test('GetBlockByNumber: numbers and tags, hashes and full transactions, null as an unset block', async () => {
    for (const [block, param] of [
      [number(0), '0x0'],
      [number(1), '0x1'],
      [number(299), hex(299)],
      [number(HEAD), hex(HEAD)],
      [tag('latest'), 'latest'],
      [tag('earliest'), 'earliest'],
      [tag('safe'), 'safe'],
      [tag('finalized'), 'finalized'],
      [tag('pending'), 'pending'],
    ] as const) {
      for (const full of [false, true]) {
        const expected = (await httpResult('eth_getBlockByNumber', [param, full])) as Obj;
        const { block: got } = await call('GetBlockByNumber', { block, fullTransactions: full });
        assert.deepEqual(wireBlock(got, full), expected, `${param} ${full}`);
      }
    }
    for (const n of [HEAD + 1, 2 ** 40]) {
      assert.equal(await httpResult('eth_getBlockByNumber', [hex(n), false]), null);
      assert.deepEqual(await call('GetBlockByNumber', { block: number(n) }), {});
    }
  });

  test('GetTransactionByHash and GetTransactionByBlockNumberAndIndex: canonical, pending, absent', async () => {
    const pending = (await httpResult('eth_getBlockByNumber', ['pending', true])) as Obj;
    const hashes: string[] = [pending.transactions[0].hash, '0x' + 'ab'.repeat(32)];
    // Blocks of every fork the generator passes through, so every transaction type comes up.
    const sampled = new Set<string>();
    for (const n of [0, 2, 77, 181, 366, 371, HEAD]) {
      const block = (await httpResult('eth_getBlockByNumber', [hex(n), true])) as Obj;
      for (const [i, tx] of (block.transactions as Obj[]).entries()) {
        if (i % 5 === 0 || !sampled.has(tx.type)) hashes.push(tx.hash);
        sampled.add(tx.type);
      }
    }
    const types = new Set<string>();
    for (const hash of hashes) {
      const expected = (await httpResult('eth_getTransactionByHash', [hash])) as Obj | null;
      const { transaction } = await call('GetTransactionByHash', { hash: bytes(hash) });
      assert.deepEqual(transaction === undefined ? null : wireTransaction(transaction), expected, hash);
      if (expected) types.add(expected.type);
    }
    assert.deepEqual([...types].sort(), ['0x0', '0x1', '0x2', '0x3', '0x4'], 'every transaction type');
    for (const [block, param, index] of [
      [number(77), hex(77), 0],
      [number(77), hex(77), 3],
      [tag('latest'), 'latest', 1],
      [tag('pending'), 'pending', 0],
      [number(77), hex(77), 100_000],
      [number(HEAD + 5), hex(HEAD + 5), 0],
    ] as const) {
      const expected = (await httpResult('eth_getTransactionByBlockNumberAndIndex', [param, hex(index)])) as Obj | null;
      const { transaction } = await call('GetTransactionByBlockNumberAndIndex', { block, index: String(index) });
      assert.deepEqual(transaction === undefined ? null : wireTransaction(transaction), expected, `${param} ${index}`);
    }
  });

  test('GetTransactionReceipt and GetBlockReceipts: canonical, pending, by number, tag and hash, absent', async () => {
    const types = new Set<string>();
    for (const n of [0, 2, 77, 181, 366, 371, HEAD]) {
      const expected = (await httpResult('eth_getBlockReceipts', [hex(n)])) as Obj[];
      const { block } = await call('GetBlockReceipts', { block: number(n) });
      assert.deepEqual((block.receipts ?? []).map(wireReceipt), expected, `block ${n}`);
      for (const receipt of expected.filter((_, i) => i % 7 === 0)) {
        const { receipt: one } = await call('GetTransactionReceipt', { hash: bytes(receipt.transactionHash) });
        assert.deepEqual(wireReceipt(one), receipt, receipt.transactionHash);
      }
      for (const r of expected) types.add(r.type);
    }
    assert.deepEqual([...types].sort(), ['0x0', '0x1', '0x2', '0x3', '0x4'], 'every transaction type');
    const latest = (await httpResult('eth_getBlockReceipts', ['latest'])) as Obj[];
    const latestBlock = (await httpResult('eth_getBlockByNumber', ['latest', false])) as Obj;
    assert.deepEqual(
      ((await call('GetBlockReceipts', {})).block.receipts ?? []).map(wireReceipt),
      latest,
      'unset block: latest',
    );
    assert.deepEqual(
      ((await call('GetBlockReceipts', { block: { hash: bytes(latestBlock.hash) } })).block.receipts ?? []).map(
        wireReceipt,
      ),
      latest,
      'by hash',
    );
    const pending = (await httpResult('eth_getBlockReceipts', ['pending'])) as Obj[];
    assert.deepEqual(
      ((await call('GetBlockReceipts', { block: tag('pending') })).block.receipts ?? []).map(wireReceipt),
      pending,
      'pending: unset positions',
    );
    assert.deepEqual(await call('GetBlockReceipts', { block: number(HEAD + 5) }), {}, 'absent block: unset');
    assert.deepEqual(
      await call('GetTransactionReceipt', { hash: bytes('0x' + 'ab'.repeat(32)) }),
      {},
      'unknown transaction: unset',
    );
  });

  test('GetStorageAt: written slots at blocks, tags and hashes; the block defaults to latest', async () => {
    const writes: (StorageWrite & { block: number })[] = chain.flatMap((b) =>
      b.storage.map((w) => ({ ...w, block: b.header.number })),
    );
    assert.ok(writes.length > 10);
    for (const w of writes.filter((_, i) => i % Math.ceil(writes.length / 12) === 0)) {
      const params = [bytesToHex(w.address), bytesToHex(w.slot)];
      const request = { address: Buffer.from(w.address), position: Buffer.from(w.slot) };
      for (const [block, param] of [
        [number(w.block), hex(w.block)],
        [number(Math.max(0, w.block - 1)), hex(Math.max(0, w.block - 1))],
        [tag('latest'), 'latest'],
        [
          { hash: Buffer.from(chain[40]!.header.hash) },
          { blockHash: bytesToHex(chain[40]!.header.hash), requireCanonical: false },
        ],
      ] as const) {
        const expected = await httpResult('eth_getStorageAt', [...params, param]);
        assert.equal(bytesToHex((await call('GetStorageAt', { ...request, block })).value), expected);
      }
      assert.equal(
        bytesToHex((await call('GetStorageAt', request)).value),
        await httpResult('eth_getStorageAt', params),
      );
    }
  });

  test('GetLogs: by address, by topics, by block hash, with the pending block, and empty', async () => {
    const sample = chain[50]!.logs.find((l) => l.topics.length >= 3)!;
    const address = bytesToHex(sample.address);
    const [t0, t1, t2] = sample.topics.map(bytesToHex) as [string, string, string];
    const cases: [Obj, Obj][] = [
      [
        { fromBlock: number(0), toBlock: number(HEAD), addresses: [bytes(address)] },
        { fromBlock: '0x0', toBlock: hex(HEAD), address },
      ],
      [
        {
          fromBlock: number(10),
          toBlock: tag('latest'),
          topics: [{ anyOf: [bytes(t0)] }, {}, { anyOf: [bytes(t2), bytes('0x' + '11'.repeat(32))] }],
        },
        { fromBlock: '0xa', toBlock: 'latest', topics: [t0, null, [t2, '0x' + '11'.repeat(32)]] },
      ],
      [{ blockHash: Buffer.from(chain[50]!.header.hash) }, { blockHash: bytesToHex(chain[50]!.header.hash) }],
      [
        { fromBlock: number(HEAD - 3), toBlock: tag('pending') },
        { fromBlock: hex(HEAD - 3), toBlock: 'pending' },
      ],
      [
        { fromBlock: number(40), toBlock: number(60), topics: [{}, { anyOf: [bytes(t1)] }] },
        { fromBlock: hex(40), toBlock: hex(60), topics: [null, t1] },
      ],
      [
        { fromBlock: number(0), toBlock: number(HEAD), addresses: [bytes('0x' + 'de'.repeat(20))] },
        { fromBlock: '0x0', toBlock: hex(HEAD), address: '0x' + 'de'.repeat(20) },
      ],
    ];
    let nonEmpty = 0;
    for (const [filter, json] of cases) {
      const expected = (await httpResult('eth_getLogs', [json])) as Obj[];
      const { logs } = await call('GetLogs', { filter });
      assert.deepEqual((logs ?? []).map(wireLog), expected, JSON.stringify(json));
      if (expected.length > 0) nonEmpty++;
    }
    assert.equal(nonEmpty, cases.length - 1);
  });
});

describe('errors map to gRPC statuses, with the JSON-RPC answer in the trailers', () => {
  /** A gRPC request and the JSON-RPC request it stands for, and the status expected. */
  const cases: [string, string, object, string, unknown[], grpc.status][] = [
    ['block unset', 'GetBlockByNumber', {}, 'eth_getBlockByNumber', [null, false], grpc.status.INVALID_ARGUMENT],
    [
      'short hash',
      'GetTransactionByHash',
      { hash: Buffer.alloc(31) },
      'eth_getTransactionByHash',
      ['0x' + '00'.repeat(31)],
      grpc.status.INVALID_ARGUMENT,
    ],
    [
      'short address',
      'GetStorageAt',
      { address: Buffer.alloc(19), position: Buffer.from([1]) },
      'eth_getStorageAt',
      ['0x' + '00'.repeat(19), '0x01'],
      grpc.status.INVALID_ARGUMENT,
    ],
    [
      'from > to',
      'GetLogs',
      { filter: { fromBlock: number(16), toBlock: number(5) } },
      'eth_getLogs',
      [{ fromBlock: '0x10', toBlock: '0x5' }],
      grpc.status.INVALID_ARGUMENT,
    ],
    [
      'to beyond the head',
      'GetLogs',
      { filter: { fromBlock: number(1), toBlock: number(HEAD + 1) } },
      'eth_getLogs',
      [{ fromBlock: '0x1', toBlock: hex(HEAD + 1) }],
      grpc.status.INVALID_ARGUMENT,
    ],
    [
      'block hash with a range',
      'GetLogs',
      { filter: { blockHash: Buffer.alloc(32, 1), fromBlock: number(1) } },
      'eth_getLogs',
      [{ blockHash: '0x' + '01'.repeat(32), fromBlock: '0x1' }],
      grpc.status.INVALID_ARGUMENT,
    ],
    [
      'five topic positions',
      'GetLogs',
      { filter: { topics: [{}, {}, {}, {}, {}] } },
      'eth_getLogs',
      [{ topics: [null, null, null, null, null] }],
      grpc.status.INVALID_ARGUMENT,
    ],
    [
      'more than 5,000 parameters',
      'GetLogs',
      { filter: { addresses: Array.from({ length: 5001 }, () => Buffer.alloc(20, 2)) } },
      'eth_getLogs',
      [{ address: Array.from({ length: 5001 }, () => '0x' + '02'.repeat(20)) }],
      grpc.status.RESOURCE_EXHAUSTED,
    ],
    [
      'more than 10,000 results',
      'GetLogs',
      { filter: { fromBlock: number(0), toBlock: number(HEAD) } },
      'eth_getLogs',
      [{ fromBlock: '0x0', toBlock: hex(HEAD) }],
      grpc.status.RESOURCE_EXHAUSTED,
    ],
    [
      'storage beyond the head',
      'GetStorageAt',
      { address: Buffer.alloc(20), position: Buffer.from([0]), block: number(HEAD + 1) },
      'eth_getStorageAt',
      ['0x' + '00'.repeat(20), '0x00', hex(HEAD + 1)],
      grpc.status.NOT_FOUND,
    ],
    [
      'storage at an unknown hash',
      'GetStorageAt',
      { address: Buffer.alloc(20), position: Buffer.from([0]), block: { hash: Buffer.alloc(32, 3) } },
      'eth_getStorageAt',
      ['0x' + '00'.repeat(20), '0x00', { blockHash: '0x' + '03'.repeat(32), requireCanonical: false }],
      grpc.status.NOT_FOUND,
    ],
  ];
  for (const [name, rpc, request, jsonMethod, params, code] of cases) {
    test(`${name}: ${grpc.status[code]}`, async () => {
      const expected = (await http(jsonMethod, params)).error;
      assert.ok(expected, 'the HTTP front refuses it too');
      const got = await failure(rpc, request);
      assert.equal(got.code, code);
      assert.deepEqual(got.jsonrpc, expected);
      assert.equal(got.details, expected.message);
    });
  }

  test('the result cap suggests a range that GetLogs then answers', async () => {
    const got = await failure('GetLogs', { filter: { fromBlock: number(0), toBlock: number(HEAD) } });
    const { from, to } = got.jsonrpc.data as { from: string; to: string };
    const { logs } = await call('GetLogs', {
      filter: { fromBlock: number(Number(from)), toBlock: number(Number(to)) },
    });
    assert.ok(logs.length > 5_000 && logs.length <= 10_000, `${logs.length} logs`);
  });

  test('an unknown block tag: INVALID_ARGUMENT naming the parameter', async () => {
    const got = await failure('GetBlockByNumber', { block: { tag: 9 } });
    assert.equal(got.code, grpc.status.INVALID_ARGUMENT);
    assert.deepEqual(got.jsonrpc, {
      code: -32602,
      message: 'invalid argument 0 (block parameter): unknown block tag 9',
    });
  });

  test('past the query deadline: DEADLINE_EXCEEDED, for GetLogs and for StreamLogs', async () => {
    const slow = await start({ limits: { timeoutMs: 1 }, grpcStream: { ...STREAM, timeoutMs: 1 } });
    const client = connect(slow.grpcPort!);
    try {
      const filter = { fromBlock: number(0), toBlock: number(HEAD) };
      const expected = (await http('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(HEAD) }], slow)).error;
      assert.deepEqual(expected, { code: -32005, message: 'query timeout exceeded' });
      const unary = await failure('GetLogs', { filter }, dataset.key, client.client);
      assert.equal(unary.code, grpc.status.DEADLINE_EXCEEDED);
      assert.deepEqual(unary.jsonrpc, expected);
      const streamed = await streamFailure(stream({ filter }, dataset.key, {}, client.client));
      assert.equal(streamed.code, grpc.status.DEADLINE_EXCEEDED);
      assert.deepEqual(streamed.jsonrpc, expected);
    } finally {
      client.close();
      await slow.close();
    }
  });

  test("the call's own gRPC deadline ends a stream the client does not read, and the server stops", async () => {
    const finished = new Promise<StreamProgress & { outcome: string }>((resolve) =>
      svc.grpcEvents!.once('stream-finished', resolve),
    );
    const s = stream({ filter: { fromBlock: number(0), toBlock: number(HEAD) } }, dataset.key, {
      deadline: Date.now() + 300,
    });
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      s.once('data', () => s.pause());
      s.on('error', resolve);
    });
    assert.equal(error.code, grpc.status.DEADLINE_EXCEEDED);
    const progress = await finished;
    assert.notEqual(progress.outcome, 'done');
    assert.ok(progress.logs < 10_000, `the server stopped after ${progress.logs} logs`);
  });

  test('StreamLogs with a bad filter: INVALID_ARGUMENT as eth_getLogs says', async () => {
    const expected = (await http('eth_getLogs', [{ fromBlock: '0x10', toBlock: '0x5' }])).error;
    const got = await streamFailure(stream({ filter: { fromBlock: number(16), toBlock: number(5) } }));
    assert.equal(got.code, grpc.status.INVALID_ARGUMENT);
    assert.deepEqual(got.jsonrpc, expected);
  });
});

describe('API keys', () => {
  const unauthenticated = (message: string) => ({
    code: grpc.status.UNAUTHENTICATED,
    details: message,
    jsonrpc: { code: UNAUTHORIZED, message },
  });

  test('missing, unknown and revoked keys: UNAUTHENTICATED on unary calls and streams', async () => {
    const request = { block: tag('latest') };
    const filter = { filter: { fromBlock: number(0), toBlock: number(3) } };
    for (const [key, message] of [
      [null, missingKeyMessage('as x-api-key metadata')],
      ['', missingKeyMessage('as x-api-key metadata')],
      ['0'.repeat(64), INVALID_KEY_MESSAGE],
      [dataset.revokedKey, REVOKED_KEY_MESSAGE],
    ] as const) {
      assert.deepEqual(await failure('GetBlockByNumber', request, key), unauthenticated(message));
      assert.deepEqual(await failure('GetLogs', filter, key), unauthenticated(message));
      assert.deepEqual(await streamFailure(stream(filter, key)), unauthenticated(message));
    }
  });

  test('a key revoked while the server runs is refused from the next call on', async () => {
    const run = promisify(execFile);
    const created = await run(process.execPath, [CLI, 'keys', 'create', '--data', dataset.dir, '--label', 'grpc']);
    const key = created.stdout.trim().split('\n').at(-1)!;
    assert.ok((await call('GetBlockByNumber', { block: tag('latest') }, key)).block);
    await run(process.execPath, [CLI, 'keys', 'revoke', '--data', dataset.dir, key]);
    assert.deepEqual(
      await failure('GetBlockByNumber', { block: tag('latest') }, key),
      unauthenticated(REVOKED_KEY_MESSAGE),
    );
    assert.deepEqual(await streamFailure(stream({ filter: {} }, key)), unauthenticated(REVOKED_KEY_MESSAGE));
  });
});

describe('StreamLogs', () => {
  const whole = { fromBlock: number(0), toBlock: number(HEAD) };
  let expected: Obj[];

  before(async () => {
    expected = await httpLogs({}, 0, HEAD);
  });

  test(
    'more than 10,000 logs to a slow client: the server waits for it, ' +
      'then a cancel and a resume from the cursor deliver every log once',
    async () => {
      assert.ok(expected.length > 10_000, `${expected.length} logs`);
      const events = svc.grpcEvents!;
      let waiting: StreamProgress | undefined;
      let onStall = () => {};
      const onWaiting = (p: StreamProgress) => {
        waiting = p;
        onStall();
      };
      const onDrained = () => (waiting = undefined);
      events.on('stream-waiting', onWaiting);
      events.on('stream-drained', onDrained);
      const finished = new Promise<StreamProgress & { outcome: string }>((resolve) =>
        events.once('stream-finished', resolve),
      );
      const received: Obj[] = [];
      const stalls: (StreamProgress & { received: number })[] = [];
      let cursor: Obj | undefined;
      try {
        const s = stream({ filter: whole });
        await new Promise<void>((resolve, reject) => {
          let batches = 0;
          let cancelled = false;
          // The slow client: every 25 batches it stops reading until the server, having filled the
          // buffers between them, waits for it; then it reads on. Past 6,000 logs it cancels.
          s.on('data', (batch: Obj) => {
            if (cancelled) return;
            received.push(...(batch.logs ?? []).map(wireLog));
            cursor = batch.next;
            if (received.length >= 6_000) {
              cancelled = true;
              s.cancel();
              return;
            }
            if (++batches % 25 !== 0) return;
            s.pause();
            onStall = () => {
              if (!waiting) return;
              stalls.push({ ...waiting, received: received.length });
              onStall = () => {};
              s.resume();
            };
            onStall();
          });
          s.on('error', (error: grpc.ServiceError) =>
            error.code === grpc.status.CANCELLED ? resolve() : reject(error),
          );
          s.on('end', () => reject(new Error('the stream ended before the client cancelled it')));
        });
      } finally {
        events.off('stream-waiting', onWaiting);
        events.off('stream-drained', onDrained);
      }
      assert.ok(stalls.length >= 3, `${stalls.length} stalls`);
      for (const stall of stalls) {
        assert.ok(
          stall.logs - stall.received <= IN_TRANSIT_LOGS,
          `the server ran ${stall.logs - stall.received} logs ahead of a paused client`,
        );
        assert.ok(
          stall.dispatched <= stall.chunks + WINDOW,
          `${stall.dispatched} tasks dispatched for ${stall.chunks} chunks written`,
        );
      }
      const end = await finished;
      assert.equal(end.outcome, 'cancelled');
      assert.ok(end.logs < expected.length, 'the server stopped when the client cancelled');

      const rest = await collect(stream({ filter: whole, resumeFrom: cursor }));
      assert.equal(received.length + rest.logs.length, expected.length, 'nothing repeated, nothing missed');
      assert.deepEqual([...received, ...rest.logs], expected);
      assert.deepEqual(rest.batches.at(-1)!.next, { blockNumber: String(HEAD + 1), logIndex: '0' });
    },
  );

  test('a stream resumed from any log position starts exactly there', async () => {
    for (const k of [0, 1, 137, 2_500, 7_777, expected.length - 1]) {
      const got = await collect(
        stream({ filter: { fromBlock: number(0), toBlock: number(HEAD) }, resumeFrom: cursorOf(expected[k]!) }),
      );
      assert.equal(got.logs.length, expected.length - k, `from log ${k}`);
      assert.deepEqual(got.logs[0], expected[k]);
      assert.deepEqual(got.logs.at(-1), expected.at(-1));
    }
    const beyond = await collect(stream({ filter: whole, resumeFrom: { blockNumber: String(HEAD + 1) } }));
    assert.deepEqual(beyond.logs, []);
  });

  test('each batch cursor resumes right after that batch', async () => {
    const filter = { fromBlock: number(100), toBlock: number(160) };
    const all = await collect(stream({ filter }));
    assert.deepEqual(all.logs, await httpLogs({}, 100, 160));
    assert.ok(all.batches.length > 5);
    let seen = 0;
    for (const batch of all.batches.slice(0, 6)) {
      seen += (batch.logs ?? []).length;
      const rest = await collect(stream({ filter, resumeFrom: batch.next }));
      assert.deepEqual(rest.logs, all.logs.slice(seen));
    }
  });

  test('the pending block comes last with unset positions; a cursor inside it resumes there', async () => {
    const json = await httpResult('eth_getLogs', [{ fromBlock: hex(HEAD - 20), toBlock: 'pending' }]);
    const filter = { fromBlock: number(HEAD - 20), toBlock: tag('pending') };
    const all = await collect(stream({ filter }));
    assert.deepEqual(all.logs, json);
    const pendingLogs = all.logs.filter((l) => l.blockNumber === null);
    assert.ok(pendingLogs.length > 3);
    assert.deepEqual(all.batches.at(-1)!.next, { blockNumber: String(HEAD + 2), logIndex: '0' });
    const rest = await collect(stream({ filter, resumeFrom: { blockNumber: String(HEAD + 1), logIndex: '2' } }));
    assert.deepEqual(rest.logs, pendingLogs.slice(2));
  });

  test('a filter matching nothing streams batches without logs that only move the cursor', async () => {
    const got = await collect(stream({ filter: { ...whole, addresses: [Buffer.alloc(20, 0xde)] } }));
    assert.deepEqual(got.logs, []);
    assert.ok(got.batches.length >= 1);
    assert.deepEqual(got.batches.at(-1)!.next, { blockNumber: String(HEAD + 1), logIndex: '0' });
  });

  test("docs/grpc.md's client, test/examples/grpcClient.ts, streams a contract's logs", async () => {
    const guide = readFileSync(new URL('../../../docs/grpc.md', import.meta.url), 'utf8');
    assert.ok(guide.includes('](../test/examples/grpcClient.ts)'), 'docs/grpc.md links the example client');
    const sample = chain[30]!.logs[0]!;
    const address = bytesToHex(sample.address);
    const lines: string[] = [];
    const { main: exampleClient } = await import('../examples/grpcClient.js');
    const result = await exampleClient(`127.0.0.1:${svc.grpcPort}`, dataset.key, address, 0n, (line) =>
      lines.push(line),
    );
    const logs = await httpLogs({ address }, 0, HEAD, BLOCKS);
    assert.equal(result.head, String(HEAD));
    assert.equal(result.logs, logs.length);
    assert.deepEqual(result.cursor, { blockNumber: String(HEAD + 1), logIndex: '0' });
    assert.match(lines[0]!, new RegExp(`^head ${HEAD} 0x[0-9a-f]{64}`));
  });
});
