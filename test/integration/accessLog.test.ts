/**
 * The request log of a real service at debug level, its pino output captured in memory: one line
 * per API request with its methods, status, duration, call count and the key's id, and the API
 * key itself nowhere in the output; at info level no request line is written.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startService, type RunningService } from '../../src/service.js';
import { makeDataset, type TestDataset } from './harness.js';
import { captureLogger, type CapturedLogger } from './logCapture.js';

let dataset: TestDataset;
let service: RunningService;
let captured: CapturedLogger;

before(async () => {
  dataset = await makeDataset(20, 0.02, 'request-log');
  captured = captureLogger('debug');
  // One HTTP thread: another thread's lines reach the logger by message, just after its answers, and this test reads the log right after them.
  service = await startService({ dataDir: dataset.dir, host: '127.0.0.1', port: 0, logger: captured.logger, threads: 1, httpThreads: 1 });
});

after(async () => {
  await service.close();
  dataset.remove();
});

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });

/** POSTs `body` to `/v3/<key>` and returns the status once the answer is read. */
async function post(key: string, body: unknown, contentType = 'application/json'): Promise<number> {
  const res = await fetch(`${service.url}/v3/${key}`, { method: 'POST', headers: { 'Content-Type': contentType }, body: JSON.stringify(body) });
  await res.text();
  return res.status;
}

/** The log's request lines written since line `from`. */
function requestLines(from: number): Record<string, unknown>[] {
  return captured.records().slice(from).filter((r) => r.msg === 'request');
}

/** The id the log shows for `key`: the first 8 hex digits of its sha256. */
const idOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

test('one debug line per API request: methods, status, duration, calls and the key id, never the key', async () => {
  const start = captured.lines.length;
  assert.equal(await post(dataset.key, call('eth_chainId')), 200);
  assert.equal(await post(dataset.key, [call('eth_blockNumber', [], 1), call('eth_chainId', [], 2), call('eth_blockNumber', [], 3), call('eth_nothing', [], 4)]), 200);
  assert.equal(await post(dataset.key, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])), 200);
  assert.equal(await post(dataset.revokedKey, call('eth_chainId')), 401);
  assert.equal(await post(dataset.key, call('eth_chainId'), 'text/plain'), 415);
  assert.equal((await fetch(`${service.url}/health`)).status, 200);

  const lines = requestLines(start);
  assert.equal(lines.length, 5, 'a line per API request, none for /health');
  for (const line of lines) {
    assert.equal(line.level, 'debug');
    assert.equal(typeof line.time, 'string');
    assert.ok(typeof line.ms === 'number' && line.ms >= 0, `ms ${String(line.ms)}`);
    assert.equal(line.url, undefined, 'the URL (which holds the key) is not logged');
  }
  const [single, batch, logs, revoked, unsupported] = lines as [Record<string, unknown>, ...Record<string, unknown>[]];
  assert.deepEqual(
    { status: single.status, methods: single.methods, calls: single.calls, errors: single.errors, batch: single.batch, key: single.key },
    { status: 200, methods: ['eth_chainId'], calls: 1, errors: 0, batch: false, key: idOf(dataset.key) },
  );
  assert.deepEqual(
    { status: batch!.status, methods: batch!.methods, calls: batch!.calls, errors: batch!.errors, batch: batch!.batch },
    { status: 200, methods: ['eth_blockNumber', 'eth_chainId', 'unknown'], calls: 4, errors: 1, batch: true },
  );
  assert.deepEqual({ status: logs!.status, methods: logs!.methods, calls: logs!.calls }, { status: 200, methods: ['eth_getLogs'], calls: 1 });
  assert.deepEqual({ status: revoked!.status, calls: revoked!.calls, key: revoked!.key }, { status: 401, calls: 0, key: idOf(dataset.revokedKey) });
  assert.deepEqual({ status: unsupported!.status, calls: unsupported!.calls }, { status: 415, calls: 0 });

  const output = captured.lines.join('\n');
  for (const key of [dataset.key, dataset.revokedKey]) assert.ok(!output.includes(key), 'no API key in the log');
});

test('at info level no request line is written', async () => {
  const quiet = captureLogger('info');
  const other = await startService({ dataDir: dataset.dir, host: '127.0.0.1', port: 0, logger: quiet.logger, threads: 1 });
  try {
    const res = await fetch(`${other.url}/v3/${dataset.key}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(call('eth_chainId')) });
    assert.equal(res.status, 200);
    await res.text();
  } finally {
    await other.close();
  }
  assert.equal(quiet.records().filter((r) => r.msg === 'request').length, 0);
  assert.ok(quiet.records().some((r) => r.level === 'info' && String(r.msg).startsWith('http: listening on')), 'info lines still are');
});
