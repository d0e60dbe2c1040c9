/**
 * Requests to JSON-RPC params (tags, numbers, bytes, unset fields) and wire answers to proto
 * objects (null to unset, quantities to uint64 strings or big-endian bytes).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  blockByNumberParams,
  blockResponse,
  cursorOf,
  filterObject,
  receiptResponse,
  storageAtParams,
  transactionResponse,
  txByBlockNumberAndIndexParams,
  txByHashParams,
} from '#src/grpc/convert.js';
import { InvalidParamsError } from '#src/rpc/errors.js';

const b = (hex: string) => Buffer.from(hex, 'hex');

test('block parameters: tags by name, numbers as hex quantities, unset as a missing parameter', () => {
  assert.deepEqual(blockByNumberParams({ block: { tag: 'BLOCK_TAG_FINALIZED' }, fullTransactions: true }), [
    'finalized',
    true,
  ]);
  assert.deepEqual(blockByNumberParams({ block: { number: '255' } }), ['0xff', false]);
  assert.deepEqual(blockByNumberParams({ block: { number: '0' } }), ['0x0', false]);
  assert.deepEqual(blockByNumberParams({}), [undefined, false]);
  assert.deepEqual(blockByNumberParams({ block: { tag: 'BLOCK_TAG_UNSPECIFIED' } }), [undefined, false]);
  assert.throws(
    () => blockByNumberParams({ block: { tag: 9 } }),
    (e: unknown) => e instanceof InvalidParamsError && /unknown block tag 9/.test(e.message),
  );
  assert.deepEqual(txByBlockNumberAndIndexParams({ block: { tag: 'BLOCK_TAG_PENDING' } }), ['pending', '0x0']);
  assert.deepEqual(txByBlockNumberAndIndexParams({ block: { number: '18446744073709551615' }, index: '16' }), [
    '0xffffffffffffffff',
    '0x10',
  ]);
  assert.deepEqual(txByHashParams({}), ['0x']);
});

test('storage: the block is left out when unset, and an EIP-1898 object when given by hash', () => {
  assert.deepEqual(storageAtParams({ address: b('11'.repeat(20)), position: b('05') }), [
    '0x' + '11'.repeat(20),
    '0x05',
  ]);
  assert.deepEqual(
    storageAtParams({
      address: b('11'.repeat(20)),
      position: b('05'),
      block: { hash: b('22'.repeat(32)), requireCanonical: true },
    })[2],
    {
      blockHash: '0x' + '22'.repeat(32),
      requireCanonical: true,
    },
  );
  assert.equal(storageAtParams({ block: { tag: 'BLOCK_TAG_SAFE' } })[2], 'safe');
});

test('filters: unset fields left out, an empty topic position a wildcard', () => {
  assert.deepEqual(filterObject(undefined), {});
  assert.deepEqual(
    filterObject({
      fromBlock: { number: '1' },
      toBlock: { tag: 'BLOCK_TAG_LATEST' },
      addresses: [b('aa'.repeat(20))],
      topics: [{ anyOf: [b('01'.repeat(32)), b('02'.repeat(32))] }, {}, { anyOf: [b('03'.repeat(32))] }],
    }),
    {
      fromBlock: '0x1',
      toBlock: 'latest',
      address: ['0x' + 'aa'.repeat(20)],
      topics: [['0x' + '01'.repeat(32), '0x' + '02'.repeat(32)], null, ['0x' + '03'.repeat(32)]],
    },
  );
  assert.deepEqual(filterObject({ blockHash: b('44'.repeat(32)), addresses: [], topics: [] }), {
    blockHash: '0x' + '44'.repeat(32),
  });
});

test('cursors: unset is none, numbers past 2^53 clamp', () => {
  assert.equal(cursorOf(undefined), undefined);
  assert.deepEqual(cursorOf({}), { block: 0, logIndex: 0 });
  assert.deepEqual(cursorOf({ blockNumber: '12', logIndex: '3' }), { block: 12, logIndex: 3 });
  assert.deepEqual(cursorOf({ blockNumber: '18446744073709551615' }), { block: Number.MAX_SAFE_INTEGER, logIndex: 0 });
});

test(
  'answers: null unset, quantities to uint64 strings or ' + 'minimal big-endian bytes, unknown fields in extraJson',
  () => {
    assert.deepEqual(transactionResponse(null), {});
    assert.deepEqual(blockResponse(null), {});
    const tx = transactionResponse({
      blockHash: null,
      gas: '0x5208',
      value: '0x0',
      gasPrice: '0x1000',
      type: '0x2',
      to: null,
      extra: '0x1',
      accessList: [],
    }).transaction as Record<string, unknown>;
    assert.deepEqual(tx, {
      gas: '21000',
      value: Buffer.alloc(0),
      gasPrice: Buffer.from([0x10, 0x00]),
      type: 2,
      accessList: [],
      extraJson: '{"extra":"0x1"}',
    });
    const deposit = transactionResponse({
      type: '0x7e',
      sourceHash: '0x' + '11'.repeat(32),
      mint: '0x5',
      isSystemTx: true,
      nonce: '0x2',
    }).transaction;
    assert.deepEqual(deposit, {
      type: 126,
      nonce: '2',
      extraJson: `{"sourceHash":"0x${'11'.repeat(32)}","mint":"0x5","isSystemTx":true}`,
    });
    const receipt = receiptResponse({ type: '0x7E', gasUsed: '0x5208', l1Fee: '0x10', depositNonce: '0x1' }).receipt;
    assert.deepEqual(receipt, { type: 126, gasUsed: '21000', extraJson: '{"l1Fee":"0x10","depositNonce":"0x1"}' });
    assert.deepEqual(blockResponse({ number: '0x1', sendCount: '0x3', transactions: [] }).block, {
      number: '1',
      transactions: [],
      extraJson: '{"sendCount":"0x3"}',
    });
    const odd = transactionResponse({ value: '0x123', nonce: '0x1fffffffffffff', gas: '0xffffffffffffffff' })
      .transaction as Record<string, unknown>;
    assert.deepEqual(odd, {
      value: Buffer.from([0x01, 0x23]),
      nonce: String(2 ** 53 - 1),
      gas: '18446744073709551615',
    });
    const block = blockResponse({ number: null, transactions: ['0x' + '01'.repeat(32)], uncles: [] }).block as Record<
      string,
      unknown
    >;
    assert.deepEqual(block, { transactionHashes: [b('01'.repeat(32))], uncles: [] });
    const full = blockResponse({ transactions: [{ nonce: '0x1' }] }).block as Record<string, unknown>;
    assert.deepEqual(full.transactions, [{ nonce: '1' }]);
    assert.throws(() => blockResponse({ gasUsed: '0x10000000000000000' }), RangeError);
  },
);
