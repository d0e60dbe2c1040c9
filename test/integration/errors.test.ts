/**
 * Every error answer of the service, through the real server over real HTTP: each row of the
 * wire-decision table of docs/api.md §8 (HTTP refusals, envelope errors, -32601, -32602, the -32005
 * limits, -32603), then every parameter rejection of every method, table-driven, with the exact
 * message (geth's reasons, named `invalid argument N (name): reason` as docs/api.md §8 decides),
 * and the edge forms that must be accepted.
 */
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { MAX_BATCH_ITEMS, MAX_BODY_BYTES } from '#src/config.js';
import type { Logger } from '#src/logger.js';
import { startService } from '#src/service.js';
import { generateChain } from '#src/synth/generator.js';
import {
  makeDataset,
  type RpcResponse,
  startTestService,
  type TestDataset,
  type TestService,
} from '../support/harness.js';

const SMALL = { blocks: 40, density: 0.05, seed: 'errors' };
/** More than 10,000 logs over its whole range (about 14,000), for the default result cap. */
const BIG = { blocks: 300, density: 0.1, seed: 'errors-cap' };

const hex = quantityToHex;
type Obj = Record<string, unknown>;

let dataset: TestDataset;
let svc: TestService;
let chain: BlockBundle[];
const head = () => chain.length - 1;

before(async () => {
  dataset = await makeDataset(SMALL.blocks, SMALL.density, SMALL.seed);
  svc = await startTestService(dataset);
  chain = [...generateChain({ ...SMALL, pending: true })];
});

after(async () => {
  await svc.close();
  dataset.remove();
});

/** A whole HTTP exchange with the service: status, headers and the body text. */
async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(svc.service.url + path, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const keyPath = () => `/v3/${dataset.key}`;
const jsonPost = (body: string | Uint8Array): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body,
});

/** The JSON-RPC error body of a refusal (id null), as text in the order the service writes it. */
const errorText = (code: number, message: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });

const rpcBody = (method: string, params: unknown[] = [], id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

// ---------------------------------------------------------------------------------------------
// docs/api.md §8, row by row.
// ---------------------------------------------------------------------------------------------

describe('HTTP status rows (docs/api.md §8)', () => {
  test('401 for a missing, an unknown and a revoked key, with the exact JSON-RPC bodies', async () => {
    const rows: [string, string][] = [
      [
        '/v3/',
        'missing API key: send it in the path, POST /v3/<API_KEY> (create a key with `ethlogd keys create --data DIR`)',
      ],
      [
        '/v3',
        'missing API key: send it in the path, POST /v3/<API_KEY> (create a key with `ethlogd keys create --data DIR`)',
      ],
      [
        '/v3/' + 'f'.repeat(64),
        'invalid API key: this store has no such key (create a key with `ethlogd keys create --data DIR`)',
      ],
      [
        '/v3/' + dataset.revokedKey,
        'API key revoked: use another key (create a key with `ethlogd keys create --data DIR`)',
      ],
    ];
    for (const [path, message] of rows) {
      const res = await raw(path, jsonPost(rpcBody('eth_chainId')));
      assert.equal(res.status, 401, path);
      assert.equal(res.headers.get('content-type'), 'application/json', path);
      assert.equal(res.text, `{"jsonrpc":"2.0","id":null,"error":{"code":4100,"message":"${message}"}}`, path);
    }
  });

  test('405 for other methods on /v3/<key>, with Allow and a JSON-RPC body', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await raw(keyPath(), { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST, OPTIONS');
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.text, errorText(-32600, 'method not allowed, use POST'), method);
    }
  });

  test('415 for a Content-Type other than application/json', async () => {
    for (const type of ['text/plain', 'application/jsonx', 'application/x-www-form-urlencoded']) {
      const res = await raw(keyPath(), {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: rpcBody('eth_chainId'),
      });
      assert.equal(res.status, 415, type);
      assert.equal(res.text, errorText(-32600, 'unsupported content type, use application/json'), type);
    }
    const withCharset = await raw(keyPath(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: rpcBody('eth_chainId'),
    });
    assert.equal(withCharset.status, 200);
    assert.equal(withCharset.text, '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
  });

  test('413 for a body over 5 MiB; a body of exactly 5 MiB is answered', async () => {
    const request = rpcBody('eth_chainId');
    const atLimit = request + ' '.repeat(MAX_BODY_BYTES - Buffer.byteLength(request));
    assert.equal(Buffer.byteLength(atLimit), 5 * 1024 * 1024);
    const ok = await raw(keyPath(), jsonPost(atLimit));
    assert.equal(ok.status, 200);
    assert.equal(ok.text, '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    const over = await raw(keyPath(), jsonPost(atLimit + ' '));
    assert.equal(over.status, 413);
    assert.equal(over.headers.get('content-type'), 'application/json');
    assert.equal(over.text, errorText(-32600, `request body too large, limit ${5 * 1024 * 1024} bytes`));
  });

  test('404 for other paths, with a JSON-RPC body', async () => {
    for (const path of ['/', '/v2/' + dataset.key, '/v3x', '/v3/' + dataset.key + '/more', '/rpc']) {
      const res = await raw(path, jsonPost(rpcBody('eth_chainId')));
      assert.equal(res.status, 404, path);
      assert.equal(
        res.text,
        errorText(-32600, 'not found: JSON-RPC is served at POST /v3/<API_KEY> and WebSocket /ws/v3/<API_KEY>'),
        path,
      );
    }
  });
});

describe('-32700 parse error (id null)', () => {
  const bodies: [string, string | Uint8Array][] = [
    ['truncated JSON', '{"jsonrpc":'],
    ['an empty body', ''],
    ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]} x'],
    ['single quotes', "{'jsonrpc':'2.0'}"],
    ['invalid UTF-8 bytes', Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d)],
    [
      'invalid UTF-8 inside a string',
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["'),
        Buffer.of(0xc3, 0x28),
        Buffer.from('"]}'),
      ]),
    ],
    [
      'a truncated UTF-8 sequence',
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chain'),
        Buffer.of(0xe2, 0x82),
        Buffer.from('"}'),
      ]),
    ],
  ];
  for (const [name, body] of bodies) {
    test(name, async () => {
      const res = await raw(keyPath(), jsonPost(body));
      assert.equal(res.status, 200);
      assert.equal(res.text, errorText(-32700, 'parse error'));
    });
  }
});

describe('-32600 invalid request', () => {
  const notObject = 'invalid request: a request is a JSON object';
  const version = 'invalid request: "jsonrpc" must be "2.0"';
  const method = 'invalid request: "method" must be a string';
  const badId = 'invalid request: "id" must be a string, a number or null';
  const rows: [string, unknown, unknown, string][] = [
    // [case, request, id of the answer, message]
    ['a number', 42, null, notObject],
    ['a string', 'eth_chainId', null, notObject],
    ['null', null, null, notObject],
    ['a boolean', true, null, notObject],
    ['jsonrpc missing', { id: 7, method: 'eth_chainId', params: [] }, 7, version],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 7, method: 'eth_chainId', params: [] }, 7, version],
    ['jsonrpc 2 (a number)', { jsonrpc: 2, id: 7, method: 'eth_chainId', params: [] }, 7, version],
    ['method missing', { jsonrpc: '2.0', id: 'x', params: [] }, 'x', method],
    ['method a number', { jsonrpc: '2.0', id: 8, method: 5, params: [] }, 8, method],
    ['method null', { jsonrpc: '2.0', id: 8, method: null, params: [] }, 8, method],
    ['method an array', { jsonrpc: '2.0', id: 8, method: ['eth_chainId'], params: [] }, 8, method],
    ['id an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId', params: [] }, null, badId],
    ['id an array', { jsonrpc: '2.0', id: [1], method: 'eth_chainId', params: [] }, null, badId],
    ['id a boolean', { jsonrpc: '2.0', id: true, method: 'eth_chainId', params: [] }, null, badId],
  ];
  for (const [name, request, id, message] of rows) {
    test(name, async () => {
      const { status, json } = await svc.post(JSON.stringify(request));
      assert.equal(status, 200);
      assert.deepEqual(json, { jsonrpc: '2.0', id, error: { code: -32600, message } });
    });
  }

  test('valid ids are echoed: number, string, null, and absent as null', async () => {
    for (const id of [0, 1.5, -3, 'abc', '', null]) {
      assert.deepEqual((await svc.post({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })).json, {
        jsonrpc: '2.0',
        id,
        result: '0x1',
      });
    }
    assert.deepEqual((await svc.post({ jsonrpc: '2.0', method: 'eth_chainId', params: [] })).json, {
      jsonrpc: '2.0',
      id: null,
      result: '0x1',
    });
  });

  test('an empty batch: one -32600 "empty batch" object, not an array', async () => {
    const res = await raw(keyPath(), jsonPost('[]'));
    assert.equal(res.text, errorText(-32600, 'empty batch'));
  });

  test('a batch of 1,001: one -32600 "batch too large" object; 1,000 are answered in order', async () => {
    const items = (n: number) =>
      Array.from({ length: n }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }));
    const over = await raw(keyPath(), jsonPost(JSON.stringify(items(MAX_BATCH_ITEMS + 1))));
    assert.equal(MAX_BATCH_ITEMS + 1, 1001);
    assert.equal(over.text, errorText(-32600, 'batch too large: at most 1000 requests per batch'));
    const full = (await svc.post(items(1000))).json as RpcResponse[];
    assert.equal(full.length, 1000);
    full.forEach((r, i) => assert.deepEqual(r, { jsonrpc: '2.0', id: i, result: '0x1' }));
  });

  test('params that are not an array: -32602 "non-array args" (geth)', async () => {
    for (const params of [{ a: 1 }, 'x', 5, true]) {
      const { json } = await svc.post({ jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params });
      assert.deepEqual(
        json,
        { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'non-array args' } },
        JSON.stringify(params),
      );
    }
  });
});

describe('-32601 method not found', () => {
  test('the exact message, id echoed, names matched case-sensitively', async () => {
    for (const method of ['admin_nodeInfo', 'ETH_CHAINID', 'eth_chainid', '', 'eth_getLogs ']) {
      const res = await svc.call(method, []);
      assert.deepEqual(
        res.error,
        { code: -32601, message: `the method ${method} does not exist/is not available` },
        method,
      );
    }
  });

  test('a method a node answers says how to have it forwarded (serve --upstream)', async () => {
    for (const method of [
      'eth_call',
      'eth_getBalance',
      'debug_traceBlockByNumber',
      'trace_filter',
      'eth_sendRawTransaction',
    ]) {
      const res = await svc.call(method, []);
      const message =
        `the method ${method} does not exist/is not available; ethlogd answers it when ` +
        'started with --upstream URL (a node it forwards such calls to)';
      assert.deepEqual(res.error, { code: -32601, message }, method);
    }
  });
});

describe('-32602 rows of eth_getLogs (docs/api.md §8)', () => {
  test('fromBlock > toBlock: invalid block range params', async () => {
    for (const [fromBlock, toBlock] of [
      ['0x5', '0x4'],
      ['latest', '0x0'],
      [hex(head()), 'earliest'],
    ]) {
      const res = await svc.call('eth_getLogs', [{ fromBlock, toBlock }]);
      assert.deepEqual(res.error, { code: -32602, message: 'invalid block range params' }, `${fromBlock}..${toBlock}`);
    }
    assert.ok(
      Array.isArray(await svc.result('eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x5' }])),
      'from = to is a range',
    );
  });

  test(
    'a numeric toBlock beyond the head: block range extends ' + 'beyond current head block (geth), naming the head',
    async () => {
      const res = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head() + 1) }]);
      assert.deepEqual(res.error, {
        code: -32602,
        message: `block range extends beyond current head block (the head is ${hex(head())})`,
      });
    },
  );

  test('blockHash with fromBlock and/or toBlock', async () => {
    const blockHash = bytesToHex(chain[3]!.header.hash);
    for (const extra of [
      { fromBlock: '0x1' },
      { toBlock: 'latest' },
      { fromBlock: '0x1', toBlock: '0x2' },
      { fromBlock: 'earliest' },
    ]) {
      const res = await svc.call('eth_getLogs', [{ blockHash, ...extra }]);
      assert.deepEqual(
        res.error,
        {
          code: -32602,
          message: 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
        },
        JSON.stringify(extra),
      );
    }
    // null range fields are absent fields.
    assert.ok(Array.isArray(await svc.result('eth_getLogs', [{ blockHash, fromBlock: null, toBlock: null }])));
  });

  test('more than 4 topic positions: exceed max topics', async () => {
    const t = '0x' + '00'.repeat(32);
    for (const topics of [
      [null, null, null, null, null],
      [t, t, t, t, t],
      [[t], null, null, null, [t, t]],
    ]) {
      const res = await svc.call('eth_getLogs', [{ topics }]);
      assert.deepEqual(res.error, { code: -32602, message: 'exceed max topics' });
    }
    assert.ok(Array.isArray(await svc.result('eth_getLogs', [{ topics: [null, null, null, t] }])), '4 positions pass');
  });
});

describe('-32005 more than 5,000 filter parameters (addresses + topic values)', () => {
  const address = (i: number) => '0x' + (0xa0000 + i).toString(16).padStart(40, '0');
  const topic = (i: number) => '0x' + (0xb0000 + i).toString(16).padStart(64, '0');
  const list = <T>(n: number, f: (i: number) => T, offset = 0) => Array.from({ length: n }, (_, i) => f(offset + i));
  const exceeds = { code: -32005, message: 'query exceeds 5000 parameters' };

  /** Filters of exactly `n` parameters, split in different ways across addresses and nested topic OR lists. */
  const shapes = (n: number): [string, Obj][] => [
    ['addresses only', { address: list(n, address) }],
    ['one topic OR list', { topics: [list(n, topic)] }],
    [
      'addresses and nested topic OR lists',
      {
        address: list(n - 3000, address),
        topics: [list(1000, topic), null, list(1500, topic, 1000), [topic(2500), ...list(499, topic, 2501)]],
      },
    ],
    ['single topics and OR lists, no addresses', { topics: [topic(0), list(n - 3, topic, 1), topic(n), topic(n + 1)] }],
    ['one address string and OR lists', { address: address(0), topics: [list(n - 2, topic), topic(n)] }],
  ];

  for (const [name, filter] of shapes(5000)) {
    test(`exactly 5,000 pass: ${name}`, async () => {
      const res = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', ...filter }]);
      assert.equal(res.error, undefined, JSON.stringify(res.error));
      assert.deepEqual(res.result, []);
    });
  }
  for (const [name, filter] of shapes(5001)) {
    test(`5,001 fail: ${name}`, async () => {
      const res = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', ...filter }]);
      assert.deepEqual(res.error, exceeds);
    });
  }
  test('the limit applies with blockHash too', async () => {
    const res = await svc.call('eth_getLogs', [
      { blockHash: bytesToHex(chain[2]!.header.hash), address: list(5001, address) },
    ]);
    assert.deepEqual(res.error, exceeds);
  });
});

describe('-32603 unexpected failure', () => {
  test('the store vanishing under the log workers: -32603 internal error, details only in the log', async () => {
    // A service of its own: its workers have not opened the store yet, and open it by path on
    // their first task. Moving the directory away (the main thread keeps its open environment)
    // makes that open fail: a genuine unexpected failure, reached over HTTP. Every query goes to
    // the pool: this small chain's whole range fits the inline budget, which the main thread's
    // open store would answer.
    const logged: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (m) => logged.push(m),
      error: (m, e) => logged.push(`${m}: ${e instanceof Error ? e.message : String(e)}`),
      isLevelEnabled: () => false,
    };
    const service = await startService({
      dataDir: dataset.dir,
      host: '127.0.0.1',
      port: 0,
      logger,
      inlineBudgetUs: -1,
    });
    const away = dataset.dir + '-away';
    try {
      renameSync(dataset.dir, away);
      let text: string;
      try {
        const res = await fetch(
          `${service.url}/v3/${dataset.key}`,
          jsonPost(rpcBody('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }], 9)),
        );
        assert.equal(res.status, 200);
        text = await res.text();
      } finally {
        renameSync(away, dataset.dir);
      }
      assert.equal(text, '{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"internal error"}}');
      assert.ok(
        logged.some((line) => /no such file|ENOENT/i.test(line)),
        `the cause is logged: ${JSON.stringify(logged)}`,
      );
      // The same query succeeds once the store is back.
      const again = await fetch(
        `${service.url}/v3/${dataset.key}`,
        jsonPost(rpcBody('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }], 10)),
      );
      const body = (await again.json()) as RpcResponse;
      assert.equal(
        (body.result as unknown[]).length,
        chain.reduce((n, b) => n + b.logs.length, 0),
      );
    } finally {
      await service.close();
    }
  });
});

describe('-32005 result cap and deadline, on a dataset with more than 10,000 logs', () => {
  let big: TestDataset;
  let bigChain: BlockBundle[];
  before(async () => {
    big = await makeDataset(BIG.blocks, BIG.density, BIG.seed);
    bigChain = [...generateChain({ ...BIG, pending: true })];
  });
  after(() => big.remove());

  test('more than 10,000 results: message and data; the suggested range is the largest that fits', async () => {
    const total = bigChain.reduce((n, b) => n + b.logs.length, 0);
    assert.ok(total > 10_000, `the dataset has ${total} logs`);
    // The largest [0, to] whose logs fit under the default cap of 10,000.
    let running = 0;
    let to = -1;
    for (const b of bigChain) {
      if (running + b.logs.length > 10_000) break;
      running += b.logs.length;
      to = b.header.number;
    }
    const capped = await startTestService(big);
    try {
      const res = await capped.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
      assert.equal(res.result, undefined);
      assert.deepEqual(res.error, {
        code: -32005,
        message: `query returned more than 10000 results. Try with this block range [0x0, ${hex(to)}].`,
        data: { from: '0x0', to: hex(to), limit: 10_000 },
      });
      const data = res.error!.data as { from: string; to: string };
      const retry = await capped.call('eth_getLogs', [{ fromBlock: data.from, toBlock: data.to }]);
      assert.equal(retry.error, undefined);
      const logs = retry.result as Obj[];
      assert.equal(logs.length, running);
      assert.ok(logs.length <= 10_000);
      const lastWithLogs = bigChain
        .slice(0, to + 1)
        .filter((b) => b.logs.length > 0)
        .at(-1)!;
      assert.equal(logs.at(-1)!.blockNumber, hex(lastWithLogs.header.number));
      const beyond = await capped.call('eth_getLogs', [{ fromBlock: data.from, toBlock: hex(to + 1) }]);
      assert.equal(beyond.error?.code, -32005, 'one block more does not fit');
    } finally {
      await capped.close();
    }
  });

  test('query timeout: a whole-range scan with timeoutMs 1 answers -32005 query timeout exceeded', async () => {
    const slow = await startTestService(big, { timeoutMs: 1, maxResults: 1e9 });
    try {
      const res = await slow.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
      assert.deepEqual(res.error, { code: -32005, message: 'query timeout exceeded' });
      assert.equal(res.result, undefined);
      assert.equal(await slow.result('eth_blockNumber', []), hex(BIG.blocks - 1), 'the service still answers');
    } finally {
      await slow.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Every parameter rejection of every method.
// ---------------------------------------------------------------------------------------------

type Kind = 'address' | 'hash' | 'quantity' | 'block' | 'blockOrHash' | 'storageKey' | 'bool' | 'filter';

interface Arg {
  name: string;
  kind: Kind;
  /** A value the method accepts in this position. */
  valid: () => unknown;
  /** Whether the argument may be left out (or null). */
  optional?: boolean;
}

const ADDRESS = '0x' + '11'.repeat(20);
const blockHashOf = (n: number) => bytesToHex(chain[n]!.header.hash);

const SIGNATURES: Record<string, Arg[]> = {
  eth_getStorageAt: [
    { name: 'address', kind: 'address', valid: () => ADDRESS },
    { name: 'storage position', kind: 'storageKey', valid: () => '0x0' },
    { name: 'block parameter', kind: 'blockOrHash', valid: () => 'latest', optional: true },
  ],
  eth_getLogs: [{ name: 'filter', kind: 'filter', valid: () => ({}) }],
  eth_getTransactionByBlockNumberAndIndex: [
    { name: 'block parameter', kind: 'block', valid: () => '0x1' },
    { name: 'transaction index position', kind: 'quantity', valid: () => '0x0' },
  ],
  eth_getBlockByNumber: [
    { name: 'block parameter', kind: 'block', valid: () => '0x1' },
    { name: 'show transaction details flag', kind: 'bool', valid: () => false },
  ],
  eth_getTransactionByHash: [
    { name: 'transaction hash', kind: 'hash', valid: () => bytesToHex(chain[1]!.transactions[0]!.hash) },
  ],
  eth_getBlockByHash: [
    { name: 'block hash', kind: 'hash', valid: () => blockHashOf(1) },
    { name: 'show transaction details flag', kind: 'bool', valid: () => false },
  ],
  eth_getTransactionByBlockHashAndIndex: [
    { name: 'block hash', kind: 'hash', valid: () => blockHashOf(1) },
    { name: 'transaction index position', kind: 'quantity', valid: () => '0x0' },
  ],
  eth_chainId: [],
  eth_blockNumber: [],
  net_version: [],
  web3_clientVersion: [],
};

/** JSON values of the wrong type, with what the service says about them. */
const WRONG_TYPES: [unknown, string][] = [
  [1, 'number'],
  [true, 'boolean'],
  [{}, 'object'],
  [[], 'object'],
  [['0x1'], 'object'],
];

function fixedBytes(bytes: number): [unknown, string][] {
  const want = `want ${bytes * 2}`;
  return [
    ['11'.repeat(bytes), 'hex string without 0x prefix'],
    ['0x', `hex string has length 0, ${want}`],
    ['', `hex string has length 0, ${want}`],
    ['0x' + '1'.repeat(bytes * 2 - 1), 'hex string of odd length'],
    ['0x' + '1'.repeat(bytes * 2 + 1), 'hex string of odd length'],
    ['0x' + 'zz'.repeat(bytes), 'invalid hex string'],
    ['0x' + '11'.repeat(bytes - 1), `hex string has length ${(bytes - 1) * 2}, ${want}`],
    ['0x' + '11'.repeat(bytes + 1), `hex string has length ${(bytes + 1) * 2}, ${want}`],
    [' 0x' + '11'.repeat(bytes), 'hex string without 0x prefix'],
    ...WRONG_TYPES.map(([v, t]): [unknown, string] => [v, `expected a hex string, got ${t}`]),
  ];
}

/** Hex quantities geth's hexutil refuses, for any quantity argument. */
const BAD_QUANTITIES: [unknown, string][] = [
  ['1', 'hex string without 0x prefix'],
  ['', 'empty hex string'],
  ['x1', 'hex string without 0x prefix'],
  ['0x', 'hex string "0x"'],
  ['0x01', 'hex number with leading zero digits'],
  ['0x00', 'hex number with leading zero digits'],
  ['0x0001', 'hex number with leading zero digits'],
  ['0xg', 'invalid hex string'],
  ['0x1g', 'invalid hex string'],
  ['0x-1', 'invalid hex string'],
  ['-0x1', 'hex string without 0x prefix'],
  ['0x1' + '0'.repeat(16), 'hex number > 64 bits'],
  ...WRONG_TYPES.map(([v, t]): [unknown, string] => [v, `expected a hex string, got ${t}`]),
];

const BAD_BLOCKS: [unknown, string][] = [
  ...BAD_QUANTITIES,
  ['0x8000000000000000', 'block number larger than int64'],
  ['0xffffffffffffffff', 'block number larger than int64'],
  ['Latest', 'hex string without 0x prefix'],
  ['newest', 'hex string without 0x prefix'],
];

function badValues(kind: Kind): [unknown, string][] {
  switch (kind) {
    case 'address':
      return fixedBytes(20);
    case 'hash':
      return fixedBytes(32);
    case 'quantity':
      return BAD_QUANTITIES;
    case 'block':
      // EIP-1898 objects are for the methods that take a block number or hash, not these (geth).
      return [
        ...BAD_BLOCKS,
        [{ blockHash: blockHashOf(1) }, 'expected a hex string, got object'],
        [{ blockNumber: '0x1' }, 'expected a hex string, got object'],
      ];
    case 'blockOrHash':
      return [
        ...BAD_BLOCKS.filter(([v]) => !(typeof v === 'object' && v !== null && !Array.isArray(v))),
        // 66 characters are a hash; other lengths a number.
        ['0x' + 'zz'.repeat(32), 'invalid hex string'],
        ['0x' + '1'.repeat(62), 'hex number > 64 bits'],
        ['0x' + '1'.repeat(65), 'hex number > 64 bits'],
        ['0x' + '11'.repeat(31), 'hex number > 64 bits'],
        ['0x' + '11'.repeat(33), 'hex number > 64 bits'],
        // EIP-1898 objects: both fields, neither, bad types.
        [
          { blockHash: blockHashOf(1), blockNumber: '0x1' },
          'cannot specify both BlockHash and BlockNumber, choose one or the other',
        ],
        [{}, 'block object needs blockHash or blockNumber'],
        [{ requireCanonical: true }, 'block object needs blockHash or blockNumber'],
        [{ blockHash: 1 }, 'expected a hex string, got number'],
        [{ blockHash: true }, 'expected a hex string, got boolean'],
        [{ blockHash: '0x' + '11'.repeat(31) }, 'hex string has length 62, want 64'],
        [{ blockHash: '0x' + '11'.repeat(33) }, 'hex string has length 66, want 64'],
        [{ blockHash: '11'.repeat(32) }, 'hex string without 0x prefix'],
        [{ blockNumber: true }, 'expected a hex string, got boolean'],
        [{ blockNumber: 5 }, 'expected a hex string, got number'],
        [{ blockNumber: '0x01' }, 'hex number with leading zero digits'],
        [{ blockNumber: '0x8000000000000000' }, 'block number larger than int64'],
        [{ blockHash: blockHashOf(1), requireCanonical: 'yes' }, 'requireCanonical must be a boolean'],
        [{ blockHash: blockHashOf(1), requireCanonical: 1 }, 'requireCanonical must be a boolean'],
      ];
    case 'storageKey':
      return [
        ['0x' + '1'.repeat(65), 'unable to decode storage key: hex string too long, want at most 32 bytes'],
        ['0x' + '11'.repeat(33), 'unable to decode storage key: hex string too long, want at most 32 bytes'],
        ['1'.repeat(66), 'unable to decode storage key: hex string too long, want at most 32 bytes'],
        ['0xzz', 'unable to decode storage key: hex string invalid'],
        ['0x1g', 'unable to decode storage key: hex string invalid'],
        ['xyz', 'unable to decode storage key: hex string invalid'],
        ['0x 1', 'unable to decode storage key: hex string invalid'],
        ...WRONG_TYPES.map(([v, t]): [unknown, string] => [v, `expected a hex string, got ${t}`]),
      ];
    case 'bool':
      return [
        ['true', 'expected a boolean, got string'],
        ['false', 'expected a boolean, got string'],
        [1, 'expected a boolean, got number'],
        [0, 'expected a boolean, got number'],
        [{}, 'expected a boolean, got object'],
        [[], 'expected a boolean, got object'],
      ];
    case 'filter':
      // The filter's own fields have their table below; here, values that are not a filter at all.
      return [];
  }
}

interface RejectionCase {
  title: string;
  method: string;
  params: unknown[];
  message: string;
}

/** The generic rejections of a method: counts, and every bad value in every position. */
function rejections(method: string, args: Arg[]): RejectionCase[] {
  const cases: RejectionCase[] = [];
  const valid = args.map((a) => a.valid());
  const required = args.filter((a) => !a.optional).length;
  // Missing arguments: cut the list short, or pass null, at each required position.
  for (let i = 0; i < required; i++) {
    const message = `invalid argument ${i} (${args[i]!.name}): missing value for required argument ${i}`;
    cases.push({ title: `argument ${i} missing`, method, params: valid.slice(0, i), message });
    const withNull = [...valid];
    withNull[i] = null;
    cases.push({ title: `argument ${i} null`, method, params: withNull, message });
  }
  // Extra arguments.
  for (const extra of [[null], ['0x1'], ['0x1', true]]) {
    cases.push({
      title: `${extra.length} extra`,
      method,
      params: [...valid, ...extra],
      message: `too many arguments, want at most ${args.length}`,
    });
  }
  // Every bad value in every position, the other positions valid.
  args.forEach((arg, i) => {
    for (const [value, reason] of badValues(arg.kind)) {
      const params = [...valid];
      params[i] = value;
      cases.push({
        title: `argument ${i} = ${JSON.stringify(value)}`,
        method,
        params,
        message: `invalid argument ${i} (${arg.name}): ${reason}`,
      });
    }
  });
  return cases;
}

/** The filter object's rejections (geth's FilterCriteria wording, argument 0). */
function filterRejections(): RejectionCase[] {
  const a = ADDRESS;
  const t = '0x' + '22'.repeat(32);
  const rows: [unknown, string][] = [
    // Not a filter.
    [1, 'invalid argument 0: filter must be an object'],
    [true, 'invalid argument 0: filter must be an object'],
    ['latest', 'invalid argument 0: filter must be an object'],
    [[], 'invalid argument 0: filter must be an object'],
    [[{}], 'invalid argument 0: filter must be an object'],
    // address
    [{ address: '11'.repeat(20) }, 'invalid argument 0: invalid address: hex string without 0x prefix'],
    [{ address: '' }, 'invalid argument 0: invalid address: empty hex string'],
    [
      { address: '0x' },
      'invalid argument 0: invalid address: hex has invalid length 0 after decoding; expected 20 for address',
    ],
    [{ address: '0x' + '1'.repeat(39) }, 'invalid argument 0: invalid address: hex string of odd length'],
    [{ address: '0x' + 'zz'.repeat(20) }, 'invalid argument 0: invalid address: invalid hex string'],
    [
      { address: '0x' + '11'.repeat(19) },
      'invalid argument 0: invalid address: hex has invalid length 19 after decoding; expected 20 for address',
    ],
    [
      { address: '0x' + '11'.repeat(21) },
      'invalid argument 0: invalid address: hex has invalid length 21 after decoding; expected 20 for address',
    ],
    [
      { address: [a, '0x' + '11'.repeat(19)] },
      'invalid argument 0: invalid address at index 1: ' +
        'hex has invalid length 19 after decoding; expected 20 for address',
    ],
    [
      { address: [a, a, '0x' + '11'.repeat(21)] },
      'invalid argument 0: invalid address at index 2: ' +
        'hex has invalid length 21 after decoding; expected 20 for address',
    ],
    [{ address: ['11'.repeat(20)] }, 'invalid argument 0: invalid address at index 0: hex string without 0x prefix'],
    [{ address: [a, 5] }, 'invalid argument 0: non-string address at index 1'],
    [{ address: [null] }, 'invalid argument 0: non-string address at index 0'],
    [{ address: [[a]] }, 'invalid argument 0: non-string address at index 0'],
    [{ address: 5 }, 'invalid argument 0: invalid addresses in query'],
    [{ address: true }, 'invalid argument 0: invalid addresses in query'],
    [{ address: { a } }, 'invalid argument 0: invalid addresses in query'],
    // topics
    [
      { topics: ['0x' + '22'.repeat(31)] },
      'invalid argument 0: hex has invalid length 31 after decoding; expected 32 for topic',
    ],
    [
      { topics: [null, ['0x' + '22'.repeat(33)]] },
      'invalid argument 0: hex has invalid length 33 after decoding; expected 32 for topic',
    ],
    [{ topics: [[t, '0x']] }, 'invalid argument 0: hex has invalid length 0 after decoding; expected 32 for topic'],
    [{ topics: ['22'.repeat(32)] }, 'invalid argument 0: invalid topic(s): hex string without 0x prefix'],
    [{ topics: ['0x' + '2'.repeat(63)] }, 'invalid argument 0: invalid topic(s): hex string of odd length'],
    [{ topics: ['0x' + 'zz'.repeat(32)] }, 'invalid argument 0: invalid topic(s): invalid hex string'],
    [{ topics: [''] }, 'invalid argument 0: invalid topic(s): empty hex string'],
    [{ topics: [5] }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: [true] }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: [{}] }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: [[t, 5]] }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: [[[t]]] }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: t }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: 5 }, 'invalid argument 0: invalid topic(s)'],
    [{ topics: { 0: t } }, 'invalid argument 0: invalid topic(s)'],
    // blockHash
    ...fixedBytes(32).map(([v, reason]): [unknown, string] => [
      { blockHash: v },
      `invalid argument 0 (blockHash): ${reason}`,
    ]),
    [{ blockhash: '0x12' }, 'invalid argument 0 (blockHash): hex string has length 2, want 64'],
    // fromBlock / toBlock
    ...BAD_BLOCKS.map(([v, reason]): [unknown, string] => [
      { fromBlock: v },
      `invalid argument 0 (fromBlock): ${reason}`,
    ]),
    ...BAD_BLOCKS.map(([v, reason]): [unknown, string] => [{ toBlock: v }, `invalid argument 0 (toBlock): ${reason}`]),
    [{ fromBlock: { blockHash: blockHashOf(1) } }, 'invalid argument 0 (fromBlock): expected a hex string, got object'],
    [{ toBlock: { blockNumber: '0x1' } }, 'invalid argument 0 (toBlock): expected a hex string, got object'],
  ];
  return rows.map(([filter, message]) => ({
    title: `filter ${JSON.stringify(filter).slice(0, 90)}`,
    method: 'eth_getLogs',
    params: [filter],
    message,
  }));
}

describe('every parameter rejection of every method: -32602 naming the argument', () => {
  // The cases use the chain's hashes, so they are built when the tests run.
  const casesOf = (method: string): RejectionCase[] => [
    ...rejections(method, SIGNATURES[method]!),
    ...(method === 'eth_getLogs' ? filterRejections() : []),
  ];

  for (const method of Object.keys(SIGNATURES)) {
    test(`${method}: every rejection, in one batch`, async () => {
      const cases = casesOf(method);
      const { json } = await svc.post(
        cases.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params })),
      );
      const answers = json as RpcResponse[];
      assert.equal(answers.length, cases.length);
      cases.forEach((c, i) => {
        const r = answers[i]!;
        assert.equal(r.id, i);
        assert.equal(r.result, undefined, `${c.title}: answered ${JSON.stringify(r.result)?.slice(0, 80)}`);
        assert.deepEqual(r.error, { code: -32602, message: c.message }, c.title);
      });
    });
  }

  test('every message names its argument: index and name, unless no argument exists (too many)', () => {
    const all = Object.keys(SIGNATURES).flatMap(casesOf);
    for (const c of all) {
      if (c.message.startsWith('too many arguments')) continue;
      assert.match(c.message, /^invalid argument \d+[ :]/, c.title);
      if (c.method !== 'eth_getLogs') assert.match(c.message, /^invalid argument \d+ \([a-z ]+\): /, c.title);
    }
    assert.ok(all.length > 300, `${all.length} cases`);
  });

  test('eth_getStorageAt at an unknown block: -32000 header not found / header for hash not found (geth)', async () => {
    const unknownHash = '0x' + '1'.repeat(64);
    for (const block of [unknownHash, { blockHash: unknownHash }, { blockHash: unknownHash, requireCanonical: true }]) {
      const res = await svc.call('eth_getStorageAt', [ADDRESS, '0x0', block]);
      assert.deepEqual(res.error, { code: -32000, message: 'header for hash not found' }, JSON.stringify(block));
    }
    for (const block of [hex(head() + 1), { blockNumber: hex(head() + 1) }, '0x7fffffffffffffff']) {
      const res = await svc.call('eth_getStorageAt', [ADDRESS, '0x0', block]);
      assert.deepEqual(res.error, { code: -32000, message: 'header not found' }, JSON.stringify(block));
    }
  });

  test('zero-argument methods refuse any argument, even null', async () => {
    for (const method of ['eth_chainId', 'eth_blockNumber', 'net_version', 'web3_clientVersion']) {
      for (const params of [[null], [1], ['latest'], [{}], [[]]]) {
        const res = await svc.call(method, params);
        assert.deepEqual(
          res.error,
          { code: -32602, message: 'too many arguments, want at most 0' },
          `${method} ${JSON.stringify(params)}`,
        );
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The edge forms that must be accepted, each checked against the canonical form's answer.
// ---------------------------------------------------------------------------------------------

describe('accepted edge forms', () => {
  const upperDigits = (h: string) => '0x' + h.slice(2).toUpperCase();

  test("'0x0' is a quantity: block 0, transaction index 0", async () => {
    const block = (await svc.result('eth_getBlockByNumber', ['0x0', false])) as Obj;
    assert.equal(block.number, '0x0');
    assert.equal(block.hash, blockHashOf(0));
    const tx = (await svc.result('eth_getTransactionByBlockNumberAndIndex', ['0x0', '0x0'])) as Obj;
    assert.equal(tx.hash, bytesToHex(chain[0]!.transactions[0]!.hash));
    const byHash = (await svc.result('eth_getTransactionByBlockHashAndIndex', [blockHashOf(0), '0x0'])) as Obj;
    assert.deepEqual(byHash, tx);
  });

  test('upper-case hex digits in data and quantities, and a 0X prefix (geth hexutil)', async () => {
    const n = 7;
    const block = await svc.result('eth_getBlockByNumber', [hex(n), false]);
    assert.deepEqual(await svc.result('eth_getBlockByHash', [upperDigits(blockHashOf(n)), false]), block);
    assert.deepEqual(await svc.result('eth_getBlockByHash', ['0X' + blockHashOf(n).slice(2), false]), block);
    assert.deepEqual(await svc.result('eth_getBlockByNumber', ['0X7', false]), block);
    const big = 26;
    assert.deepEqual(
      await svc.result('eth_getBlockByNumber', ['0x1A', false]),
      await svc.result('eth_getBlockByNumber', [hex(big), false]),
    );
    const t = chain[n]!.transactions[1]!;
    const tx = (await svc.result('eth_getTransactionByHash', [upperDigits(bytesToHex(t.hash))])) as Obj;
    assert.equal(tx.hash, bytesToHex(t.hash));
    assert.equal(tx.transactionIndex, '0x1');
    assert.deepEqual(
      await svc.result('eth_getTransactionByBlockHashAndIndex', [upperDigits(blockHashOf(n)), '0X1']),
      tx,
    );
  });

  test(
    'eth_getStorageAt: storage keys without 0x, of odd length, ' + 'padded, upper-case; the block optional or null',
    async () => {
      // A plain (small) slot first written after block 0 (its value in that block), and a mapping
      // slot, from the generator.
      let small: { address: string; slot: number; block: number; value: string } | undefined;
      let mapped: { address: string; slot: string } | undefined;
      const written = new Set<string>();
      for (const b of chain) {
        for (const w of b.storage) {
          const address = bytesToHex(w.address);
          const isSmall = w.slot.subarray(0, 31).every((x) => x === 0);
          if (!small && isSmall && b.header.number > 0 && !written.has(address + bytesToHex(w.slot))) {
            // The slot's last write in this block is its value after the block.
            const last = b.storage
              .filter((x) => bytesToHex(x.address) === address && bytesToHex(x.slot) === bytesToHex(w.slot))
              .at(-1)!;
            if (last.value.some((x) => x !== 0))
              small = { address, slot: w.slot[31]!, block: b.header.number, value: bytesToHex(last.value) };
          }
          if (!mapped && !isSmall && /[a-f]/.test(bytesToHex(w.slot).slice(2)))
            mapped = { address, slot: bytesToHex(w.slot) };
        }
        for (const w of b.storage) written.add(bytesToHex(w.address) + bytesToHex(w.slot));
      }
      assert.ok(small && mapped, 'the generator writes plain and mapping slots');
      assert.ok(small.block > 0);
      const zero = '0x' + '00'.repeat(32);
      assert.notEqual(small.value, zero);
      const s = small.slot.toString(16);
      const canonical = '0x' + s.padStart(64, '0');
      const at = (key: unknown, block: unknown, address = small!.address) =>
        svc.result('eth_getStorageAt', [address, key, block]);
      const writtenAt = hex(small.block);
      for (const key of [s, '0x' + s, '0' + s, '0x0' + s, '0X' + s, '0'.repeat(63) + s, canonical]) {
        assert.equal(await at(key, writtenAt), small.value, key);
      }
      assert.equal(await at(canonical, writtenAt, upperDigits(small.address)), small.value, 'upper-case address');
      // Without the block argument, or with null: latest.
      const latest = await at(canonical, 'latest');
      assert.equal(await svc.result('eth_getStorageAt', [small.address, canonical]), latest);
      assert.equal(await at(canonical, null), latest);
      // Empty keys are slot 0 (geth's decodeHash).
      const slot0 = await at('0x0', 'latest');
      for (const key of ['', '0x', '0', '00', '0x' + '0'.repeat(64)])
        assert.equal(await at(key, 'latest'), slot0, JSON.stringify(key));
      // Upper-case digits in a mapping slot, with and without 0x.
      const mappedValue = await at(mapped.slot, 'latest', mapped.address);
      assert.equal(await at(upperDigits(mapped.slot), 'latest', mapped.address), mappedValue);
      assert.equal(await at(mapped.slot.slice(2).toUpperCase(), 'latest', mapped.address), mappedValue);
      // EIP-1898 objects and a bare hash select the block: zero before the first write, the value at it.
      const before = small.block - 1;
      for (const [n, value] of [
        [before, zero],
        [small.block, small.value],
      ] as const) {
        const forms: unknown[] = [
          hex(n),
          { blockNumber: hex(n) },
          { blockHash: blockHashOf(n) },
          { blockHash: blockHashOf(n), requireCanonical: true },
          { blockHash: blockHashOf(n), requireCanonical: false },
          blockHashOf(n),
          upperDigits(blockHashOf(n)),
        ];
        for (const block of forms)
          assert.equal(await at(canonical, block), value, `${JSON.stringify(block)} (block ${n})`);
      }
      for (const block of [
        { blockNumber: 'latest' },
        { blockHash: blockHashOf(head()) },
        { blockNumber: hex(head()) },
        blockHashOf(head()),
      ]) {
        assert.equal(await at(canonical, block), latest, JSON.stringify(block));
      }
      assert.equal(await at(canonical, '0x0'), await at(canonical, { blockNumber: '0x0' }));
    },
  );

  test('zero-argument methods: params absent, null or empty', async () => {
    const expected: Record<string, unknown> = {
      eth_chainId: '0x1',
      net_version: '1',
      eth_blockNumber: hex(head()),
      web3_clientVersion: await svc.result('web3_clientVersion', []),
    };
    for (const [method, result] of Object.entries(expected)) {
      for (const request of [
        { jsonrpc: '2.0', id: 1, method },
        { jsonrpc: '2.0', id: 1, method, params: null },
        { jsonrpc: '2.0', id: 1, method, params: [] },
      ]) {
        assert.deepEqual((await svc.post(request)).json, { jsonrpc: '2.0', id: 1, result }, JSON.stringify(request));
      }
    }
  });

  test('eth_getLogs: upper-case and 0X hex, case-insensitive field names, wildcard forms', async () => {
    const b = chain[20]!;
    const log = b.logs.find((l) => l.topics.length >= 2)!;
    const address = bytesToHex(log.address);
    const t0 = bytesToHex(log.topics[0]!);
    const t1 = bytesToHex(log.topics[1]!);
    const range = { fromBlock: '0x14', toBlock: '0x14' };
    const base = (await svc.result('eth_getLogs', [{ ...range, address, topics: [t0, t1] }])) as Obj[];
    assert.ok(base.length > 0);
    const same = async (filter: Obj, what: string) =>
      assert.deepEqual(await svc.result('eth_getLogs', [filter]), base, what);
    await same(
      { ...range, address: upperDigits(address), topics: [upperDigits(t0), [upperDigits(t1)]] },
      'upper-case digits',
    );
    await same({ ...range, address: '0X' + address.slice(2), topics: ['0X' + t0.slice(2), t1] }, '0X prefix');
    await same({ fromblock: '0x14', TOBLOCK: '0x14', Address: [address], topics: [t0, t1] }, 'field names in any case');
    await same({ blockhash: bytesToHex(b.header.hash), address, topics: [t0, t1] }, 'blockhash spelled in lower case');
    const wild = (await svc.result('eth_getLogs', [{ ...range, address }])) as Obj[];
    // A wildcard position still needs the log to have a topic there (geth's filterLogs).
    for (const topics of [[], [null], [[]], [[t0, null]], [null, null], [[null]], [[], [null]]]) {
      const expected = wild.filter((l) => (l.topics as string[]).length >= topics.length);
      assert.deepEqual(
        await svc.result('eth_getLogs', [{ ...range, address, topics }]),
        expected,
        JSON.stringify(topics),
      );
    }
    assert.deepEqual(await svc.result('eth_getLogs', [{ ...range, address, topics: null }]), wild);
    assert.deepEqual(
      await svc.result('eth_getLogs', [{ ...range, address: [] }]),
      await svc.result('eth_getLogs', [range]),
      'an empty address list is any address',
    );
  });
});
