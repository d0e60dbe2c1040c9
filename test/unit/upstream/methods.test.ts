/**
 * The forwarding list (what may and may not be on it) and the pinning of block parameters, method
 * by method, to the store's markers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { ChainMeta } from '#src/chain/types.js';
import {
  DEFAULT_UPSTREAM_METHODS,
  ForwardListError,
  forwardedMethods,
  pinBlockParams,
  SEND_METHOD,
} from '#src/upstream/methods.js';

const META: ChainMeta = { chainId: 1n, earliest: 0, head: 100, safe: 68, finalized: 36 };
const SERVED = new Set(['eth_getLogs', 'eth_blockNumber']);
const to = '0x' + '11'.repeat(20);
const hash = '0x' + 'ab'.repeat(32);

describe('forwardedMethods', () => {
  test('the default list, and eth_sendRawTransaction only with send', () => {
    assert.deepEqual([...forwardedMethods(undefined, false, SERVED)], DEFAULT_UPSTREAM_METHODS);
    assert.ok(!forwardedMethods(undefined, false, SERVED).has(SEND_METHOD));
    assert.ok(forwardedMethods(undefined, true, SERVED).has(SEND_METHOD));
    assert.deepEqual([...forwardedMethods(['eth_call', SEND_METHOD], true, SERVED)], ['eth_call', SEND_METHOD]);
  });

  const refusals: [string[], boolean, RegExp][] = [
    [['admin_peers'], false, /admin_peers is never forwarded/],
    [['personal_sign'], false, /never forwarded/],
    [['miner_start'], false, /never forwarded/],
    [['debug_setHead'], false, /never forwarded/],
    [['eth_sendTransaction'], false, /never forwarded/],
    [['eth_signTypedData_v4'], false, /never forwarded/],
    [['anvil_mine'], false, /never forwarded/],
    [['eth_getLogs'], false, /eth_getLogs is answered by the store/],
    [[SEND_METHOD], false, /only with --upstream-send/],
    [['eth call'], false, /is not a method name/],
  ];
  for (const [listed, send, message] of refusals) {
    test(`refuses ${listed.join(',')}`, () => {
      assert.throws(
        () => forwardedMethods(listed, send, SERVED),
        (error: unknown) => error instanceof ForwardListError && message.test(error.message),
      );
    });
  }
});

describe('pinBlockParams', () => {
  const rows: [string, unknown[], unknown[], number | undefined][] = [
    ['eth_call', [{ to }, 'latest'], [{ to }, '0x64'], 100],
    ['eth_call', [{ to }], [{ to }, '0x64'], 100],
    ['eth_call', [{ to }, null], [{ to }, '0x64'], 100],
    ['eth_call', [{ to }, 'safe', { [to]: { balance: '0x1' } }], [{ to }, '0x44', { [to]: { balance: '0x1' } }], 68],
    ['eth_call', [{ to }, null, {}], [{ to }, null, {}], undefined],
    ['eth_call', [{ to }, 'pending'], [{ to }, 'pending'], undefined],
    ['eth_call', [{ to }, 'earliest'], [{ to }, 'earliest'], undefined],
    ['eth_call', [{ to }, '0x65'], [{ to }, '0x65'], 101],
    ['eth_call', [{ to }, hash], [{ to }, hash], undefined],
    ['eth_call', [{ to }, { blockNumber: 'finalized' }], [{ to }, { blockNumber: '0x24' }], 36],
    [
      'eth_call',
      [{ to }, { blockHash: hash, requireCanonical: true }],
      [{ to }, { blockHash: hash, requireCanonical: true }],
      undefined,
    ],
    ['eth_getBalance', [to, 'latest'], [to, '0x64'], 100],
    ['eth_getBalance', [to], [to, '0x64'], 100],
    ['eth_getCode', [to, '0x5'], [to, '0x5'], 5],
    ['eth_getTransactionCount', [to, 'finalized'], [to, '0x24'], 36],
    ['eth_getProof', [to, [], 'latest'], [to, [], '0x64'], 100],
    ['eth_getProof', [to], [to], undefined],
    ['eth_estimateGas', [{ to }], [{ to }, '0x64'], 100],
    ['eth_createAccessList', [{ to }, 'latest'], [{ to }, '0x64'], 100],
    ['eth_feeHistory', ['0x4', 'latest', [25, 75]], ['0x4', '0x64', [25, 75]], 100],
    ['eth_feeHistory', ['0x4'], ['0x4'], undefined],
    ['debug_traceBlockByNumber', ['latest', { tracer: 'callTracer' }], ['0x64', { tracer: 'callTracer' }], 100],
    ['debug_traceBlockByNumber', ['0x9'], ['0x9'], 9],
    ['debug_traceBlockByHash', [hash, {}], [hash, {}], undefined],
    ['debug_traceTransaction', [hash, {}], [hash, {}], undefined],
    ['debug_traceCall', [{ to }, 'latest', {}], [{ to }, '0x64', {}], 100],
    ['trace_block', ['safe'], ['0x44'], 68],
    ['trace_replayBlockTransactions', ['latest', ['trace']], ['0x64', ['trace']], 100],
    ['trace_transaction', [hash], [hash], undefined],
    ['trace_filter', [{ fromBlock: '0x1', toBlock: 'latest' }], [{ fromBlock: '0x1', toBlock: '0x64' }], 100],
    ['trace_filter', [{ fromBlock: '0x1' }], [{ fromBlock: '0x1', toBlock: '0x64' }], 100],
    ['trace_filter', [{ fromBlock: '0x70', toBlock: '0x2' }], [{ fromBlock: '0x70', toBlock: '0x2' }], 112],
    ['eth_gasPrice', [], [], undefined],
    ['eth_call', [{ to }, 'bogus'], [{ to }, 'bogus'], undefined],
  ];
  for (const [method, params, pinned, highest] of rows) {
    test(`${method} ${JSON.stringify(params)}`, () => {
      assert.deepEqual(pinBlockParams(method, params, META), { params: pinned, highest });
    });
  }

  test('never changes the params it is given, and pins every tag below or at the head', () => {
    const block = fc.oneof(
      fc.constantFrom('latest', 'safe', 'finalized', 'pending', 'earliest', null, undefined),
      fc.nat({ max: 1000 }).map((n) => '0x' + n.toString(16)),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('eth_call', 'eth_getBalance', 'trace_block', 'eth_gasPrice'),
        block,
        (method, value) => {
          const params: unknown[] = method === 'trace_block' ? [value] : [to, value];
          const copy = structuredClone(params);
          const { params: out, highest } = pinBlockParams(method, params, META);
          assert.deepEqual(params, copy);
          // eth_gasPrice has no block parameter.
          const pins = method !== 'eth_gasPrice';
          if (!pins) return assert.deepEqual({ params: out, highest }, { params, highest: undefined });
          if (value === 'latest' || value === 'safe' || value === 'finalized')
            assert.ok(highest !== undefined && highest <= META.head);
          assert.ok(!out.includes('latest') && !out.includes('safe') && !out.includes('finalized'));
        },
      ),
    );
  });
});
