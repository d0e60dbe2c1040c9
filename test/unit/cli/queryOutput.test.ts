/**
 * BatchedWriter (src/cli/queryOutput.ts): small writes are batched into one until the producer
 * waits; a full stream makes the producer wait for 'drain'; an abort or a closed stream releases it;
 * text after the stream closed is dropped.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { BatchedWriter, FLUSH_CHARS } from '#src/cli/queryOutput.js';

/** A stream that records each write and holds its completion until `release()`, after which writes complete at once. */
function slowStream(highWaterMark: number): { stream: Writable; writes: string[]; release(): void } {
  const writes: string[] = [];
  const held: (() => void)[] = [];
  let holding = true;
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      writes.push(chunk);
      if (holding) held.push(callback);
      else callback();
    },
  });
  const release = () => {
    holding = false;
    for (const callback of held.splice(0)) callback();
  };
  return { stream, writes, release };
}

describe('BatchedWriter', () => {
  test('writes a burst of small texts as one write once the producer yields', async () => {
    const { stream, writes, release } = slowStream(1 << 20);
    const out = new BatchedWriter(stream, new AbortController().signal);
    for (let i = 0; i < 100; i++) assert.equal(out.write(`line ${i}\n`), undefined);
    assert.equal(writes.length, 0, 'nothing written while the producer runs');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(writes.length, 1);
    assert.equal(writes[0]!.split('\n').length, 101);
    release();
    await out.end();
  });

  test('writes at once past FLUSH_CHARS, and asks the producer to wait while the stream is full', async () => {
    const { stream, writes, release } = slowStream(16);
    const out = new BatchedWriter(stream, new AbortController().signal);
    const big = 'x'.repeat(FLUSH_CHARS);
    const wait = out.write(big);
    assert.equal(writes.length, 1, 'written without waiting for the producer to yield');
    assert.ok(wait instanceof Promise, 'the stream is full: the producer waits');
    assert.equal(out.write('y'), wait, 'still full: the same wait');
    let drained = false;
    void wait.then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(drained, false, 'no drain while the reader holds the write');
    release();
    await wait;
    assert.equal(out.write('z'), undefined, 'drained: no more waiting');
    await out.end();
    assert.equal(writes.join(''), big + 'yz');
  });

  test('an abort releases a producer waiting for a stream that never drains', async () => {
    const { stream } = slowStream(16);
    const controller = new AbortController();
    const out = new BatchedWriter(stream, controller.signal);
    const wait = out.write('x'.repeat(FLUSH_CHARS));
    assert.ok(wait instanceof Promise);
    controller.abort();
    await wait;
    await out.end();
  });

  test('a destroyed stream releases the producer and later text is dropped', async () => {
    const { stream, writes } = slowStream(16);
    stream.on('error', () => {});
    const out = new BatchedWriter(stream, new AbortController().signal);
    const wait = out.write('x'.repeat(FLUSH_CHARS));
    assert.ok(wait instanceof Promise);
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await wait;
    await closed;
    assert.equal(out.write('after'), undefined);
    await out.end();
    assert.equal(writes.length, 1);
  });
});
