/**
 * The one place domain errors become JSON-RPC errors: each class of the log engine and the chain
 * to geth's code and message; RpcErrors pass through; anything else is left to the caller.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockNotFoundError } from '#src/chain/errors.js';
import {
  DeadlineExceededError,
  RangeBeyondHeadError,
  RangeInvertedError,
  ResultCapError,
  ScanFailedError,
  TooManyParamsError,
  TooManyTopicsError,
} from '#src/logs/errors.js';
import {
  InternalError,
  InvalidParamsError,
  LimitExceededError,
  QueryTimeoutError,
  RpcError,
  toRpcError,
} from '#src/rpc/errors.js';

test('each domain error maps to its JSON-RPC class, code, message and data', () => {
  const cases: [Error, abstract new (...args: never[]) => RpcError, number, string, unknown][] = [
    [new RangeInvertedError(9, 3), InvalidParamsError, -32602, 'invalid block range params', undefined],
    [
      new RangeBeyondHeadError(120, 100),
      InvalidParamsError,
      -32602,
      'block range extends beyond current head block (the head is 0x64)',
      undefined,
    ],
    [new TooManyTopicsError(5, 4), InvalidParamsError, -32602, 'exceed max topics', undefined],
    [new TooManyParamsError(5001, 5000), LimitExceededError, -32005, 'query exceeds 5000 parameters', undefined],
    [
      new ResultCapError(16, 31, 10_000),
      LimitExceededError,
      -32005,
      'query returned more than 10000 results. Try with this block range [0x10, 0x1f].',
      { from: '0x10', to: '0x1f', limit: 10_000 },
    ],
    [
      new ResultCapError(16, 10, 10_000),
      LimitExceededError,
      -32005,
      'query returned more than 10000 results. Try with this block range [0x10, 0x10].',
      { from: '0x10', to: '0x10', limit: 10_000 },
    ],
    [new DeadlineExceededError(), QueryTimeoutError, -32005, 'query timeout exceeded', undefined],
    [new ScanFailedError(), InternalError, -32603, 'internal error', undefined],
    [new BlockNotFoundError(false), RpcError, -32000, 'header not found', undefined],
    [new BlockNotFoundError(true), RpcError, -32000, 'header for hash not found', undefined],
  ];
  for (const [domain, cls, code, message, data] of cases) {
    const rpc = toRpcError(domain);
    assert.ok(rpc instanceof cls, `${domain.constructor.name} → ${cls.name}`);
    assert.equal(rpc.code, code, domain.constructor.name);
    assert.equal(rpc.message, message);
    assert.deepEqual(rpc.data, data);
  }
});

test('an RpcError passes through as it is; anything else is not mapped', () => {
  const rpc = new InvalidParamsError('invalid argument 0: hex string without 0x prefix');
  assert.equal(toRpcError(rpc), rpc);
  assert.equal(toRpcError(new TypeError('boom')), undefined);
  assert.equal(toRpcError('text'), undefined);
  assert.equal(toRpcError(undefined), undefined);
});
