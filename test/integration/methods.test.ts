/**
 * Every method, every tag, not-found answers, batches and auth, through the real server over real
 * HTTP, checked against the generator's own blocks (an independent source of truth).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle, Log } from '#src/chain/types.js';
import { INVALID_KEY_MESSAGE, missingKeyMessage, REVOKED_KEY_MESSAGE, UNAUTHORIZED } from '#src/rpc/errors.js';
import { generateChain, generatePending, markers } from '#src/synth/generator.js';
import {
  makeDataset,
  type RpcResponse,
  startTestService,
  type TestDataset,
  type TestService,
} from '../support/harness.js';

const BLOCKS = 120;
const DENSITY = 0.05;
const SEED = 'methods';

let dataset: TestDataset;
let svc: TestService;
let chain: BlockBundle[];
let pending: BlockBundle;

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, SEED);
  svc = await startTestService(dataset);
  const opts = { blocks: BLOCKS, seed: SEED, density: DENSITY, pending: true };
  chain = [...generateChain(opts)];
  pending = generatePending(opts, chain[chain.length - 1]!.header);
});

after(async () => {
  await svc.close();
  dataset.remove();
});

const head = () => chain.length - 1;
const hex = quantityToHex;

type Obj = Record<string, unknown>;

describe('chain companions', () => {
  test('eth_chainId, net_version, eth_blockNumber, web3_clientVersion', async () => {
    assert.equal(await svc.result('eth_chainId', []), '0x1');
    assert.equal(await svc.result('net_version', []), '1');
    assert.equal(await svc.result('eth_blockNumber', []), hex(head()));
    assert.match((await svc.result('web3_clientVersion', [])) as string, /^ethlogd\//);
  });
});

describe('eth_getBlockByNumber', () => {
  test('by number, with hashes and with full transactions', async () => {
    for (const n of [0, 1, 57, head()]) {
      const b = chain[n]!;
      const block = (await svc.result('eth_getBlockByNumber', [hex(n), false])) as Obj;
      assert.equal(block.hash, bytesToHex(b.header.hash));
      assert.equal(block.number, hex(n));
      assert.equal(block.parentHash, bytesToHex(b.header.parentHash));
      assert.equal(block.logsBloom, bytesToHex(b.header.logsBloom));
      assert.deepEqual(
        block.transactions,
        b.transactions.map((t) => bytesToHex(t.hash)),
      );
      const full = (await svc.result('eth_getBlockByNumber', [hex(n), true])) as Obj;
      const txs = full.transactions as Obj[];
      assert.equal(txs.length, b.transactions.length);
      txs.forEach((tx, i) => {
        assert.equal(tx.hash, bytesToHex(b.transactions[i]!.hash));
        assert.equal(tx.blockHash, block.hash);
        assert.equal(tx.blockNumber, hex(n));
        assert.equal(tx.transactionIndex, hex(i));
      });
    }
  });

  test('every tag', async () => {
    const m = markers(head(), 0);
    const expect: Record<string, number> = { latest: head(), earliest: 0, safe: m.safe, finalized: m.finalized };
    for (const [tag, n] of Object.entries(expect)) {
      const block = (await svc.result('eth_getBlockByNumber', [tag, false])) as Obj;
      assert.equal(block.number, hex(n), tag);
      assert.equal(block.hash, bytesToHex(chain[n]!.header.hash), tag);
    }
  });

  test('pending: null hash, nonce, logsBloom and number; pending transactions have null positions', async () => {
    const block = (await svc.result('eth_getBlockByNumber', ['pending', true])) as Obj;
    assert.equal(block.hash, null);
    assert.equal(block.nonce, null);
    assert.equal(block.logsBloom, null);
    assert.equal(block.number, null);
    assert.equal(block.parentHash, bytesToHex(chain[head()]!.header.hash));
    const txs = block.transactions as Obj[];
    assert.equal(txs.length, pending.transactions.length);
    assert.ok(txs.length > 0);
    for (const tx of txs) {
      assert.equal(tx.blockHash, null);
      assert.equal(tx.blockNumber, null);
      assert.equal(tx.transactionIndex, null);
    }
  });

  test('not found: null', async () => {
    assert.equal(await svc.result('eth_getBlockByNumber', [hex(head() + 1), false]), null);
    assert.equal(await svc.result('eth_getBlockByNumber', ['0xffffffffffff', true]), null);
  });
});

describe('block and transaction by hash', () => {
  test('transaction and uncle counts of the pending block; null for an absent one', async () => {
    assert.equal(
      await svc.result('eth_getBlockTransactionCountByNumber', ['pending']),
      quantityToHex(pending.transactions.length),
    );
    assert.equal(await svc.result('eth_getUncleCountByBlockNumber', ['pending']), '0x0');
    assert.equal(await svc.result('eth_getBlockTransactionCountByNumber', [quantityToHex(BLOCKS + 100)]), null);
    assert.equal(await svc.result('eth_getUncleCountByBlockHash', ['0x' + '12'.repeat(32)]), null);
    assert.equal((await svc.call('eth_getBlockTransactionCountByNumber', [])).error?.code, -32602);
  });

  test('eth_getBlockByHash finds canonical blocks and answers null for unknown hashes', async () => {
    const b = chain[33]!;
    const block = (await svc.result('eth_getBlockByHash', [bytesToHex(b.header.hash), false])) as Obj;
    assert.equal(block.number, hex(33));
    assert.equal(await svc.result('eth_getBlockByHash', ['0x' + '11'.repeat(32), false]), null);
  });

  test('eth_getTransactionByHash: canonical, pending, unknown', async () => {
    for (const n of [0, 40, head()]) {
      const b = chain[n]!;
      for (const [i, t] of b.transactions.entries()) {
        if (i % 5) continue;
        const tx = (await svc.result('eth_getTransactionByHash', [bytesToHex(t.hash)])) as Obj;
        assert.equal(tx.hash, bytesToHex(t.hash));
        assert.equal(tx.from, bytesToHex(t.from));
        assert.equal(tx.to, t.to ? bytesToHex(t.to) : null);
        assert.equal(tx.nonce, hex(t.nonce));
        assert.equal(tx.blockNumber, hex(n));
        assert.equal(tx.transactionIndex, hex(i));
        assert.equal(tx.type, hex(t.type));
      }
    }
    const p = pending.transactions[0]!;
    const ptx = (await svc.result('eth_getTransactionByHash', [bytesToHex(p.hash)])) as Obj;
    assert.equal(ptx.hash, bytesToHex(p.hash));
    assert.equal(ptx.blockHash, null);
    assert.equal(ptx.blockNumber, null);
    assert.equal(ptx.transactionIndex, null);
    assert.equal(await svc.result('eth_getTransactionByHash', ['0x' + 'ab'.repeat(32)]), null);
  });

  test('eth_getTransactionByBlockNumberAndIndex and ByBlockHashAndIndex', async () => {
    const n = 77;
    const b = chain[n]!;
    const last = b.transactions.length - 1;
    const byNumber = (await svc.result('eth_getTransactionByBlockNumberAndIndex', [hex(n), hex(last)])) as Obj;
    assert.equal(byNumber.hash, bytesToHex(b.transactions[last]!.hash));
    const byHash = (await svc.result('eth_getTransactionByBlockHashAndIndex', [
      bytesToHex(b.header.hash),
      hex(last),
    ])) as Obj;
    assert.deepEqual(byHash, byNumber);
    const latest = (await svc.result('eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0'])) as Obj;
    assert.equal(latest.hash, bytesToHex(chain[head()]!.transactions[0]!.hash));
    const earliest = (await svc.result('eth_getTransactionByBlockNumberAndIndex', ['earliest', '0x0'])) as Obj;
    assert.equal(earliest.hash, bytesToHex(chain[0]!.transactions[0]!.hash));
    const pend = (await svc.result('eth_getTransactionByBlockNumberAndIndex', ['pending', '0x0'])) as Obj;
    assert.equal(pend.hash, bytesToHex(pending.transactions[0]!.hash));
    assert.equal(pend.blockNumber, null);
    assert.equal(await svc.result('eth_getTransactionByBlockNumberAndIndex', [hex(n), hex(last + 1)]), null);
    assert.equal(await svc.result('eth_getTransactionByBlockNumberAndIndex', [hex(head() + 5), '0x0']), null);
    assert.equal(await svc.result('eth_getTransactionByBlockHashAndIndex', ['0x' + '22'.repeat(32), '0x0']), null);
  });
});

describe('eth_getStorageAt', () => {
  test('follows the history of written slots at every block', async () => {
    const history = new Map<string, { block: number; value: string }[]>();
    for (const b of chain) {
      for (const w of b.storage) {
        const k = bytesToHex(w.address) + ':' + bytesToHex(w.slot);
        const list = history.get(k) ?? [];
        const value = bytesToHex(w.value);
        if (list.at(-1)?.block === b.header.number) list[list.length - 1]!.value = value;
        else list.push({ block: b.header.number, value });
        history.set(k, list);
      }
    }
    assert.ok(history.size > 0, 'the generator writes storage');
    const zero = '0x' + '00'.repeat(32);
    let checked = 0;
    for (const [k, writes] of [...history.entries()].slice(0, 12)) {
      const [address, slot] = k.split(':') as [string, string];
      const first = writes[0]!;
      if (first.block > 0)
        assert.equal(await svc.result('eth_getStorageAt', [address, slot, hex(first.block - 1)]), zero);
      for (const w of writes) {
        assert.equal(await svc.result('eth_getStorageAt', [address, slot, hex(w.block)]), w.value);
        checked++;
      }
      const lastValue = writes.at(-1)!.value;
      assert.equal(await svc.result('eth_getStorageAt', [address, slot, 'latest']), lastValue);
      assert.equal(await svc.result('eth_getStorageAt', [address, slot]), lastValue, 'block defaults to latest');
      const h = bytesToHex(chain[head()]!.header.hash);
      assert.equal(
        await svc.result('eth_getStorageAt', [address, slot, { blockHash: h }]),
        lastValue,
        'EIP-1898 by hash',
      );
      assert.equal(
        await svc.result('eth_getStorageAt', [address, slot, { blockNumber: hex(head()) }]),
        lastValue,
        'EIP-1898 by number',
      );
    }
    assert.ok(checked > 0);
  });

  test('a never-written slot is zero; a block beyond the head is an error', async () => {
    const address = '0x' + '42'.repeat(20);
    assert.equal(await svc.result('eth_getStorageAt', [address, '0x0', 'latest']), '0x' + '00'.repeat(32));
    const res = await svc.call('eth_getStorageAt', [address, '0x0', hex(head() + 1)]);
    assert.deepEqual(res.error, { code: -32000, message: 'header not found' });
  });
});

function bruteForce(blocks: BlockBundle[], match: (log: Log) => boolean): { block: number; index: number; log: Log }[] {
  const out: { block: number; index: number; log: Log }[] = [];
  for (const b of blocks)
    b.logs.forEach((log, index) => match(log) && out.push({ block: b.header.number, index, log }));
  return out;
}

describe('eth_getLogs', () => {
  test('by address over a range: the same logs, in order, with positions', async () => {
    const counts = new Map<string, number>();
    for (const b of chain)
      for (const l of b.logs) counts.set(bytesToHex(l.address), (counts.get(bytesToHex(l.address)) ?? 0) + 1);
    const address = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const from = 10;
    const to = 90;
    const expected = bruteForce(chain.slice(from, to + 1), (l) => bytesToHex(l.address) === address);
    const logs = (await svc.result('eth_getLogs', [{ address, fromBlock: hex(from), toBlock: hex(to) }])) as Obj[];
    assert.equal(logs.length, expected.length);
    assert.ok(logs.length > 0);
    logs.forEach((log, i) => {
      const e = expected[i]!;
      const b = chain[e.block]!;
      assert.equal(log.address, address);
      assert.equal(log.blockNumber, hex(e.block));
      assert.equal(log.blockHash, bytesToHex(b.header.hash));
      assert.equal(log.logIndex, hex(e.index));
      assert.equal(log.transactionIndex, hex(e.log.txIndex));
      assert.equal(log.transactionHash, bytesToHex(b.transactions[e.log.txIndex]!.hash));
      assert.equal(log.data, bytesToHex(e.log.data));
      assert.deepEqual(log.topics, e.log.topics.map(bytesToHex));
      assert.equal(log.removed, false);
    });
  });

  test('topics with wildcards and OR lists, blockHash, default range, no match', async () => {
    const sample = chain[50]!.logs.find((l) => l.topics.length >= 2)!;
    const t0 = bytesToHex(sample.topics[0]!);
    const t1 = bytesToHex(sample.topics[1]!);
    const expected = bruteForce(chain, (l) => l.topics.length >= 2 && bytesToHex(l.topics[1]!) === t1);
    const logs = (await svc.result('eth_getLogs', [
      { fromBlock: 'earliest', toBlock: 'latest', topics: [null, t1] },
    ])) as Obj[];
    assert.equal(logs.length, expected.length);
    const or = (await svc.result('eth_getLogs', [
      { fromBlock: '0x0', toBlock: 'latest', topics: [[t0, '0x' + '00'.repeat(32)], [t1]] },
    ])) as Obj[];
    assert.ok(or.some((l) => (l.topics as string[])[1] === t1));
    const byHash = (await svc.result('eth_getLogs', [{ blockHash: bytesToHex(chain[50]!.header.hash) }])) as Obj[];
    assert.equal(byHash.length, chain[50]!.logs.length);
    const latest = (await svc.result('eth_getLogs', [{}])) as Obj[];
    assert.equal(latest.length, chain[head()]!.logs.length);
    assert.deepEqual(await svc.result('eth_getLogs', [{ address: '0x' + '99'.repeat(20), fromBlock: '0x0' }]), []);
    assert.deepEqual(await svc.result('eth_getLogs', [{ blockHash: '0x' + '77'.repeat(32) }]), []);
  });

  test('toBlock pending includes the pending logs with null positions', async () => {
    const logs = (await svc.result('eth_getLogs', [{ fromBlock: 'latest', toBlock: 'pending' }])) as Obj[];
    assert.equal(logs.length, chain[head()]!.logs.length + pending.logs.length);
    const tail = logs.slice(chain[head()]!.logs.length);
    for (const log of tail) {
      assert.equal(log.blockHash, null);
      assert.equal(log.blockNumber, null);
      assert.equal(log.logIndex, null);
      assert.equal(log.transactionHash, null);
      assert.equal(log.transactionIndex, null);
    }
  });

  test('range errors as geth', async () => {
    const reversed = await svc.call('eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x4' }]);
    assert.deepEqual(reversed.error, { code: -32602, message: 'invalid block range params' });
    const beyond = await svc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head() + 1) }]);
    assert.deepEqual(beyond.error, {
      code: -32602,
      message: `block range extends beyond current head block (the head is ${hex(head())})`,
    });
    const both = await svc.call('eth_getLogs', [{ blockHash: bytesToHex(chain[1]!.header.hash), fromBlock: '0x1' }]);
    assert.equal(both.error?.code, -32602);
    assert.match(both.error!.message, /cannot specify both BlockHash and FromBlock\/ToBlock/);
    const topics = await svc.call('eth_getLogs', [{ topics: [null, null, null, null, null] }]);
    assert.deepEqual(topics.error, { code: -32602, message: 'exceed max topics' });
    const many = Array.from({ length: 5001 }, (_, i) => '0x' + i.toString(16).padStart(40, '0'));
    const params = await svc.call('eth_getLogs', [{ address: many }]);
    assert.deepEqual(params.error, { code: -32005, message: 'query exceeds 5000 parameters' });
  });
});

describe('envelope', () => {
  test('a batch answers in order, mixing results and errors', async () => {
    const { status, json } = await svc.post([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 'two', method: 'eth_nope', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_getBlockByNumber', params: ['0x1', false] },
      { jsonrpc: '2.0', id: 4, method: 'eth_getBlockByNumber', params: ['0x01', false] },
      42,
      { jsonrpc: '2.0', id: null, method: 'eth_chainId' },
    ]);
    assert.equal(status, 200);
    const items = json as RpcResponse[];
    assert.deepEqual(
      items.map((r) => r.id),
      [1, 'two', 3, 4, null, null],
    );
    assert.equal(items[0]!.result, hex(head()));
    assert.deepEqual(items[1]!.error, { code: -32601, message: 'the method eth_nope does not exist/is not available' });
    assert.equal((items[2]!.result as Obj).number, '0x1');
    assert.equal(items[3]!.error!.code, -32602);
    assert.match(items[3]!.error!.message, /argument 0.*leading zero/);
    assert.deepEqual(items[4]!.error, { code: -32600, message: 'invalid request: a request is a JSON object' });
    assert.equal(items[5]!.result, '0x1');
  });

  test('parse error, invalid request, empty and oversized batches', async () => {
    assert.deepEqual((await svc.post('{"jsonrpc":')).json, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    });
    assert.deepEqual((await svc.post({ id: 7, method: 'eth_chainId' })).json, {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'invalid request: "jsonrpc" must be "2.0"' },
    });
    assert.deepEqual((await svc.post([])).json, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'empty batch' },
    });
    const big = Array.from({ length: 1001 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }));
    assert.deepEqual((await svc.post(big)).json, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'batch too large: at most 1000 requests per batch' },
    });
  });

  test('bad params name the parameter', async () => {
    const cases: [string, unknown[], RegExp][] = [
      ['eth_getStorageAt', ['0x1234', '0x0', 'latest'], /argument 0 \(address\)/],
      [
        'eth_getStorageAt',
        ['0x' + '11'.repeat(20), '0x' + '1'.repeat(65), 'latest'],
        /argument 1 \(storage position\)/,
      ],
      ['eth_getBlockByNumber', ['0x', false], /argument 0 \(block parameter\)/],
      ['eth_getBlockByNumber', ['0x1', 'yes'], /argument 1/],
      ['eth_getBlockByNumber', ['0x1'], /missing value for required argument 1/],
      ['eth_getTransactionByHash', ['0x1234'], /argument 0 \(transaction hash\)/],
      ['eth_getTransactionByHash', ['0x' + '11'.repeat(32), 1], /too many arguments/],
      ['eth_getTransactionByBlockNumberAndIndex', ['latest', '0x00'], /argument 1 \(transaction index position\)/],
      ['eth_getLogs', [{ address: '0x12' }], /invalid address/],
      ['eth_getLogs', [{ topics: ['0x12'] }], /topic/],
    ];
    for (const [method, params, message] of cases) {
      const res = await svc.call(method, params);
      assert.equal(res.error?.code, -32602, `${method} ${JSON.stringify(params)}`);
      assert.match(res.error!.message, message);
    }
  });
});

describe('auth', () => {
  test('missing, unknown and revoked keys get 401 with a JSON-RPC error body', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
    const expect = async (path: string, message: string) => {
      const { status, json } = await svc.post(body, path);
      assert.equal(status, 401, path);
      assert.deepEqual(json, { jsonrpc: '2.0', id: null, error: { code: UNAUTHORIZED, message } });
    };
    await expect('/v3/', missingKeyMessage('in the path, POST /v3/<API_KEY>'));
    await expect('/v3/' + 'f'.repeat(64), INVALID_KEY_MESSAGE);
    await expect('/v3/' + dataset.revokedKey, REVOKED_KEY_MESSAGE);
  });
});

describe('result cap of the oracle', () => {
  test('answers -32005 with a range that fits', async () => {
    const capped = await startTestService(dataset, { maxResults: 50 });
    try {
      const res = await capped.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
      assert.equal(res.error?.code, -32005);
      const data = res.error!.data as { from: string; to: string; limit: number };
      assert.equal(
        res.error!.message,
        `query returned more than 50 results. Try with this block range [${data.from}, ${data.to}].`,
      );
      assert.equal(data.limit, 50);
      const retry = await capped.call('eth_getLogs', [{ fromBlock: data.from, toBlock: data.to }]);
      assert.ok(Array.isArray(retry.result));
      assert.ok((retry.result as unknown[]).length <= 50);
    } finally {
      await capped.close();
    }
  });
});
