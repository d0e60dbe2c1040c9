/**
 * The X-Ethlogd-Min-Head floor: header values parsed table-driven and as a property (every decimal
 * block number up to 2^53-1 round-trips, anything else is absent or refused), and the waiters settled
 * by the head they read, by their deadline, and by close.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { HeadWaiters, parseMinHead } from '#src/http/minHead.js';

test('parseMinHead: absent, decimal block numbers, and everything else refused', () => {
  const cases: [string, number | undefined | null][] = [
    ['', undefined],
    ['0', 0],
    ['17', 17],
    ['007', 7],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['9007199254740992', null],
    ['12345678901234567', null],
    ['0x10', null],
    ['-1', null],
    ['1.5', null],
    [' 1', null],
    ['1e3', null],
    ['abc', null],
  ];
  for (const [text, expected] of cases) assert.equal(parseMinHead(text), expected, JSON.stringify(text));
});

test('parseMinHead: every safe block number round-trips through its decimal text', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => parseMinHead(String(n)) === n));
});

test('HeadWaiters: reached now, reached later by the head, run out at the deadline, settled by close', async () => {
  let head: number | undefined;
  let reads = 0;
  let onRead: (() => void) | undefined;
  const waiters = new HeadWaiters(
    () => {
      reads++;
      onRead?.();
      return head;
    },
    60_000,
    1,
  );
  assert.equal(waiters.reached(0), false, 'no block: no floor reached');
  head = 10;
  assert.equal(waiters.reached(10), true);
  assert.equal(waiters.reached(11), false);

  const later = new Promise<boolean>((resolve) => waiters.wait(12, resolve));
  const polled = new Promise<void>((resolve) => (onRead = resolve));
  await polled;
  head = 12;
  assert.equal(await later, true, 'settled once the head reaches the floor');

  const closed = new Promise<boolean>((resolve) => waiters.wait(99, resolve));
  waiters.close();
  assert.equal(await closed, false, 'close settles the waiting as not reached');
  assert.ok(reads > 3);

  const short = new HeadWaiters(() => head, 0, 1);
  assert.equal(await new Promise<boolean>((resolve) => short.wait(13, resolve)), false, 'the wait runs out');
});

test('HeadWaiters: a head that cannot be read reaches no floor, and the wait runs out without throwing', async () => {
  const waiters = new HeadWaiters(
    () => {
      throw new Error('store closed');
    },
    0,
    1,
  );
  assert.equal(await new Promise<boolean>((resolve) => waiters.wait(1, resolve)), false);
});
