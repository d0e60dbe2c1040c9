/**
 * The gRPC front's limits through the real service (issue 35, part A): a connection cap (more are
 * closed as they connect and counted in /metrics), an idle timeout that closes a connection which
 * never sends its preface, and a StreamLogs whose client reads nothing ended after the stall
 * timeout; another client's call answers throughout.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { loadDefinition } from '#src/grpc/definition.js';
import type { StreamProgress } from '#src/grpc/streamLogs.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { makeDataset, type TestDataset } from '../support/harness.js';
import { until } from '../support/poll.js';
import { openUnreadStream } from '../support/unreadStream.js';

const HOST = '127.0.0.1';
const BLOCKS = 300;
const MAX_CONNECTIONS = 3;
const IDLE_MS = 300;
const STALL_MS = 300;

const EthLogs = (
  grpc.loadPackageDefinition(loadDefinition()) as unknown as {
    ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } };
  }
).ethlogd.v1.EthLogs;

let dataset: TestDataset;
let svc: RunningService;

before(async () => {
  dataset = await makeDataset(BLOCKS, 0.05, 'grpc-limits');
  svc = await startService({
    dataDir: dataset.dir,
    host: HOST,
    port: 0,
    grpcPort: 0,
    logger: createLogger('warn'),
    grpcConnections: { max: MAX_CONNECTIONS, idleTimeoutMs: IDLE_MS, prefaceTimeoutMs: IDLE_MS },
    grpcStream: { stallMs: STALL_MS },
  });
});

after(async () => {
  await svc.close();
  dataset.remove();
});

/** GetBlockByNumber on a fresh channel: resolves with the error code, or OK. */
function smallCall(): Promise<grpc.status> {
  const client = new EthLogs(`${HOST}:${svc.grpcPort}`, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', dataset.key);
  return new Promise<grpc.status>((resolve) => {
    const call = (client as unknown as Record<string, (...args: unknown[]) => void>).GetBlockByNumber!.bind(client);
    call({ block: { number: 1 } }, metadata, { deadline: Date.now() + 10_000 }, (error: grpc.ServiceError | null) =>
      resolve(error ? error.code : grpc.status.OK),
    );
  }).finally(() => client.close());
}

/** Opens a TCP connection to the gRPC port that sends nothing. */
function silent(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(svc.grpcPort!, HOST, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The value of `ethlogd_refusals_total{reason}`. */
async function refusals(reason: string): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  return Number(new RegExp(`^ethlogd_refusals_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
}

test('a connection that sends nothing is closed after the preface ' +
  'timeout, one without a call after the idle timeout; calls answer', {
  timeout: 15_000,
}, async () => {
  const before = await refusals('grpc_preface_timeout');
  const socket = await silent();
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  assert.equal(await refusals('grpc_preface_timeout'), before + 1);
  const session = http2.connect(`http://${HOST}:${svc.grpcPort}`);
  session.on('error', () => undefined);
  const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
  await new Promise<void>((resolve) => session.once('connect', () => resolve()));
  await goaway;
  await new Promise<void>((resolve) => (session.closed ? resolve() : session.once('close', () => resolve())));
  assert.equal(await smallCall(), grpc.status.OK);
});

test(`over ${MAX_CONNECTIONS} connections, a new one is closed as it ` +
  'connects (UNAVAILABLE) and counted; one freed is taken again', {
  timeout: 30_000,
}, async () => {
  const before = await refusals('grpc_connections');
  const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, silent));
  const released = Promise.all(
    held.map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()))),
  );
  assert.equal(await smallCall(), grpc.status.UNAVAILABLE);
  assert.ok((await refusals('grpc_connections')) > before);
  // The held connections send nothing: the preface timeout closes them, and the cap has room again.
  await released;
  await until(async () => (await smallCall()) === grpc.status.OK, 'a call is answered once the cap has room');
});

test('a StreamLogs whose client reads nothing is ended after the stall timeout; others are answered meanwhile', {
  timeout: 15_000,
}, async () => {
  const finished = new Promise<StreamProgress & { outcome: string }>((resolve) =>
    svc.grpcEvents!.once('stream-finished', resolve),
  );
  const waiting = new Promise<void>((resolve) => svc.grpcEvents!.once('stream-waiting', () => resolve()));
  const { session } = openUnreadStream(HOST, svc.grpcPort!, dataset.key, BLOCKS - 1);
  try {
    await waiting;
    assert.equal(await smallCall(), grpc.status.OK);
    const progress = await finished;
    assert.equal(progress.outcome, 'failed', 'ended by the server, not by the client');
  } finally {
    session.destroy();
  }
});
