/**
 * Receipts of a generated chain, through a real server: each block's receipts agree with its
 * header and transactions (one per transaction, cumulative gas summing to the block's gas used,
 * each receipt's bloom the bloom of its logs and their union the block's), with eth_getLogs (the
 * same logs in the same places) and with eth_getTransactionReceipt; the fields follow the
 * transaction (effective gas price = a mined transaction's gasPrice, contract address for
 * creations, blob gas for type 3, no logs when reverted). The pending block's receipts have null
 * positions; bad parameters get -32602.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { logsBloom } from '#src/chain/bloom.js';
import { bytesToHex, hexToBytes } from '#src/chain/hex.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';

type Obj = Record<string, unknown>;

/** Blob gas per blob (EIP-4844). */
const GAS_PER_BLOB = 131072n;

let dataset: TestDataset;
let svc: TestService;

before(async () => {
  dataset = await makeDataset(120, 0.05, 'receipts');
  svc = await startTestService(dataset);
});

after(async () => {
  await svc.close();
  dataset.remove();
});

/** The bloom of the logs as served (address and topics hex). */
function bloomOf(logs: Obj[]): string {
  return bytesToHex(
    logsBloom(
      logs.map((l) => ({ address: hexToBytes(l.address)!, topics: (l.topics as string[]).map((t) => hexToBytes(t)!) })),
    ),
  );
}

test(
  "every block's receipts agree with its header, " + 'its transactions, eth_getLogs and eth_getTransactionReceipt',
  async () => {
    const head = Number(await svc.result('eth_blockNumber', []));
    const seen = { reverted: 0, created: 0, blob: 0, withLogs: 0 };
    for (let n = 0; n <= head; n++) {
      const number = '0x' + n.toString(16);
      const block = (await svc.result('eth_getBlockByNumber', [number, true])) as Obj;
      const txs = block.transactions as Obj[];
      const receipts = (await svc.result('eth_getBlockReceipts', [number])) as Obj[];
      assert.equal(receipts.length, txs.length, `block ${n}: one receipt per transaction`);
      assert.deepEqual(await svc.result('eth_getBlockReceipts', [block.hash]), receipts, `block ${n} by hash`);
      let cumulative = 0n;
      const allLogs: Obj[] = [];
      receipts.forEach((r, i) => {
        const tx = txs[i]!;
        const where = `block ${n} receipt ${i}`;
        assert.deepEqual(
          [r.blockHash, r.blockNumber, r.transactionHash, r.transactionIndex, r.from, r.to, r.type],
          [block.hash, number, tx.hash, tx.transactionIndex, tx.from, tx.to, tx.type],
          where,
        );
        cumulative += BigInt(r.gasUsed as string);
        assert.equal(BigInt(r.cumulativeGasUsed as string), cumulative, `${where}: cumulative gas`);
        assert.ok(BigInt(r.gasUsed as string) <= BigInt(tx.gas as string), `${where}: gas used within the gas limit`);
        assert.equal(r.effectiveGasPrice, tx.gasPrice, `${where}: a mined transaction's gasPrice is the price it paid`);
        assert.equal(r.logsBloom, bloomOf(r.logs as Obj[]), `${where}: bloom of its logs`);
        assert.ok(r.status === '0x1' || r.status === '0x0', where);
        if (r.status === '0x0') {
          seen.reverted++;
          assert.deepEqual(r.logs, [], `${where}: a reverted transaction logs nothing`);
        }
        if (tx.to === null) {
          seen.created++;
          assert.match(r.contractAddress as string, /^0x[0-9a-f]{40}$/, `${where}: a creation names its contract`);
        } else {
          assert.equal(r.contractAddress, null, where);
        }
        if (tx.type === '0x3') {
          seen.blob++;
          assert.equal(
            BigInt(r.blobGasUsed as string),
            GAS_PER_BLOB * BigInt((tx.blobVersionedHashes as string[]).length),
            `${where}: blob gas`,
          );
          assert.ok(BigInt(r.blobGasPrice as string) > 0n, where);
        } else {
          assert.ok(!('blobGasUsed' in r) && !('blobGasPrice' in r), `${where}: blob fields only for type 3`);
        }
        if ((r.logs as Obj[]).length > 0) seen.withLogs++;
        allLogs.push(...(r.logs as Obj[]));
      });
      assert.equal(
        cumulative,
        BigInt(block.gasUsed as string),
        `block ${n}: the last cumulative gas is the block's gas used`,
      );
      assert.equal(bloomOf(allLogs), block.logsBloom, `block ${n}: the receipts' logs make the block's bloom`);
      assert.deepEqual(
        allLogs,
        await svc.result('eth_getLogs', [{ blockHash: block.hash }]),
        `block ${n}: the receipts' logs are eth_getLogs'`,
      );
      if (n % 10 === 0) {
        for (const [i, tx] of txs.entries())
          assert.deepEqual(
            await svc.result('eth_getTransactionReceipt', [tx.hash]),
            receipts[i],
            `block ${n} receipt ${i} by hash`,
          );
      }
    }
    assert.ok(
      seen.reverted > 0 && seen.created > 0 && seen.withLogs > 0,
      `the chain has reverted, creating and logging transactions: ${JSON.stringify(seen)}`,
    );
  },
);

test(
  'block selectors: tags, EIP-1898 objects, the pending block with ' +
    'null positions; null for unknown blocks and transactions',
  async () => {
    const head = Number(await svc.result('eth_blockNumber', []));
    const latest = (await svc.result('eth_getBlockReceipts', ['latest'])) as Obj[];
    assert.deepEqual(await svc.result('eth_getBlockReceipts', ['0x' + head.toString(16)]), latest);
    const block = (await svc.result('eth_getBlockByNumber', ['latest', false])) as Obj;
    assert.deepEqual(await svc.result('eth_getBlockReceipts', [{ blockHash: block.hash }]), latest);
    assert.deepEqual(await svc.result('eth_getBlockReceipts', [{ blockNumber: block.number }]), latest);
    for (const tag of ['earliest', 'safe', 'finalized'])
      assert.ok(Array.isArray(await svc.result('eth_getBlockReceipts', [tag])), tag);

    const pendingBlock = (await svc.result('eth_getBlockByNumber', ['pending', true])) as Obj;
    const pending = (await svc.result('eth_getBlockReceipts', ['pending'])) as Obj[];
    assert.equal(pending.length, (pendingBlock.transactions as Obj[]).length);
    assert.ok(pending.length > 0, 'the generated pending block has transactions');
    for (const r of pending) {
      assert.deepEqual(
        [r.blockHash, r.blockNumber, r.transactionIndex],
        [null, null, null],
        'pending positions are null',
      );
      for (const l of r.logs as Obj[]) assert.deepEqual([l.blockHash, l.logIndex], [null, null]);
    }
    assert.equal(
      await svc.result('eth_getTransactionReceipt', [(pendingBlock.transactions as Obj[])[0]!.hash]),
      null,
      'a pending transaction has no receipt (geth)',
    );

    assert.equal(await svc.result('eth_getTransactionReceipt', ['0x' + 'ab'.repeat(32)]), null);
    assert.equal(await svc.result('eth_getBlockReceipts', ['0x' + 'ab'.repeat(32)]), null);
    assert.equal(await svc.result('eth_getBlockReceipts', ['0x' + (head + 1).toString(16)]), null);
  },
);

test('bad parameters answer -32602 naming the argument', async () => {
  const cases: [string, unknown[], RegExp][] = [
    ['eth_getTransactionReceipt', [], /missing value for required argument 0/],
    ['eth_getTransactionReceipt', ['0x12'], /invalid argument 0/],
    ['eth_getTransactionReceipt', ['0x' + 'ab'.repeat(32), 1], /too many arguments/],
    ['eth_getBlockReceipts', [], /missing value for required argument 0/],
    ['eth_getBlockReceipts', ['0x01'], /invalid argument 0/],
    ['eth_getBlockReceipts', [{ blockHash: '0x12' }], /invalid argument 0/],
  ];
  for (const [method, params, message] of cases) {
    const res = await svc.call(method, params);
    assert.equal(res.error?.code, -32602, `${method}(${JSON.stringify(params)})`);
    assert.match(res.error!.message, message);
  }
});
