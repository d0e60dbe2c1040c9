/**
 * A batch cannot build an unbounded answer: an item whose answer would pass 25 MB (geth's batch
 * response limit), and every item after it, answer -32003 `response too large`, in order, while the
 * first ones are answered whole; the answer stays within the cap plus the error texts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_BATCH_CONCURRENCY, MAX_BATCH_RESPONSE_BYTES } from '#src/config.js';
import {
  makeDataset,
  type RpcResponse,
  startTestService,
  type TestDataset,
  type TestService,
} from '../support/harness.js';

let dataset: TestDataset;
let svc: TestService;

before(async () => {
  dataset = await makeDataset(300, 0.1, 'batch-limit');
  svc = await startTestService(dataset);
});

after(async () => {
  await svc.close();
  dataset.remove();
});

test('a batch of heavy eth_getLogs stops at the response size limit', async () => {
  const item = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_getLogs',
    params: [{ fromBlock: '0x0', toBlock: '0x96' }],
  });
  const one = (await svc.call('eth_getLogs', item(0).params)).result as unknown[];
  assert.ok(one.length > 1000 && one.length <= 10_000, `one item returns ${one.length} logs`);
  const itemBytes = JSON.stringify(one).length;
  const count = Math.ceil((2 * MAX_BATCH_RESPONSE_BYTES) / itemBytes) + MAX_BATCH_CONCURRENCY;
  const res = await fetch(svc.endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(Array.from({ length: count }, (_, i) => item(i + 1))),
  });
  const text = await res.text();
  const answers = JSON.parse(text) as RpcResponse[];
  const errorBytes =
    JSON.stringify({ jsonrpc: '2.0', id: count, error: { code: -32003, message: 'response too large' } }).length + 1;
  assert.ok(
    text.length <= MAX_BATCH_RESPONSE_BYTES + count * errorBytes,
    `answer of ${text.length} bytes stays within the cap`,
  );
  assert.deepEqual(
    answers.map((a) => a.id),
    Array.from({ length: count }, (_, i) => i + 1),
    'in request order',
  );
  const answered = answers.filter((a) => Array.isArray(a.result));
  const refused = answers.filter((a) => a.error);
  assert.ok(
    answered.length >= Math.floor(MAX_BATCH_RESPONSE_BYTES / itemBytes),
    `${answered.length} items answered whole`,
  );
  assert.ok(refused.length > 0, 'the rest are refused');
  for (const a of refused) assert.deepEqual(a.error, { code: -32003, message: 'response too large' });
  for (const a of answered) assert.equal((a.result as unknown[]).length, one.length);
  const firstRefused = answers.findIndex((a) => a.error !== undefined);
  assert.ok(
    answers.slice(firstRefused).every((a) => a.error),
    'only items after the limit are refused',
  );
});

test('a batch of point lookups is not affected', async () => {
  const items = Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }));
  const { json } = await svc.post(items);
  assert.ok((json as RpcResponse[]).every((a) => a.result === '0x12b'));
});
