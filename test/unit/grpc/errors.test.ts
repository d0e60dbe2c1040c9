/**
 * Every JSON-RPC error class to its gRPC status, with the JSON-RPC answer in the trailers; anything
 * that is not an RpcError is reported and answered as INTERNAL with -32603.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { CODE_TRAILER, DATA_TRAILER, MESSAGE_TRAILER, toGrpcFailure } from '#src/grpc/errors.js';
import { DeadlineExceededError, ResultCapError } from '#src/logs/errors.js';
import {
  AuthError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  QueryTimeoutError,
  RpcError,
  toRpcError,
} from '#src/rpc/errors.js';

const never = (message: string) => assert.fail(`unexpected report: ${message}`);

test('each error class maps to its status and carries its JSON-RPC code and message', () => {
  const cases: [RpcError, status][] = [
    [new AuthError('API key revoked'), status.UNAUTHENTICATED],
    [new InvalidParamsError('invalid argument 0 (hash): hex string has length 62, want 64'), status.INVALID_ARGUMENT],
    [new InvalidRequestError('invalid request'), status.INVALID_ARGUMENT],
    [new LimitExceededError('query exceeds 5000 parameters'), status.RESOURCE_EXHAUSTED],
    [toRpcError(new ResultCapError(0, 9, 10_000))!, status.RESOURCE_EXHAUSTED],
    [new QueryTimeoutError(), status.DEADLINE_EXCEEDED],
    [new RpcError(-32000, 'header not found'), status.NOT_FOUND],
    [new RpcError(-32000, 'header for hash not found'), status.NOT_FOUND],
    [new InternalError(), status.INTERNAL],
    [new RpcError(-32000, 'the store holds no blocks yet'), status.UNKNOWN],
  ];
  for (const [error, code] of cases) {
    const failure = toGrpcFailure(error, never);
    assert.equal(failure.code, code, error.message);
    assert.equal(failure.details, error.message);
    assert.deepEqual(failure.metadata.get(CODE_TRAILER), [String(error.code)]);
    assert.deepEqual(failure.metadata.get(MESSAGE_TRAILER), [error.message]);
    const data = failure.metadata.get(DATA_TRAILER);
    assert.deepEqual(data.length === 0 ? undefined : JSON.parse(data[0] as string), error.data);
  }
});

test('the result cap error carries its suggested range as JSON data', () => {
  const failure = toGrpcFailure(new ResultCapError(16, 31, 10_000), never);
  assert.deepEqual(JSON.parse(failure.metadata.get(DATA_TRAILER)[0] as string), {
    from: '0x10',
    to: '0x1f',
    limit: 10_000,
  });
});

test(
  "the log engine's errors map through their JSON-RPC answer: " +
    'a deadline to DEADLINE_EXCEEDED, the cap to RESOURCE_EXHAUSTED',
  () => {
    assert.equal(toGrpcFailure(new DeadlineExceededError(), never).code, status.DEADLINE_EXCEEDED);
    const cap = toGrpcFailure(new ResultCapError(0, 9, 10_000), never);
    assert.equal(cap.code, status.RESOURCE_EXHAUSTED);
    assert.deepEqual(cap.metadata.get(CODE_TRAILER), ['-32005']);
  },
);

test('an unexpected failure is reported and answered as INTERNAL -32603 without its details', () => {
  const reports: unknown[] = [];
  const failure = toGrpcFailure(new TypeError('secret detail'), (_message, error) => reports.push(error));
  assert.equal(reports.length, 1);
  assert.equal(failure.code, status.INTERNAL);
  assert.equal(failure.details, 'internal error');
  assert.deepEqual(failure.metadata.get(CODE_TRAILER), ['-32603']);
});

test('trailer values stay printable ASCII', () => {
  const failure = toGrpcFailure(new InvalidParamsError('bad \u00e9 value\n'), never);
  assert.deepEqual(failure.metadata.get(MESSAGE_TRAILER), ['bad ? value?']);
  assert.equal(failure.details, 'bad \u00e9 value\n');
});
