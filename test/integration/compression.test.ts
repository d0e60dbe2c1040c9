/**
 * Compression of HTTP answers by the real service over real sockets: gzip and brotli answers decode
 * to exactly the bytes the service sends uncompressed (small, whole and streamed eth_getLogs,
 * batches, JSON-RPC errors, fixed refusals); without Accept-Encoding the bytes are those of a
 * service with compression off; identity refused, the threshold, the gzip level and the off switch
 * hold; HEAD says what GET would; a client that does not read holds a streamed answer back, and
 * one that leaves mid-stream leaves nothing in flight.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { DEFAULT_BROTLI_QUALITY, DEFAULT_GZIP_LEVEL } from '#src/config.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, type ServiceOptions, startService } from '#src/service.js';
import { exchange, makeDataset, type RawAnswer, type TestDataset } from '../support/harness.js';
import { type CapturedLogger, captureLogger } from '../support/logCapture.js';

/**
 * Blocks of the dataset at mainnet density: about 500 logs a block, so the whole range answers ~60 MB of logs, ~9 MB
 * gzipped.
 */
const BLOCKS = 120;

/**
 * A result cap above the dataset's logs, so one eth_getLogs answer is large enough to meet the socket's backpressure
 * compressed.
 */
const MAX_RESULTS = 1_000_000;

/**
 * A query deadline the whole range never meets, however loaded the machine (the default 10 s did at load 12: a short
 * -32005 answer, not compressed).
 */
const TIMEOUT_MS = 600_000;

/** The last chunk of a chunked answer: a chunk of size 0 and the empty trailer. */
const LAST_CHUNK = '\r\n0\r\n\r\n';

/** Splits a raw HTTP/1.1 answer in chunked transfer encoding into its head and its body, the chunks joined. */
function dechunk(raw: Buffer): { head: string; body: Buffer } {
  const headEnd = raw.indexOf('\r\n\r\n');
  const parts: Buffer[] = [];
  let at = headEnd + 2;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at + 2);
    const size = Number.parseInt(raw.subarray(at + 2, lineEnd).toString('latin1'), 16);
    if (size === 0) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size;
  }
  return { head: raw.subarray(0, headEnd + 2).toString('latin1'), body: Buffer.concat(parts) };
}

/** The body of `raw` decoded as its Content-Encoding says. */
function decoded(raw: RawAnswer): Buffer {
  const coding = raw.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(raw.body);
  if (coding === 'br') return brotliDecompressSync(raw.body);
  assert.equal(coding, undefined, `unexpected coding ${String(coding)}`);
  return raw.body;
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * The request bodies of every answer shape, with whether each is small (under the threshold) or streamed (over 64 KiB).
 */
const BODIES: { label: string; body: string; size: 'small' | 'whole' | 'streamed' }[] = [
  { label: 'eth_chainId', body: JSON.stringify(call('eth_chainId')), size: 'small' },
  { label: 'an error (-32602)', body: JSON.stringify(call('eth_getBlockByNumber', ['0x01', false])), size: 'small' },
  {
    label: 'a block with hashes',
    body: JSON.stringify(call('eth_getBlockByNumber', [hex(BLOCKS - 2), false])),
    size: 'whole',
  },
  {
    label: 'a batch of errors',
    body: JSON.stringify(Array.from({ length: 40 }, (_, i) => call('eth_nothing', [], i))),
    size: 'whole',
  },
  {
    label: 'a batch of blocks and an error',
    body: JSON.stringify([
      call('eth_getBlockByNumber', [hex(3), false], 1),
      call('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }], 2),
      call('eth_getBlockByNumber', [hex(4), false], 3),
    ]),
    size: 'whole',
  },
  {
    label: 'eth_getLogs of one block',
    body: JSON.stringify(call('eth_getLogs', [{ fromBlock: hex(7), toBlock: hex(7) }])),
    size: 'streamed',
  },
  {
    label: 'eth_getLogs of 8 blocks',
    body: JSON.stringify(call('eth_getLogs', [{ fromBlock: hex(10), toBlock: hex(17) }])),
    size: 'streamed',
  },
  { label: 'a full block', body: JSON.stringify(call('eth_getBlockByNumber', [hex(9), true])), size: 'streamed' },
  {
    label: 'a batch of receipts',
    body: JSON.stringify([call('eth_getBlockReceipts', [hex(5)], 1), call('eth_getBlockReceipts', [hex(6)], 2)]),
    size: 'streamed',
  },
];

/** The whole chain's logs: the largest answer. */
const ALL_LOGS = JSON.stringify(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(BLOCKS - 1) }]));

let dataset: TestDataset;
/** Compression on (the defaults), two HTTP threads, its log captured. */
let on: RunningService;
let onLog: CapturedLogger;
/** Compression off: the reference bytes. */
let off: RunningService;
/** The reference answer of each body, from `off` without Accept-Encoding. */
const reference = new Map<string, RawAnswer>();

/** Starts a service over the dataset with `options`. */
function serve(options: Partial<ServiceOptions>): Promise<RunningService> {
  return startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    threads: 1,
    httpThreads: 1,
    limits: { maxResults: MAX_RESULTS, timeoutMs: TIMEOUT_MS },
    ...options,
  });
}

const rpcUrl = (service: RunningService, key = dataset.key) => `${service.url}/v3/${key}`;

before(async () => {
  dataset = await makeDataset(BLOCKS, 1, 'compression');
  onLog = captureLogger('info');
  on = await serve({ logger: onLog.logger, httpThreads: 2 });
  off = await serve({ compression: false });
  for (const { body } of [...BODIES, { body: ALL_LOGS }]) reference.set(body, await exchange(rpcUrl(off), { body }));
});

after(async () => {
  await on.close();
  await off.close();
  dataset.remove();
});

describe('compressed answers', () => {
  test('the reference answers have the shapes the tests need: small, whole, and over 64 KiB', () => {
    for (const { label, body, size } of BODIES) {
      const { status, body: bytes } = reference.get(body)!;
      assert.equal(status, 200, label);
      assert.ok(
        size === 'small'
          ? bytes.length < 1024
          : size === 'whole'
            ? bytes.length >= 1024 && bytes.length <= 64 * 1024
            : bytes.length > 64 * 1024,
        `${label}: ${bytes.length} bytes`,
      );
    }
    assert.ok(reference.get(ALL_LOGS)!.body.length > 30_000_000);
  });

  test(
    'without Accept-Encoding: the bytes of a service with compression ' +
      'off, with a Content-Length; Vary says they could differ',
    async () => {
      for (const { label, body } of BODIES) {
        const res = await exchange(rpcUrl(on), { body });
        const ref = reference.get(body)!;
        assert.equal(res.headers['content-encoding'], undefined, label);
        assert.ok(res.body.equals(ref.body), label);
        assert.equal(res.headers['content-length'], String(ref.body.length), label);
        assert.equal(res.headers.vary, 'Accept-Encoding', label);
        assert.equal(ref.headers.vary, undefined, `${label}: compression off says no Vary`);
      }
    },
  );

  test(
    'gzip and brotli answers decode to the same bytes: small ones as they ' +
      'are, whole ones with a Content-Length, large ones chunked',
    async () => {
      for (const [accept, coding] of [
        ['gzip', 'gzip'],
        ['gzip, deflate', 'gzip'],
        ['br', 'br'],
        ['gzip, deflate, br', 'br'],
        ['br;q=0.5, gzip', 'gzip'],
      ] as const) {
        for (const { label, body, size } of BODIES) {
          const what = `${label}, Accept-Encoding: ${accept}`;
          const res = await exchange(rpcUrl(on), { body, headers: { 'accept-encoding': accept } });
          const ref = reference.get(body)!;
          assert.equal(res.status, 200, what);
          assert.equal(res.headers['content-type'], 'application/json', what);
          assert.equal(res.headers.vary, 'Accept-Encoding', what);
          assert.equal(res.headers['content-encoding'], size === 'small' ? undefined : coding, what);
          assert.ok(decoded(res).equals(ref.body), what);
          if (size === 'streamed') {
            assert.equal(res.headers['transfer-encoding'], 'chunked', what);
            assert.equal(res.headers['content-length'], undefined, what);
          } else assert.equal(res.headers['content-length'], String(res.body.length), what);
          if (size !== 'small')
            assert.ok(
              res.body.length < ref.body.length / 1.5,
              `${what}: ${res.body.length} of ${ref.body.length} bytes`,
            );
        }
      }
    },
  );

  test('the whole chain of logs (tens of MB) streams compressed and decodes to the same bytes', async () => {
    const res = await exchange(rpcUrl(on), { body: ALL_LOGS, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.ok(decoded(res).equals(reference.get(ALL_LOGS)!.body));
  });

  test(
    'identity refused: even small answers and refusals ' + 'come compressed; nothing acceptable: as they are',
    async () => {
      const small = BODIES[0]!.body;
      const refused = await exchange(rpcUrl(on), { body: small, headers: { 'accept-encoding': 'identity;q=0, gzip' } });
      assert.equal(refused.headers['content-encoding'], 'gzip');
      assert.ok(decoded(refused).equals(reference.get(small)!.body));
      const starRefused = await exchange(rpcUrl(on), { body: small, headers: { 'accept-encoding': '*;q=0, br' } });
      assert.equal(starRefused.headers['content-encoding'], 'br');
      assert.ok(decoded(starRefused).equals(reference.get(small)!.body));
      const nothing = await exchange(rpcUrl(on), { body: small, headers: { 'accept-encoding': '*;q=0' } });
      assert.equal(nothing.headers['content-encoding'], undefined);
      assert.ok(nothing.body.equals(reference.get(small)!.body));

      const plain401 = await exchange(rpcUrl(off, dataset.revokedKey), { body: small });
      const coded401 = await exchange(rpcUrl(on, dataset.revokedKey), {
        body: small,
        headers: { 'accept-encoding': 'gzip, identity;q=0' },
      });
      assert.deepEqual([plain401.status, coded401.status], [401, 401]);
      assert.equal(coded401.headers['content-encoding'], 'gzip');
      assert.ok(decoded(coded401).equals(plain401.body));
    },
  );

  test('HEAD: /metrics and a 405 say the coding and the length GET would have', async () => {
    const head = await exchange(`${on.url}/metrics`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-encoding'], 'gzip');
    assert.equal(head.headers.vary, 'Accept-Encoding');
    assert.ok(Number(head.headers['content-length']) > 0);
    assert.equal(head.body.length, 0);
    const get = await exchange(`${on.url}/metrics`, { method: 'GET', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(get.headers['content-encoding'], 'gzip');
    assert.match(decoded(get).toString(), /^# HELP /m);

    const accept = { 'accept-encoding': 'identity;q=0, gzip' };
    const get405 = await exchange(rpcUrl(on), { method: 'GET', headers: accept });
    const head405 = await exchange(rpcUrl(on), { method: 'HEAD', headers: accept });
    assert.deepEqual([get405.status, head405.status], [405, 405]);
    assert.deepEqual([get405.headers['content-encoding'], head405.headers['content-encoding']], ['gzip', 'gzip']);
    assert.equal(head405.headers['content-length'], String(get405.body.length));
    assert.equal(head405.body.length, 0);
    const health = await exchange(`${on.url}/health`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(health.headers['content-encoding'], undefined, 'small: as it is');
    assert.equal(health.headers['content-length'], String('{"status":"ok"}'.length));
  });

  test(
    'a client that does not read holds a large compressed answer ' +
      'back while the server answers others, then gets it whole',
    async () => {
      // The answer (~6 MB gzipped) is larger than Linux lets a socket pair buffer by default (tcp_wmem's 4 MiB
      // plus the receiver's window): the server meets backpressure and resumes from onWritable.
      const socket = net.connect(on.port, '127.0.0.1');
      socket.pause();
      await once(socket, 'connect');
      socket.write(
        `POST /v3/${dataset.key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept-Encoding: ` +
          `gzip\r\nContent-Length: ${Buffer.byteLength(ALL_LOGS)}\r\n\r\n${ALL_LOGS}`,
      );
      const other = await exchange(rpcUrl(on), { body: BODIES[2]!.body, headers: { 'accept-encoding': 'gzip' } });
      assert.ok(
        decoded(other).equals(reference.get(BODIES[2]!.body)!.body),
        'answered while the other client does not read',
      );
      const raw = await new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => {
          chunks.push(c);
          if (c.subarray(-LAST_CHUNK.length).toString('latin1') === LAST_CHUNK) resolve(Buffer.concat(chunks));
        });
        socket.on('error', reject);
        socket.resume();
      });
      socket.destroy();
      const { head, body } = dechunk(raw);
      assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(head, /\r\ncontent-encoding: gzip\r\n/i);
      assert.ok(gunzipSync(body).equals(reference.get(ALL_LOGS)!.body));
    },
  );
});

describe('the operator decides', () => {
  test('the threshold and the gzip level: minBytes 0 compresses eth_chainId, at gzip level 9', async () => {
    const tuned = await serve({ compression: { minBytes: 0, gzipLevel: 9, codings: ['gzip'] } });
    try {
      for (const { label, body } of BODIES.slice(0, 4)) {
        const res = await exchange(rpcUrl(tuned), { body, headers: { 'accept-encoding': 'gzip, br' } });
        assert.equal(res.headers['content-encoding'], 'gzip', `${label}: gzip only offered`);
        assert.ok(res.body.equals(gzipSync(reference.get(body)!.body, { level: 9 })), `${label}: level 9`);
      }
    } finally {
      await tuned.close();
    }
  });

  test('a threshold above an answer leaves it as it is', async () => {
    const high = await serve({ compression: { minBytes: 10_000_000 } });
    try {
      const streamed = BODIES.find((b) => b.size === 'streamed')!.body;
      const res = await exchange(rpcUrl(high), { body: streamed, headers: { 'accept-encoding': 'gzip, br' } });
      assert.equal(res.headers['content-encoding'], undefined);
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.ok(res.body.equals(reference.get(streamed)!.body));
    } finally {
      await high.close();
    }
  });

  test('compression off: no Content-Encoding and no Vary, whatever the client accepts', async () => {
    for (const accept of ['gzip', 'br', 'identity;q=0, gzip', '*']) {
      for (const { label, body } of BODIES) {
        const res = await exchange(rpcUrl(off), { body, headers: { 'accept-encoding': accept } });
        assert.equal(res.headers['content-encoding'], undefined, label);
        assert.equal(res.headers.vary, undefined, label);
        assert.ok(res.body.equals(reference.get(body)!.body), label);
      }
    }
  });

  test('bad compression settings are refused before anything opens', async () => {
    await assert.rejects(serve({ compression: { gzipLevel: 0 } }), /gzip level 0 is not an integer from 1 to 9/);
    await assert.rejects(serve({ compression: { brotliQuality: 12 } }), /brotli quality 12/);
    await assert.rejects(serve({ compression: { minBytes: -1 } }), /compression threshold -1/);
  });
});

describe('a client that leaves mid-stream', () => {
  test(
    'the compressor stops, the request is logged as aborted ' + 'with the bytes sent, and nothing is left in flight',
    async (t) => {
      const log = captureLogger('info');
      const service = await serve({ logger: log.logger, shutdownGraceMs: 0 });
      let closed = false;
      try {
        for (const accept of ['gzip', 'br']) {
          const from = log.lines.length;
          await new Promise<void>((resolve, reject) => {
            const req = http.request(
              rpcUrl(service),
              { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': accept } },
              (res) => {
                assert.equal(res.headers['content-encoding'], accept);
                res.once('data', () => {
                  req.destroy();
                  resolve();
                });
              },
            );
            req.on('error', (err: NodeJS.ErrnoException) => {
              if (err.code !== 'ECONNRESET') reject(err);
            });
            req.end(ALL_LOGS);
          });
          const [line] = await log.waitFor((r) => r.msg === 'request', 1, from);
          assert.equal(line!.aborted, true, accept);
          assert.equal(line!.status, 200);
          assert.equal(line!.encoding, accept);
          const whole =
            accept === 'gzip'
              ? gzipSync(reference.get(ALL_LOGS)!.body, { level: DEFAULT_GZIP_LEVEL }).length
              : brotliCompressSync(reference.get(ALL_LOGS)!.body, {
                  params: { [constants.BROTLI_PARAM_QUALITY]: DEFAULT_BROTLI_QUALITY },
                }).length;
          t.diagnostic(
            `${accept}: ${String(line!.bytesOut)} of about ${whole} compressed bytes sent before the client left`,
          );
          assert.ok(
            typeof line!.bytesOut === 'number' && line!.bytesOut > 0 && line!.bytesOut < whole,
            `${accept}: ${String(line!.bytesOut)} of ${whole} bytes sent`,
          );
        }
        const after = await exchange(rpcUrl(service), {
          body: BODIES[2]!.body,
          headers: { 'accept-encoding': 'gzip' },
        });
        assert.ok(decoded(after).equals(reference.get(BODIES[2]!.body)!.body), 'the server answers on');
        const outcome = await service.close();
        closed = true;
        assert.deepEqual(
          { clean: outcome.clean, cut: outcome.httpRequestsCut },
          { clean: true, cut: 0 },
          'no request left in flight',
        );
      } finally {
        if (!closed) await service.close();
      }
    },
  );
});
