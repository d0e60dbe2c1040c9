import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_BATCH_ITEMS, MAX_BATCH_RESPONSE_BYTES } from '#src/config.js';
import { AnswerCache } from '#src/rpc/answerCache.js';
import { createRpcHandler } from '#src/rpc/dispatcher.js';
import { InvalidParamsError } from '#src/rpc/errors.js';
import { flatBody } from '#src/rpc/handler.js';
import { type MethodContext, RawJson, type RpcMethod } from '#src/rpc/method.js';
import type { StoreReader } from '#src/store/reader.js';

/** The methods under test: pure functions of their params (no store). */
const methods = new Map<string, RpcMethod>([
  ['echo', (params) => params[0] ?? null],
  ['later', async (params) => params[0]],
  ['raw', () => new RawJson(['[', Buffer.from('{"a":1}'), ',', '{"b":2}', ']'])],
  [
    'bad',
    () => {
      throw new InvalidParamsError('invalid argument 0 (x): nope');
    },
  ],
  [
    'broken',
    () => {
      throw new Error('a bug');
    },
  ],
]);

/** A handler over `methods` (a context the methods do not read), with the failures it reported. */
function handler(cache?: AnswerCache, table: ReadonlyMap<string, RpcMethod> = methods) {
  const failures: unknown[] = [];
  const h = createRpcHandler({} as MethodContext, (_, error) => failures.push(error), table, undefined, cache);
  const answer = async (body: string): Promise<string> => {
    const out = flatBody(await h.handle(Buffer.from(body)));
    return typeof out === 'string' ? out : Buffer.from(out).toString();
  };
  return { answer, failures };
}

const call = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

test('the envelope: a table of bodies and their exact answers', async () => {
  const { answer, failures } = handler();
  const cases: [string, string, string][] = [
    ['a result', call('echo', ['0x1']), '{"jsonrpc":"2.0","id":1,"result":"0x1"}'],
    ['a string id', call('echo', [true], 'a'), '{"jsonrpc":"2.0","id":"a","result":true}'],
    ['no params', call('echo'), '{"jsonrpc":"2.0","id":1,"result":null}'],
    ['an asynchronous result', call('later', [{ x: 1 }]), '{"jsonrpc":"2.0","id":1,"result":{"x":1}}'],
    ['raw JSON parts spliced as they are', call('raw', []), '{"jsonrpc":"2.0","id":1,"result":[{"a":1},{"b":2}]}'],
    ['not JSON', '{"jsonrpc":', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'],
    [
      'not an object',
      '7',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a request is a JSON object"}}',
    ],
    [
      'no jsonrpc',
      '{"id":3,"method":"echo"}',
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: \\"jsonrpc\\" must be \\"2.0\\""}}',
    ],
    [
      'an object id',
      '{"jsonrpc":"2.0","id":{},"method":"echo"}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid ' +
        'request: \\"id\\" must be a string, a number or null"}}',
    ],
    [
      'an unknown method',
      call('nope', []),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method nope does not exist/is not available"}}',
    ],
    [
      'params not an array',
      call('echo', { a: 1 }),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    ],
    [
      'a method refusing its params',
      call('bad', []),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid argument 0 (x): nope"}}',
    ],
    [
      'a method failing',
      call('broken', []),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}',
    ],
    ['an empty batch', '[]', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}'],
  ];
  for (const [name, body, want] of cases) assert.equal(await answer(body), want, name);
  assert.equal(failures.length, 1, 'only the unexpected failure is reported');
});

test('a batch answers in request order, synchronous and asynchronous items mixed, each with its own id', async () => {
  const { answer } = handler();
  const body = `[${call('later', ['a'], 1)},${call('echo', ['b'], 2)},7,${call('later', ['c'], 3)}]`;
  assert.deepEqual(JSON.parse(await answer(body)), [
    { jsonrpc: '2.0', id: 1, result: 'a' },
    { jsonrpc: '2.0', id: 2, result: 'b' },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a request is a JSON object' } },
    { jsonrpc: '2.0', id: 3, result: 'c' },
  ]);
  const tooMany = `[${Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, i) => call('echo', [], i)).join(',')}]`;
  assert.equal((JSON.parse(await answer(tooMany)) as { error: { code: number } }).error.code, -32600);
});

test('every valid id comes back as it was sent', async () => {
  const { answer } = handler();
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), async (id) => {
      assert.deepEqual((JSON.parse(await answer(call('echo', [1], id))) as { id: unknown }).id, id);
    }),
  );
});

test(
  'with an answer cache: a kept method runs once per params ' + 'under the same markers, each caller gets its id',
  async () => {
    let runs = 0;
    const table = new Map<string, RpcMethod>([
      ['eth_getBlockByNumber', (params) => (runs++, new RawJson([`{"number":${JSON.stringify(params[0])}}`]))],
      ['eth_chainId', () => (runs++, '0x1')],
    ]);
    const cache = new AnswerCache({ tickMarks: () => '1,0,0,1,1' } as unknown as StoreReader);
    const { answer } = handler(cache, table);
    assert.equal(
      await answer(call('eth_getBlockByNumber', ['0x1', false], 1)),
      '{"jsonrpc":"2.0","id":1,"result":{"number":"0x1"}}',
    );
    assert.equal(
      await answer(call('eth_getBlockByNumber', ['0x1', false], 'x')),
      '{"jsonrpc":"2.0","id":"x","result":{"number":"0x1"}}',
    );
    assert.equal(runs, 1);
    await answer(call('eth_getBlockByNumber', ['0x2', false], 2));
    assert.equal(runs, 2, 'other params run the method');
    await answer(call('eth_chainId', [], 3));
    await answer(call('eth_chainId', [], 4));
    assert.equal(runs, 4, 'a method that is not kept runs every time');
    assert.deepEqual(cache.counts, { hits: 1, misses: 2 });
  },
);

test('with an answer cache: a canonical call is answered from its text alone, exactly as when parsed', async () => {
  let runs = 0;
  const table = new Map<string, RpcMethod>([
    ['eth_getBlockByNumber', (params) => (runs++, new RawJson([`{"number":${JSON.stringify(params[0])}}`]))],
  ]);
  const marks = { value: '1,0,0,1,1' };
  const cache = new AnswerCache({ tickMarks: () => marks.value } as unknown as StoreReader);
  const { answer } = handler(cache, table);
  const canonical = (id: number | string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"eth_getBlockByNumber","params":["0x1",false]}`;
  const cases: [string, string][] = [
    [canonical(1), '{"jsonrpc":"2.0","id":1,"result":{"number":"0x1"}}'],
    [canonical(0), '{"jsonrpc":"2.0","id":0,"result":{"number":"0x1"}}'],
    [canonical(123456789012345), '{"jsonrpc":"2.0","id":123456789012345,"result":{"number":"0x1"}}'],
    [canonical(1234567890123456), '{"jsonrpc":"2.0","id":1234567890123456,"result":{"number":"0x1"}}'],
    [canonical('007'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'],
    [canonical(-5), '{"jsonrpc":"2.0","id":-5,"result":{"number":"0x1"}}'],
    [canonical(1.5), '{"jsonrpc":"2.0","id":1.5,"result":{"number":"0x1"}}'],
    [canonical(1e3), '{"jsonrpc":"2.0","id":1000,"result":{"number":"0x1"}}'],
    [canonical('"7"'), '{"jsonrpc":"2.0","id":"7","result":{"number":"0x1"}}'],
    [canonical(8).replace('}', ',"id":9}'), '{"jsonrpc":"2.0","id":9,"result":{"number":"0x1"}}'],
    [canonical(10).replace('}', ',"id":9}'), '{"jsonrpc":"2.0","id":9,"result":{"number":"0x1"}}'],
    [canonical(12).replace(',false', ', false'), '{"jsonrpc":"2.0","id":12,"result":{"number":"0x1"}}'],
    [canonical(13).replace(',false', ', false'), '{"jsonrpc":"2.0","id":13,"result":{"number":"0x1"}}'],
    [canonical(14).replace('0x1', '\\u0030x1'), '{"jsonrpc":"2.0","id":14,"result":{"number":"0x1"}}'],
    [canonical(15).replace('0x1', '\\u0030x1'), '{"jsonrpc":"2.0","id":15,"result":{"number":"0x1"}}'],
    [canonical(16), '{"jsonrpc":"2.0","id":16,"result":{"number":"0x1"}}'],
  ];
  for (const [body, expected] of cases) assert.equal(await answer(body), expected, body);
  assert.equal(runs, 1, 'every call of the same params is answered from the cache');
  assert.deepEqual(cache.counts, { hits: cases.length - 2, misses: 1 });
  marks.value = '2,0,0,2,2';
  assert.equal(await answer(canonical(17)), '{"jsonrpc":"2.0","id":17,"result":{"number":"0x1"}}');
  assert.equal(runs, 2, 'a known call text runs the method again once the markers move');
  assert.deepEqual(cache.counts, { hits: cases.length - 2, misses: 2 }, 'its miss counted once');
});

test(
  'with an answer cache: answers from the call text equal ' + 'parsed answers for any canonical call (property)',
  async () => {
    const table = new Map<string, RpcMethod>([['eth_getLogs', (params) => new RawJson([JSON.stringify(params)])]]);
    const cache = new AnswerCache({ tickMarks: () => '1,0,0,1,1' } as unknown as StoreReader);
    const { answer } = handler(cache, table);
    const { answer: plain } = handler(undefined, table);
    const id = fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.string(), fc.constant(null));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue(), { maxLength: 3 }), id, id, async (params, first, second) => {
        const body = (i: unknown) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getLogs', params });
        await answer(body(first));
        assert.equal(await answer(body(second)), await plain(body(second)));
      }),
      { numRuns: 300 },
    );
  },
);

test('a batch is cut at the answer cap in item order, whichever item finished first', async () => {
  const big = 'x'.repeat(Math.ceil(MAX_BATCH_RESPONSE_BYTES * 0.6));
  /** `slow` answers after `fast` has: the first item's answer is kept last. */
  let release: () => void = () => {};
  const fastDone = new Promise<void>((resolve) => {
    release = resolve;
  });
  const table = new Map<string, RpcMethod>([
    [
      'slow',
      async () => {
        await fastDone;
        return big;
      },
    ],
    [
      'fast',
      () => {
        release();
        return big;
      },
    ],
  ]);
  const { answer } = handler(undefined, table);
  const out = JSON.parse(await answer(`[${call('slow', [], 1)},${call('fast', [], 2)},${call('fast', [], 3)}]`)) as {
    id: number;
    result?: string;
    error?: { code: number };
  }[];
  assert.deepEqual(
    out.map((a) => [a.id, a.result === big, a.error?.code]),
    [
      [1, true, undefined],
      [2, false, -32003],
      [3, false, -32003],
    ],
  );
});
