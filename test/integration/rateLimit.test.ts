/**
 * Per-key rate limits through the real service on ephemeral ports (HTTP and gRPC, one bucket per
 * key shared by both): the burst passes and the next call gets 429 with Retry-After and Infura's
 * -32005 error, with its id (an array of per-call errors for a batch); a batch costs its calls and
 * is refused whole; another key is unaffected; gRPC says
 * RESOURCE_EXHAUSTED with the same code and message in its trailers. Keys created or revoked by
 * another process (`ethlogd keys`) count from the next request. The rate is so slow (one token per
 * 1,000 s) that no token comes back while a test runs: no clock, no sleeps.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { loadDefinition } from '#src/grpc/definition.js';
import { CODE_TRAILER, DATA_TRAILER, MESSAGE_TRAILER } from '#src/grpc/errors.js';
import { createLogger } from '#src/logger.js';
import { INVALID_KEY_MESSAGE, REVOKED_KEY_MESSAGE, UNAUTHORIZED } from '#src/rpc/errors.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { makeDataset, type TestDataset } from '../support/harness.js';

const PER_SECOND = 0.001;
const BURST = 3;
const CLI = new URL(import.meta.resolve('#src/cli.js')).pathname;
const run = promisify(execFile);

const EthLogs = (
  grpc.loadPackageDefinition(loadDefinition()) as unknown as {
    ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } };
  }
).ethlogd.v1.EthLogs;

type Obj = Record<string, any>;

let dataset: TestDataset;
let svc: RunningService;
let client: grpc.Client;
/** Fresh keys, one per test, so each starts with a full bucket. */
const keys: string[] = [];

before(async () => {
  dataset = await makeDataset(20, 0.05, 'rate');
  const store = openStore(dataset.dir);
  for (let i = 0; i < 6; i++) keys.push(createApiKey(store, `rate-${i}`));
  await closeStore(store);
  svc = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    grpcPort: 0,
    threads: 1,
    logger: createLogger('warn'),
    rateLimit: { perSecond: PER_SECOND, burst: BURST },
  });
  client = new EthLogs(`127.0.0.1:${svc.grpcPort}`, grpc.credentials.createInsecure());
});

after(async () => {
  client.close();
  await svc.close();
  dataset.remove();
});

/** POSTs `body` with `key`; the status, Retry-After and parsed body. */
async function post(key: string, body: unknown): Promise<{ status: number; retryAfter: string | null; json: any }> {
  const res = await fetch(`${svc.url}/v3/${key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] });
const batch = (n: number) => Array.from({ length: n }, (_, i) => call(i + 1));

/**
 * Asserts a 429 with the over-the-limit body and a Retry-After of about one token's time: each
 * call's error with its id (`ids`), an array of them for a batch.
 */
function assertLimited(answer: { status: number; retryAfter: string | null; json: any }, ids: number | number[]): void {
  assert.equal(answer.status, 429);
  const seconds = Number(answer.retryAfter);
  assert.ok(Number.isInteger(seconds) && seconds > 0 && seconds <= 1 / PER_SECOND, `Retry-After: ${answer.retryAfter}`);
  assert.equal(Array.isArray(answer.json), Array.isArray(ids), 'an array of errors for a batch, one object for a call');
  const answers = Array.isArray(answer.json) ? answer.json : [answer.json];
  assert.deepEqual(
    answers.map((a: { id: unknown }) => a.id),
    Array.isArray(ids) ? ids : [ids],
  );
  for (const one of answers) {
    assert.equal(one.jsonrpc, '2.0');
    assert.equal(one.error.code, -32005);
    assert.equal(one.error.message, 'project ID request rate exceeded');
    assert.equal(one.error.data.allowed_rps, PER_SECOND);
    assert.ok(one.error.data.backoff_seconds > seconds - 1 && one.error.data.backoff_seconds <= seconds);
  }
}

/** A unary gRPC call with `key`: the response, or the failure with its JSON-RPC trailers. */
function grpcCall(key: string): Promise<{ ok: Obj } | { code: grpc.status; details: string; jsonrpc: Obj }> {
  return new Promise((resolve) => {
    const md = new grpc.Metadata();
    md.set('x-api-key', key);
    (client as any).GetBlockByNumber(
      { block: { tag: 'BLOCK_TAG_LATEST' } },
      md,
      (error: grpc.ServiceError | null, response: Obj) => {
        if (!error) return resolve({ ok: response });
        const data = error.metadata.get(DATA_TRAILER)[0];
        const jsonrpc: Obj = {
          code: Number(error.metadata.get(CODE_TRAILER)[0]),
          message: String(error.metadata.get(MESSAGE_TRAILER)[0]),
        };
        if (data !== undefined) jsonrpc.data = JSON.parse(String(data));
        resolve({ code: error.code, details: error.details, jsonrpc });
      },
    );
  });
}

describe('HTTP', () => {
  test('the burst passes, the next call gets 429 with Retry-After and -32005', async () => {
    const key = keys[0]!;
    for (let i = 0; i < BURST; i++) {
      const ok = await post(key, call(i));
      assert.equal(ok.status, 200);
      assert.equal(ok.json.result, '0x13');
    }
    assertLimited(await post(key, call(9)), 9);
    assertLimited(await post(key, batch(2)), [1, 2]);
  });

  test('a batch of N calls costs N; one the bucket cannot pay is refused whole and costs nothing', async () => {
    const key = keys[1]!;
    const two = await post(key, batch(2));
    assert.equal(two.status, 200);
    assert.equal(two.json.length, 2);
    const refused = await post(key, batch(2));
    assertLimited(refused, [1, 2]);
    const last = await post(key, call(1));
    assert.equal(last.status, 200, 'the refused batch spent nothing: one token was left');
    assertLimited(await post(key, call(2)), 2);
  });

  test('a batch larger than the burst is refused without Retry-After: no wait would admit it', async () => {
    const key = keys[2]!;
    const refused = await post(key, batch(BURST + 1));
    assert.equal(refused.status, 429);
    assert.equal(refused.retryAfter, null);
    const error = { code: -32005, message: `batch of ${BURST + 1} calls exceeds the rate limit burst of ${BURST}` };
    assert.deepEqual(
      refused.json,
      batch(BURST + 1).map(({ id }) => ({ jsonrpc: '2.0', id, error })),
    );
    const full = await post(key, batch(BURST));
    assert.equal(full.status, 200, 'the bucket was untouched');
    assert.equal(full.json.length, BURST);
  });

  test('another key is unaffected by an exhausted one; invalid keys spend nothing and still get 401', async () => {
    const [spent, other] = [keys[3]!, keys[4]!];
    assert.equal((await post(spent, batch(BURST))).status, 200);
    assertLimited(await post(spent, call(1)), 1);
    const ok = await post(other, call(1));
    assert.equal(ok.status, 200);
    for (let i = 0; i < BURST + 2; i++) {
      const unknown = await post('f'.repeat(64), call(i));
      assert.equal(unknown.status, 401);
      assert.equal(unknown.json.error.message, INVALID_KEY_MESSAGE);
    }
  });
});

describe('gRPC', () => {
  test('RESOURCE_EXHAUSTED with -32005 in the trailers, sharing the key bucket with HTTP', async () => {
    const key = keys[5]!;
    assert.equal((await post(key, batch(BURST - 1))).status, 200);
    const ok = await grpcCall(key);
    assert.ok('ok' in ok && ok.ok.block, 'the last token');
    const refused = await grpcCall(key);
    assert.ok('code' in refused, 'refused');
    assert.equal(refused.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(refused.details, 'project ID request rate exceeded');
    assert.equal(refused.jsonrpc.code, -32005);
    assert.equal(refused.jsonrpc.message, 'project ID request rate exceeded');
    assert.equal(refused.jsonrpc.data.allowed_rps, PER_SECOND);
    assertLimited(await post(key, call(1)), 1);
  });
});

describe('keys changed by another process', () => {
  test(
    'a key created by `ethlogd keys create` works at once; ' + '`keys revoke` refuses it from the next request on',
    async () => {
      const created = await run(process.execPath, [CLI, 'keys', 'create', '--data', dataset.dir, '--label', 'late']);
      const key = created.stdout.trim().split('\n').at(-1)!;
      assert.match(key, /^[0-9a-f]{64}$/);
      assert.equal((await post(key, call(1))).status, 200);
      assert.ok('ok' in (await grpcCall(key)));
      await run(process.execPath, [CLI, 'keys', 'revoke', '--data', dataset.dir, key]);
      const refused = await post(key, call(2));
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.json, {
        jsonrpc: '2.0',
        id: null,
        error: { code: UNAUTHORIZED, message: REVOKED_KEY_MESSAGE },
      });
      const grpcRefused = await grpcCall(key);
      assert.ok('code' in grpcRefused);
      assert.equal(grpcRefused.code, grpc.status.UNAUTHENTICATED);
      assert.deepEqual(grpcRefused.jsonrpc, { code: UNAUTHORIZED, message: REVOKED_KEY_MESSAGE });
    },
  );
});
