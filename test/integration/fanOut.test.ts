/**
 * Notifications that cannot stall the server (ws/wsFront.ts): ten sockets of 128 `logs`
 * subscriptions each and new blocks make hundreds of thousands of notifications; they are rendered
 * once per distinct filter and block, and sent in slices as each client reads, so another client's
 * call is answered while they are still going out, every subscriber still receives every log, and a
 * subscriber that stops reading is closed once it is four head changes behind.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '#src/ws/subscriptions.js';
import { WS_MAX_CHANGES_BEHIND } from '#src/ws/wsFront.js';
import { nextBlocks } from '../support/chainGrowth.js';
import { makeDataset, type TestDataset } from '../support/harness.js';
import { until } from '../support/poll.js';

const SOCKETS = 10;

let dataset: TestDataset;
let store: Store;
let reader: StoreReader;
let writer: StoreWriter;
let svc: RunningService;

/** A socket of MAX_SUBSCRIPTIONS_PER_CONNECTION subscriptions to every log, counting what it receives. */
interface Subscriber {
  socket: WebSocket;
  received: number;
  closed: Promise<{ code: number; reason: string }>;
}

async function subscriber(): Promise<Subscriber> {
  const socket = new WebSocket(`${svc.url.replace('http://', 'ws://')}/ws/v3/${dataset.key}`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const sub: Subscriber = {
    socket,
    received: 0,
    closed: new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) }))),
  };
  let confirmed = 0;
  const ready = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const text = String(data);
      if (text.includes('"eth_subscription"')) sub.received++;
      else if (++confirmed === MAX_SUBSCRIPTIONS_PER_CONNECTION) resolve();
    });
  });
  for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++)
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['logs', {}] }));
  await ready;
  return sub;
}

before(async () => {
  dataset = await makeDataset(40, 0.2, 'fan-out');
  store = openStore(dataset.dir);
  reader = new StoreReader(store);
  writer = new StoreWriter(store);
  svc = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    threads: 1,
    httpThreads: 1,
    logger: createLogger('warn'),
  });
});

after(async () => {
  await svc.close();
  await closeStore(store);
  dataset.remove();
});

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test(`${SOCKETS} sockets × ${MAX_SUBSCRIPTIONS_PER_CONNECTION} logs subscriptions: ` +
  'calls answered during the fan-out, every log delivered, a stalled subscriber dropped', {
  timeout: 180_000,
}, async () => {
  const subscribers = await Promise.all(Array.from({ length: SOCKETS }, () => subscriber()));
  const stalled = await subscriber();
  // Its socket is no longer read: the kernel's buffers fill, then uWS's, then its notifications wait.
  (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
  try {
    const blocks = nextBlocks(reader, 2);
    const logs = blocks.reduce((n, b) => n + b.logs.length, 0);
    const expected = logs * MAX_SUBSCRIPTIONS_PER_CONNECTION;
    writer.append({ blocks });
    await until(async () => subscribers.some((s) => s.received > 0), 'the notifications begin');

    const res = await fetch(`${svc.url}/v3/${dataset.key}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    const delivered = subscribers.reduce((n, s) => n + s.received, 0);
    assert.equal(((await res.json()) as { result: string }).result, `0x${reader.head()!.toString(16)}`);
    assert.ok(
      delivered < expected * SOCKETS,
      `answered with ${delivered} of ${expected * SOCKETS} notifications delivered`,
    );

    await until(
      async () => subscribers.every((s) => s.received >= expected),
      `every subscriber receives ${expected} notifications`,
      120_000,
    );
    for (const s of subscribers) assert.equal(s.received, expected, 'each log once per subscription');

    // Further head changes: the stalled subscriber falls behind and is closed; the others keep up.
    let total = expected;
    for (let i = 0; i < WS_MAX_CHANGES_BEHIND; i++) {
      const more = nextBlocks(reader, 1);
      total += more[0]!.logs.length * MAX_SUBSCRIPTIONS_PER_CONNECTION;
      writer.append({ blocks: more });
      await until(async () => subscribers.every((s) => s.received >= total), `head change ${i + 1} delivered`, 60_000);
    }
    (stalled.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    const { code, reason } = await stalled.closed;
    assert.equal(code, 1008);
    assert.match(reason, /subscriber fell behind/);
    assert.ok((await metric('ethlogd_refusals_total', '{reason="slow_subscriber"}')) >= 1);
  } finally {
    for (const s of [...subscribers, stalled]) s.socket.terminate();
  }
});
