/**
 * JSON-RPC over WebSocket on the service's HTTP port, with real `ws` clients: the same answers as
 * over HTTP on both paths (single and batch), keys checked at the upgrade, eth_subscribe for
 * newHeads and logs while a writer appends blocks to the store the service reads (as `ingest
 * --follow` does from another process), a reorganisation's dropped logs again with `removed: true`
 * before the new branch's, subscription errors as geth gives them, the per-connection limit, a
 * revoked key's socket closed, and a client that stops reading closed while another keeps up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { DEFAULT_LOG_LIMITS, MAX_BODY_BYTES } from '#src/config.js';
import { startHttpServer } from '#src/http/server.js';
import { storeFront } from '#src/http/storeFront.js';
import { createLogger } from '#src/logger.js';
import { createApiKey, revokeApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '#src/ws/subscriptions.js';
import { nextBlocks } from '../support/chainGrowth.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';
import { until } from '../support/poll.js';

const BLOCKS = 60;
const DENSITY = 0.2;

let dataset: TestDataset;
let svc: TestService;
let store: Store;
let reader: StoreReader;
let writer: StoreWriter;
let wsUrl: string;

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, 'websocket');
  store = openStore(dataset.dir);
  reader = new StoreReader(store);
  writer = new StoreWriter(store);
  svc = await startTestService(dataset);
  wsUrl = svc.service.url.replace('http://', 'ws://');
});

after(async () => {
  await svc.close();
  await closeStore(store);
  dataset.remove();
});

/**
 * The result of a call about blocks just appended, once the HTTP thread that answers it sees them:
 * each thread reads its own snapshot and sees a commit from its next timer tick on, so a call right
 * after an append may meet a thread a tick behind (an error beyond its head, or null).
 */
async function visible(method: string, params: unknown[]): Promise<unknown> {
  let result: unknown;
  await until(async () => {
    const res = await svc.call(method, params);
    result = res.result;
    return res.error === undefined && result !== null;
  }, `${method} sees the appended blocks`);
  return result;
}

/** A JSON-RPC client over one WebSocket: answers by id, notifications by subscription, in arrival order. */
class Client {
  private nextId = 1;
  private readonly waiting = new Map<unknown, (message: Record<string, unknown>) => void>();
  private readonly notified = new Map<string, unknown[]>();
  private readonly wakers: (() => void)[] = [];
  /** The close code and reason once closed. */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      if (message.method === 'eth_subscription') {
        this.notifiedBytes += (data as Buffer).length;
        const params = message.params as { subscription: string; result: unknown };
        const list = this.notified.get(params.subscription) ?? [];
        list.push(params.result);
        this.notified.set(params.subscription, list);
        for (const wake of this.wakers.splice(0)) wake();
        return;
      }
      const key = Array.isArray(message) ? 'batch' : message.id;
      this.waiting.get(key)?.(message);
      this.waiting.delete(key);
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  /** Bytes of notifications received so far. */
  notifiedBytes = 0;

  /** Opens a socket to `path` on the service (or to the whole `url`) and resolves once it is open. */
  static open(path: string, url = wsUrl + path): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('open', () => resolve(new Client(socket)));
      socket.once('error', reject);
    });
  }

  /**
   * Sends `body` (a string or bytes as they are, else as JSON text) and resolves with the parsed answer (a batch's
   * array under the key 'batch').
   */
  send(body: unknown, key: unknown): Promise<unknown> {
    return new Promise((resolve) => {
      this.waiting.set(key, resolve);
      this.socket.send(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
    });
  }

  /** Calls `method` and resolves with the whole response. */
  call(method: string, params: unknown[]): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return this.send({ jsonrpc: '2.0', id, method, params }, id) as Promise<Record<string, unknown>>;
  }

  /** Subscribes and resolves with the subscription id. */
  async subscribe(params: unknown[]): Promise<string> {
    const answer = await this.call('eth_subscribe', params);
    assert.equal(typeof answer.result, 'string', JSON.stringify(answer));
    return answer.result as string;
  }

  /** Resolves with the first `count` notifications of subscription `id` once they have arrived. */
  async notifications(id: string, count: number): Promise<unknown[]> {
    while ((this.notified.get(id)?.length ?? 0) < count) await new Promise<void>((wake) => this.wakers.push(wake));
    return this.notified.get(id)!.slice(0, count);
  }

  /** The notifications of `id` received so far. */
  received(id: string): unknown[] {
    return this.notified.get(id) ?? [];
  }
}

/** The HTTP status a refused upgrade to `path` gets. */
function refusedUpgrade(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl + path);
    let status = 0;
    socket.once('unexpected-response', (_req, res) => {
      status = res.statusCode ?? 0;
      socket.terminate();
    });
    // terminate() ends the refused handshake with this error; the status was read first.
    socket.once('error', () =>
      status === 0 ? reject(new Error(`no HTTP answer to the upgrade of ${path}`)) : resolve(status),
    );
    socket.once('open', () => reject(new Error(`the upgrade to ${path} was accepted`)));
  });
}

/** The address of the first log of the first of `blocks`. */
function busyAddress(blocks: BlockBundle[]): string {
  return bytesToHex(blocks[0]!.logs[0]!.address);
}

describe('WebSocket JSON-RPC', () => {
  test('both paths answer single calls and batches as HTTP does', async () => {
    for (const path of [`/ws/v3/${dataset.key}`, `/v3/${dataset.key}`]) {
      const client = await Client.open(path);
      try {
        const block = await client.call('eth_getBlockByNumber', ['0x5', true]);
        assert.deepEqual(block.result, await svc.result('eth_getBlockByNumber', ['0x5', true]));
        const logs = await client.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x10' }]);
        assert.deepEqual(logs.result, await svc.result('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x10' }]));
        const batch = (await client.send(
          [
            { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
            { jsonrpc: '2.0', id: 'b', method: 'eth_getTransactionByBlockNumberAndIndex', params: ['0x3', '0x0'] },
          ],
          'batch',
        )) as Record<string, unknown>[];
        assert.deepEqual(
          batch.map((r) => r.id),
          ['a', 'b'],
        );
        assert.equal(batch[0]!.result, await svc.result('eth_chainId', []));
        const missing = await client.call('eth_nope', []);
        assert.equal((missing.error as { code: number }).code, -32601);
        assert.equal(
          ((await client.send('{"jsonrpc":', null)) as { error: { code: number } }).error.code,
          -32700,
          'malformed JSON: a parse error, the socket stays',
        );
        assert.deepEqual((await client.call('eth_chainId', [])).result, await svc.result('eth_chainId', []));
      } finally {
        client.socket.close();
      }
    }
  });

  test('frames: binary JSON is answered, garbage gets a parse error, ' +
    'a flood is answered whole, a message over the body limit closes the socket with 1009', {
    timeout: 60_000,
  }, async () => {
    const client = await Client.open(`/ws/v3/${dataset.key}`);
    const chainId = await svc.result('eth_chainId', []);
    const answer = new Promise<unknown>((resolve) =>
      client.socket.once('message', (data) => resolve(JSON.parse(String(data)))),
    );
    client.socket.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'bin', method: 'eth_chainId', params: [] })), {
      binary: true,
    });
    assert.deepEqual(await answer, { jsonrpc: '2.0', id: 'bin', result: chainId });
    const bytes = Buffer.from([0xff, 0x00, 0x7b]);
    const overHttp = await fetch(svc.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: bytes,
    });
    assert.deepEqual(await client.send(bytes, null), await overHttp.json(), 'garbage: the error HTTP gives');
    const FLOOD = 1_000;
    const answers = await Promise.all(Array.from({ length: FLOOD }, () => client.call('eth_blockNumber', [])));
    assert.equal(answers.filter((a) => typeof a.result === 'string').length, FLOOD);
    client.socket.send('[' + ' '.repeat(MAX_BODY_BYTES) + ']');
    const { code } = await client.closed;
    assert.equal(code, 1009, 'closed as too big');
    assert.equal(await svc.result('eth_chainId', []), chainId, 'the server goes on');
  });

  test('fuzzed frames (bytes, text, JSON, calls of every kind) each ' +
    'get valid JSON-RPC or nothing, and the socket stays', {
    timeout: 120_000,
  }, async () => {
    const socket = await new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${wsUrl}/ws/v3/${dataset.key}`);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
    const received: string[] = [];
    const wakers: (() => void)[] = [];
    socket.on('message', (data) => {
      received.push(String(data));
      for (const wake of wakers.splice(0)) wake();
    });
    const call = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.jsonValue()),
        method: fc.oneof(
          fc.constantFrom(
            'eth_subscribe',
            'eth_unsubscribe',
            'eth_getLogs',
            'eth_blockNumber',
            'eth_getFilterChanges',
            'eth_newFilter',
          ),
          fc.string(),
        ),
        params: fc.oneof(
          fc.array(fc.jsonValue(), { maxLength: 3 }),
          fc.jsonValue(),
          fc.constant(['logs', { address: '0x' + '11'.repeat(20) }]),
          fc.constant(['newHeads']),
        ),
      },
      { requiredKeys: [] },
    );
    const frame = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.string({ maxLength: 200 }),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
      call.map((c) => JSON.stringify(c)),
      fc.array(call, { maxLength: 5 }).map((c) => JSON.stringify(c)),
    );
    let probe = 0;
    await fc.assert(
      fc.asyncProperty(frame, async (body) => {
        received.length = 0;
        socket.send(body);
        const id = `probe-${probe++}`;
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }));
        while (!received.some((m) => m.includes(`"${id}"`))) await new Promise<void>((wake) => wakers.push(wake));
        for (const message of received) {
          const parsed = JSON.parse(message) as unknown;
          for (const answer of Array.isArray(parsed) ? parsed : [parsed]) {
            assert.equal((answer as { jsonrpc: string }).jsonrpc, '2.0', message);
            const error = (answer as { error?: { code: number } }).error;
            if (error) assert.notEqual(error.code, -32603, `no internal error: ${message}`);
          }
        }
      }),
      { numRuns: 400, seed: 14 },
    );
    assert.equal(socket.readyState, WebSocket.OPEN);
    socket.close();
  });

  test('upgrades without a valid key are refused with 401', async () => {
    assert.equal(await refusedUpgrade('/ws/v3/nope'), 401);
    assert.equal(await refusedUpgrade(`/ws/v3/${dataset.revokedKey}`), 401);
    assert.equal(await refusedUpgrade('/ws/v3/'), 404, 'no key in the path: not an API path');
  });

  test(
    'subscription errors: unknown name, a range in a logs ' + 'filter, a bad filter, an unknown id; unsubscribe once',
    async () => {
      const client = await Client.open(`/ws/v3/${dataset.key}`);
      try {
        assert.deepEqual((await client.call('eth_subscribe', ['pendingBlocks'])).error, {
          code: -32601,
          message: 'no "pendingBlocks" subscription in eth namespace',
        });
        assert.equal(
          ((await client.call('eth_subscribe', ['logs', { fromBlock: '0x1' }])).error as { code: number }).code,
          -32602,
        );
        assert.equal(
          ((await client.call('eth_subscribe', ['logs', { address: '0x12' }])).error as { code: number }).code,
          -32602,
        );
        assert.deepEqual((await client.call('eth_unsubscribe', ['0x1234'])).error, {
          code: -32000,
          message: 'subscription not found',
        });
        const id = await client.subscribe(['newHeads']);
        assert.match(id, /^0x[0-9a-f]{32}$/);
        assert.equal((await client.call('eth_unsubscribe', [id])).result, true);
        assert.deepEqual((await client.call('eth_unsubscribe', [id])).error, {
          code: -32000,
          message: 'subscription not found',
        });
        const batch = (await client.send(
          [
            { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
            { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
          ],
          'batch',
        )) as Record<string, unknown>[];
        assert.match(batch[0]!.result as string, /^0x[0-9a-f]{32}$/, 'a subscription in a batch');
        assert.equal(batch[1]!.result, await svc.result('eth_blockNumber', []));
      } finally {
        client.socket.close();
      }
    },
  );

  test(`at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection; the socket stays`, async () => {
    const client = await Client.open(`/ws/v3/${dataset.key}`);
    try {
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) await client.subscribe(['newHeads']);
      const over = await client.call('eth_subscribe', ['newHeads']);
      assert.equal((over.error as { code: number }).code, -32005);
      assert.equal((await client.call('eth_chainId', [])).result, await svc.result('eth_chainId', []));
    } finally {
      client.socket.close();
    }
  });

  test(
    'newHeads and logs follow appended blocks in order; a reorganisation sends ' +
      'the dropped logs with removed: true, then the new branch',
    async () => {
      const client = await Client.open(`/ws/v3/${dataset.key}`);
      try {
        const first = nextBlocks(reader, 3);
        const address = busyAddress(first);
        const heads = await client.subscribe(['newHeads']);
        const logs = await client.subscribe(['logs', { address }]);
        const all = await client.subscribe(['logs', {}]);

        writer.append({ blocks: first.slice(0, 1) });
        writer.append({ blocks: first.slice(1) });
        const from = quantityToHex(first[0]!.header.number);
        const to = quantityToHex(first[2]!.header.number);
        const expectedLogs = (await visible('eth_getLogs', [{ fromBlock: from, toBlock: to, address }])) as unknown[];
        const expectedAll = (await visible('eth_getLogs', [{ fromBlock: from, toBlock: to }])) as unknown[];
        assert.ok(expectedLogs.length > 0);

        const gotHeads = (await client.notifications(heads, 3)) as Record<string, unknown>[];
        for (let i = 0; i < 3; i++) {
          const block = (await visible('eth_getBlockByNumber', [
            quantityToHex(first[i]!.header.number),
            false,
          ])) as Record<string, unknown>;
          const { transactions: _t, uncles: _u, size: _s, totalDifficulty: _d, withdrawals: _w, ...header } = block;
          assert.deepEqual(gotHeads[i], header, `head ${i}: the block's header fields`);
        }
        assert.deepEqual(
          await client.notifications(logs, expectedLogs.length),
          expectedLogs,
          'the address filter: every log, in order',
        );
        assert.deepEqual(
          await client.notifications(all, expectedAll.length),
          expectedAll,
          'no filter: every log of the new blocks',
        );

        // Replace the last two blocks by a branch of three.
        const dropped = expectedLogs.filter((l) => (l as { blockNumber: string }).blockNumber !== from) as Record<
          string,
          unknown
        >[];
        const branch = nextBlocks(reader, 3, first[0]!.header.number);
        writer.append({ rollbackTo: first[0]!.header.number, blocks: branch });
        const branchFrom = quantityToHex(branch[0]!.header.number);
        const branchTo = quantityToHex(branch[2]!.header.number);
        const branchLogs = (await visible('eth_getLogs', [
          { fromBlock: branchFrom, toBlock: branchTo, address },
        ])) as unknown[];
        const removed = [...dropped]
          .sort((a, b) => Number(b.blockNumber) - Number(a.blockNumber) || Number(a.logIndex) - Number(b.logIndex))
          .map((l) => ({ ...l, removed: true }));
        const after = await client.notifications(logs, expectedLogs.length + removed.length + branchLogs.length);
        assert.deepEqual(
          after.slice(expectedLogs.length),
          [...removed, ...branchLogs],
          'dropped logs newest block first with removed: true, then the new branch',
        );
        const newHeads = (await client.notifications(heads, 6)).slice(3) as { number: string; hash: string }[];
        assert.deepEqual(
          newHeads.map((h) => h.hash),
          branch.map((b) => bytesToHex(b.header.hash)),
          'newHeads: the new branch',
        );
      } finally {
        client.socket.close();
      }
    },
  );

  test("a revoked key's open socket is closed with 1008", { timeout: 30_000 }, async () => {
    const key = createApiKey(store, 'soon revoked');
    const client = await Client.open(`/ws/v3/${key}`);
    assert.equal((await client.call('eth_chainId', [])).result, await svc.result('eth_chainId', []));
    revokeApiKey(store, key);
    assert.deepEqual(await client.closed, { code: 1008, reason: 'API key revoked' });
  });
});

describe('WebSocket send buffer', () => {
  const SEND_BUFFER = 64 * 1024;
  /**
   * Notification bytes sent to both clients: past what loopback's socket buffers hold (a few MB) and the server's
   * bound.
   */
  const STALL_BYTES = 24 * 1024 * 1024;

  test('a subscriber that stops reading is closed with 1008 while another receives everything', {
    timeout: 60_000,
  }, async () => {
    const front = storeFront({
      store,
      ctx: { reader, limits: DEFAULT_LOG_LIMITS, queryLogs: () => Promise.reject(new Error('not used')) },
      onError: () => {},
    });
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      ...front,
      ws: { ...front.ws!, sendBufferBytes: SEND_BUFFER },
      logger: createLogger('silent'),
    });
    const url = `ws://127.0.0.1:${server.port}/ws/v3/${dataset.key}`;
    const reading = await Client.open('', url);
    const stalled = await Client.open('', url);
    try {
      const readingId = await reading.subscribe(['logs', {}]);
      await stalled.subscribe(['logs', {}]);
      // The stalled client's socket stops being read: the kernel's buffers fill, then the server's.
      (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      let sent = 0;
      while (reading.notifiedBytes < STALL_BYTES) {
        const blocks = nextBlocks(reader, 16);
        writer.append({ blocks });
        sent += blocks.reduce((n, b) => n + b.logs.length, 0);
        await reading.notifications(readingId, sent);
      }
      (stalled.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      const { code, reason } = await stalled.closed;
      assert.equal(code, 1008);
      assert.match(reason, /subscriber fell behind: notifications of 4 head changes unread/);
      assert.equal(reading.received(readingId).length, sent, 'the reading client got every log');
    } finally {
      reading.socket.close();
      stalled.socket.terminate();
      await server.close();
    }
  });
});
