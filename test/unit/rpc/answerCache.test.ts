import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { AnswerCache, MAX_CACHED_ANSWER_BYTES } from '#src/rpc/answerCache.js';
import type { StoreReader } from '#src/store/reader.js';

/** A reader whose markers the test sets (AnswerCache reads nothing else of it). */
function markedReader(): { reader: StoreReader; marks: { value: string | undefined } } {
  const marks = { value: '10,0,0,10,10' as string | undefined };
  return { reader: { tickMarks: () => marks.value } as unknown as StoreReader, marks };
}

test('keyOf: the methods answered from the canonical chain, without a pending tag or overlong params', () => {
  const { reader } = markedReader();
  const cache = new AnswerCache(reader);
  const cases: [string, unknown[] | undefined, boolean][] = [
    ['eth_getLogs', [{ blockHash: '0x' + '1'.repeat(64) }], true],
    ['eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }], true],
    ['eth_getLogs', [{ fromBlock: '0x1', toBlock: 'pending' }], false],
    ['eth_getBlockByNumber', ['0x10', false], true],
    ['eth_getBlockByNumber', ['pending', true], false],
    ['eth_getBlockByHash', ['0x' + '2'.repeat(64), true], true],
    ['eth_getTransactionByHash', ['0x' + '3'.repeat(64)], true],
    ['eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0'], true],
    ['eth_getTransactionByBlockHashAndIndex', ['0x' + '4'.repeat(64), '0x0'], true],
    ['eth_getStorageAt', ['0x' + '5'.repeat(40), '0x0', 'latest'], true],
    ['eth_getTransactionReceipt', ['0x' + '6'.repeat(64)], true],
    ['eth_getBlockReceipts', ['0x1'], true],
    ['eth_blockNumber', [], false],
    ['eth_chainId', undefined, false],
    ['eth_syncing', [], false],
    ['eth_getFilterLogs', ['0x1'], false],
    ['eth_getFilterChanges', ['0x1'], false],
    ['eth_newFilter', [{}], false],
    ['eth_getLogs', [{ address: Array.from({ length: 100 }, (_, i) => '0x' + String(i).padStart(40, '0')) }], false],
  ];
  for (const [method, params, kept] of cases)
    assert.equal(cache.keyOf(method, params) !== undefined, kept, `${method} ${JSON.stringify(params)}`);
  assert.equal(cache.keyOf('eth_getBlockByNumber', undefined), 'eth_getBlockByNumber[]');
  const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown[];
  assert.equal(cache.keyOf('eth_getLogs', deep), undefined, 'params too deep to write are not kept (and do not throw)');
  assert.notEqual(
    cache.keyOf('eth_getBlockByNumber', ['0x1', false]),
    cache.keyOf('eth_getBlockByNumber', ['0x1', true]),
  );
});

test('get and put: kept under the same markers, forgotten when they move, never kept without markers', () => {
  const { reader, marks } = markedReader();
  const cache = new AnswerCache(reader);
  const key = cache.keyOf('eth_getBlockByNumber', ['0x1', false])!;
  assert.equal(cache.get(key), undefined);
  cache.put(key, '{"number":"0x1"}');
  assert.equal(cache.get(key), '{"number":"0x1"}');
  const bytes = Buffer.from('[{"logIndex":"0x0"}]');
  const logsKey = cache.keyOf('eth_getLogs', [{ blockHash: '0x' + 'a'.repeat(64) }])!;
  assert.equal(cache.get(logsKey), undefined);
  cache.put(logsKey, bytes);
  assert.equal(cache.get(logsKey), bytes);
  assert.deepEqual(cache.counts, { hits: 2, misses: 2 });

  marks.value = '11,0,0,11,11';
  assert.equal(cache.get(key), undefined, 'a new head empties the cache');
  assert.equal(cache.get(logsKey), undefined);
  marks.value = '10,0,0,10,10';
  assert.equal(cache.get(key), undefined, 'markers back where they were do not bring answers back');

  marks.value = undefined;
  assert.equal(cache.get(key), undefined);
  cache.put(key, '"kept?"');
  assert.equal(cache.get(key), undefined, 'a reader without per-tick markers keeps nothing');
});

test('put: an answer over MAX_CACHED_ANSWER_BYTES is not kept', () => {
  const { reader } = markedReader();
  const cache = new AnswerCache(reader);
  const key = cache.keyOf('eth_getBlockByNumber', ['0x2', true])!;
  cache.get(key);
  cache.put(key, Buffer.alloc(MAX_CACHED_ANSWER_BYTES + 1, 0x20));
  assert.equal(cache.get(key), undefined);
  cache.put(key, Buffer.alloc(MAX_CACHED_ANSWER_BYTES, 0x20));
  assert.equal(cache.get(key)?.length, MAX_CACHED_ANSWER_BYTES);
});

test('put: the kept answers stay within the budget, the newest kept and the oldest dropped first', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 64, max: 4096 }),
      fc.array(fc.integer({ min: 1, max: 1024 }), { minLength: 1, maxLength: 60 }),
      (budget, sizes) => {
        const { reader } = markedReader();
        const cache = new AnswerCache(reader, budget);
        const keys: string[] = [];
        sizes.forEach((size, i) => {
          const key = cache.keyOf('eth_getBlockByNumber', [`0x${i.toString(16)}`, false])!;
          keys.push(key);
          cache.get(key);
          cache.put(key, 'x'.repeat(size));
        });
        const kept = keys.map((key) => cache.get(key));
        const total = keys.reduce((sum, key, i) => sum + (kept[i] === undefined ? 0 : key.length + kept[i]!.length), 0);
        assert.ok(total <= budget, `${total} bytes kept over a budget of ${budget}`);
        const last = keys.length - 1;
        const fits = sizes[last]! + keys[last]!.length <= budget;
        assert.equal(kept[last] !== undefined, fits, 'the newest answer is kept when it fits');
        // Among the answers that fit the budget alone, the kept ones are the newest: none is dropped while an older one
        // stays.
        const fitting = keys.map((key, i) => sizes[i]! + key.length <= budget);
        for (let i = 0; i < keys.length; i++) {
          for (let j = i + 1; j < keys.length; j++)
            if (fitting[j] && kept[i] !== undefined)
              assert.notEqual(kept[j], undefined, `answer ${j} dropped while the older ${i} stays`);
        }
      },
    ),
  );
});

test(
  'call texts: remembered as told, null for a text that is not ' + 'canonical, forgotten all at once past their bound',
  () => {
    const { reader, marks } = markedReader();
    const cache = new AnswerCache(reader);
    const call = { method: 'eth_getBlockByNumber', key: cache.keyOf('eth_getBlockByNumber', ['0x1', false])! };
    assert.equal(cache.callOf(',"method":"eth_getBlockByNumber","params":["0x1",false]}'), undefined);
    cache.rememberCall(',"method":"eth_getBlockByNumber","params":["0x1",false]}', call);
    cache.rememberCall(',"method":"eth_getBlockByNumber","params":["0x1", false]}', null);
    assert.deepEqual(cache.callOf(',"method":"eth_getBlockByNumber","params":["0x1",false]}'), call);
    assert.equal(cache.callOf(',"method":"eth_getBlockByNumber","params":["0x1", false]}'), null);
    marks.value = '11,0,0,11,11';
    assert.equal(cache.get(call.key), undefined);
    assert.deepEqual(
      cache.callOf(',"method":"eth_getBlockByNumber","params":["0x1",false]}'),
      call,
      'a call text names the same call under any markers',
    );
    let n = 0;
    while (cache.callOf(',"method":"eth_getBlockByNumber","params":["0x1",false]}') !== undefined)
      cache.rememberCall(`,${n++}`, null);
    assert.ok(n > 1000 && n <= 100_000, `forgotten after ${n} more texts`);
    assert.equal(cache.callOf(`,${n - 1}`), null, 'the text that passed the bound is remembered');
  },
);

test('get: a miss the caller looks again for is not counted twice', () => {
  const { reader } = markedReader();
  const cache = new AnswerCache(reader);
  const key = cache.keyOf('eth_getBlockByNumber', ['0x1', false])!;
  assert.equal(cache.get(key, false), undefined);
  assert.deepEqual(cache.counts, { hits: 0, misses: 0 });
  assert.equal(cache.put(key, '{}'), true);
  assert.equal(cache.put(key, '{}'), false, 'kept once');
  assert.equal(cache.get(key, false), '{}');
  assert.deepEqual(cache.counts, { hits: 1, misses: 0 });
  assert.equal(
    cache.put(cache.keyOf('eth_getBlockByNumber', ['0x2', false])!, 'x'.repeat(MAX_CACHED_ANSWER_BYTES + 1)),
    false,
    'too large: not kept',
  );
});
