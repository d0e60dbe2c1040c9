/**
 * A thousand WebSocket subscribers on one `ethlogd serve` (a child process, so its memory is its
 * own): each subscribes to one contract's logs, a writer in this process appends 100 blocks to the
 * store the server follows, and every subscriber receives every matching log exactly once and in
 * order. The server's RSS before and after is printed and bounded. (A subscriber that stops
 * reading is closed while another keeps pace: websocket.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, type TestContext, test } from 'node:test';
import WebSocket from 'ws';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { type ServerProcess, startServerProcess } from '../fuzz/serverProcess.js';
import { nextBlocks } from '../support/chainGrowth.js';
import { makeDataset, type TestDataset } from '../support/harness.js';
import { until } from '../support/poll.js';

/** Subscribers on the server. */
const SUBSCRIBERS = 1_000;
/** Blocks appended while they listen. */
const BLOCKS = 100;
/** Blocks per append (one write transaction each). */
const BLOCKS_PER_APPEND = 5;
/**
 * How much the server's RSS may grow over the run: not a performance figure but the line between
 * the buffers of 1,000 sockets (a few hundred KiB each at most) and memory that follows the
 * messages sent (about 250 MB of notifications go out).
 */
const RSS_GROWTH_LIMIT_KIB = 512 * 1024;

type Obj = Record<string, unknown>;

let dataset: TestDataset;
let server: ServerProcess;
let store: Store;
let reader: StoreReader;

before(async () => {
  dataset = await makeDataset(120, 0.05, 'many-subscribers');
  store = openStore(dataset.dir);
  reader = new StoreReader(store);
  server = await startServerProcess(dataset.dir, ['--threads', '1']);
});

after(async () => {
  await server?.stop();
  await closeStore(store);
  dataset.remove();
});

/** The address with the most logs in the store's last blocks (what the appended blocks repeat). */
function busiestAddress(): string {
  const counts = new Map<string, number>();
  const head = reader.head()!;
  for (let n = head - 30; n <= head; n++)
    for (const log of reader.logs(n))
      counts.set(bytesToHex(log.address), (counts.get(bytesToHex(log.address)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

/** A subscriber: its socket and the logs it received, by place. */
interface Subscriber {
  socket: WebSocket;
  logs: string[];
}

/** Opens a socket, subscribes to `address`'s logs, resolves once the subscription is confirmed. */
function subscribe(url: string, address: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const subscriber: Subscriber = { socket, logs: [] };
    socket.once('error', reject);
    socket.once('open', () =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address }] })),
    );
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Obj;
      if (message.id === 1) {
        if (typeof message.result !== 'string') reject(new Error(`subscribe failed: ${String(data)}`));
        else resolve(subscriber);
        return;
      }
      const log = (message.params as { result: Obj }).result;
      subscriber.logs.push(
        `${String(log.blockNumber)}:${String(log.logIndex)}:${String(log.transactionHash)}:${String(log.removed)}`,
      );
    });
  });
}

test(`${SUBSCRIBERS} WebSocket subscribers each receive every log of ${BLOCKS} ` +
  "appended blocks once, in order; the server's memory stays bounded", {
  timeout: 300_000,
}, async (t: TestContext) => {
  const address = busiestAddress();
  const url = `${server.url.replace('http://', 'ws://')}/ws/v3/${dataset.key}`;
  const subscribers: Subscriber[] = [];
  for (let i = 0; i < SUBSCRIBERS; i += 100)
    subscribers.push(...(await Promise.all(Array.from({ length: 100 }, () => subscribe(url, address)))));
  const rssBefore = server.rssKiB();

  const first = reader.head()! + 1;
  const writer = new StoreWriter(store);
  for (let i = 0; i < BLOCKS; i += BLOCKS_PER_APPEND) writer.append({ blocks: nextBlocks(reader, BLOCKS_PER_APPEND) });
  const last = reader.head()!;
  assert.equal(last, first + BLOCKS - 1);

  const res = await fetch(`${server.url}/v3/${dataset.key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getLogs',
      params: [{ address, fromBlock: quantityToHex(first), toBlock: quantityToHex(last) }],
    }),
  });
  const expected = ((await res.json()) as { result: Obj[] }).result.map(
    (l) => `${String(l.blockNumber)}:${String(l.logIndex)}:${String(l.transactionHash)}:false`,
  );
  assert.ok(expected.length >= BLOCKS, `${expected.length} matching logs in ${BLOCKS} blocks`);

  await until(
    async () => subscribers.every((s) => s.logs.length >= expected.length),
    `all ${SUBSCRIBERS} subscribers receive the ${expected.length} logs`,
    120_000,
  );
  const rssAfter = server.rssKiB();
  for (const [i, s] of subscribers.entries())
    assert.deepEqual(s.logs, expected, `subscriber ${i}: every log once, in order`);
  for (const s of subscribers) s.socket.terminate();
  t.diagnostic(
    `${SUBSCRIBERS} subscribers × ${expected.length} logs = ${SUBSCRIBERS * expected.length}` +
      ` notifications; server RSS ${Math.round(rssBefore / 1024)} MiB with the sockets open, ` +
      `${Math.round(rssAfter / 1024)} MiB after the run`,
  );
  assert.ok(
    rssAfter - rssBefore < RSS_GROWTH_LIMIT_KIB,
    `server RSS grew by ${Math.round((rssAfter - rssBefore) / 1024)} MiB`,
  );
  assert.equal(server.exit(), undefined, 'the server is still up');
});
