/**
 * What crosses between the main thread and an HTTP thread: errors rebuilt as the same RpcError
 * class with the same JSON-RPC answer after a structured clone, other failures as plain Errors, and
 * log chunks posted with their buffers transferred (views into larger buffers copied out first).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { fromWireError, PendingReplies, toWireError, transferableChunks } from '#src/http/threadProtocol.js';
import { ResultCapError } from '#src/logs/errors.js';
import {
  InternalError,
  InvalidParamsError,
  LimitExceededError,
  MethodNotFoundError,
  QueryTimeoutError,
  RateLimitedError,
  RpcError,
  toRpcError,
} from '#src/rpc/errors.js';

/** `error` through the wire form and a structured clone, as a MessagePort carries it. */
const roundTrip = (error: unknown) => fromWireError(structuredClone(toWireError(error)));

test('RpcErrors come back as their own class with the same code, message, data and fields', () => {
  const errors: RpcError[] = [
    toRpcError(new ResultCapError(0, 41, 10_000))!,
    new QueryTimeoutError(),
    new InternalError(),
    new InvalidParamsError('invalid argument 0: exceed max topics'),
    new MethodNotFoundError('eth_nothing'),
    new LimitExceededError('query exceeds 5000 parameters'),
    new RateLimitedError(250, 4),
  ];
  for (const error of errors) {
    const back = roundTrip(error);
    assert.equal(back.constructor, error.constructor, error.constructor.name);
    assert.ok(back instanceof RpcError);
    assert.equal(JSON.stringify(back), JSON.stringify(error), `${error.constructor.name} answers the same`);
    assert.equal(back.message, error.message);
  }
  assert.equal((roundTrip(new RateLimitedError(250, 4)) as RateLimitedError).retryAfterMs, 250);
});

test('other failures come back as plain Errors with their message and stack; non-errors as text', () => {
  const failure = new TypeError('boom');
  const back = roundTrip(failure);
  assert.ok(!(back instanceof RpcError));
  assert.equal(back.message, 'boom');
  assert.equal(back.stack, failure.stack);
  assert.equal(roundTrip('just text').message, 'just text');
});

test('chunks move their whole buffers and copy views out of larger ones; text is kept', async () => {
  const whole = new Uint8Array([1, 2, 3]);
  const large = new Uint8Array(1024).fill(7);
  const view = large.subarray(10, 14);
  const { chunks, transfer } = transferableChunks(['a,b', whole, view, whole]);
  assert.deepEqual(transfer.length, 3);
  assert.equal(chunks[1], whole, 'the whole buffer goes as it is');
  assert.notEqual(chunks[2], view, 'the view is copied out');
  assert.equal(
    (chunks[3] as Uint8Array).buffer === whole.buffer,
    false,
    'a buffer is transferred once; a second chunk on it is copied',
  );
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<unknown>((resolve) => port2.once('message', resolve));
  port1.postMessage(chunks, transfer);
  assert.deepEqual(await received, [
    'a,b',
    new Uint8Array([1, 2, 3]),
    new Uint8Array([7, 7, 7, 7]),
    new Uint8Array([1, 2, 3]),
  ]);
  assert.equal(whole.byteLength, 0, 'moved, not copied');
  assert.equal(large.byteLength, 1024, 'the larger buffer stays');
  port1.close();
});

test('replies settle their own request; a gone peer fails the rest', async () => {
  const replies = new PendingReplies<string>();
  const sent: number[] = [];
  const first = replies.ask((id) => sent.push(id));
  const second = replies.ask((id) => sent.push(id));
  replies.settle(sent[1]!, 'second');
  replies.settle(sent[0]!, undefined, new Error('failed'));
  replies.settle(99, 'nobody asked');
  assert.equal(await second, 'second');
  await assert.rejects(first, /failed/);
  const third = replies.ask(() => undefined);
  replies.failAll(new Error('gone'));
  await assert.rejects(third, /gone/);
});
