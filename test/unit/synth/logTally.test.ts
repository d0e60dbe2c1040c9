/**
 * LogTally: counts by array while adding, merged by value when read; the busiest contracts and
 * their commonest topic0s, most first and ties by value; anonymous logs count for their contract only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '#src/chain/hex.js';
import type { Log } from '#src/chain/types.js';
import { LogTally } from '#src/synth/logTally.js';

const address = (byte: number) => new Uint8Array(20).fill(byte);
const topic = (byte: number) => new Uint8Array(32).fill(byte);
const log = (a: Uint8Array, ...topics: Uint8Array[]): Log => ({
  address: a,
  topics,
  data: new Uint8Array(0),
  txIndex: 0,
});

test('the busiest contracts and topic0s, merged across arrays of equal bytes, ties by value', () => {
  const tally = new LogTally();
  const [a, b, c] = [address(0xaa), address(0xbb), address(0xcc)];
  const [t1, t2, t3] = [topic(1), topic(2), topic(3)];
  tally.add([log(a, t1), log(a, t1), log(address(0xaa), topic(2)), log(a, t2), log(a)]);
  tally.add([log(b, t3), log(b, t3), log(c, t1), log(c, t1), log(address(0xbb))]);
  const busiest = tally.busiest(2, 2);
  assert.deepEqual(
    busiest.map((x) => [bytesToHex(x.address), x.logs, x.topics.map((t) => [bytesToHex(t.topic0), t.logs])]),
    [
      [
        bytesToHex(a),
        5,
        [
          [bytesToHex(t1), 2],
          [bytesToHex(t2), 2],
        ],
      ],
      [bytesToHex(b), 3, [[bytesToHex(t3), 2]]],
    ],
  );
  assert.deepEqual(new LogTally().busiest(3, 2), []);
});

test('counts handed over from other tallies merge with the ones added here', () => {
  const [a, b] = [address(0xaa), address(0xbb)];
  const [t1, t2] = [topic(1), topic(2)];
  const here = new LogTally();
  here.add([log(a, t1), log(b, t2)]);
  const there = new LogTally();
  there.add([log(address(0xbb), topic(2)), log(b, t2), log(b, t1)]);
  here.addCounts(there.counts());
  assert.deepEqual(
    here.busiest(2, 2).map((x) => [bytesToHex(x.address), x.logs, x.topics.map((t) => [bytesToHex(t.topic0), t.logs])]),
    [
      [
        bytesToHex(b),
        4,
        [
          [bytesToHex(t2), 3],
          [bytesToHex(t1), 1],
        ],
      ],
      [bytesToHex(a), 1, [[bytesToHex(t1), 1]]],
    ],
  );
});
