/**
 * scanRecord, the raw-record matcher both the inline path and the pool's workers run, against an
 * independent matcher over the decoded logs: for random blocks of logs (addresses and topics drawn
 * from small pools, so filters hit and miss, topics with leading zeros, data in words and not) and
 * random filters (address lists, wildcard and alternative topic positions, more positions than a
 * log has topics), the matched log indexes and each match's fields are the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Log } from '#src/chain/types.js';
import { prepareRecordQuery, scanRecord } from '#src/logs/recordScan.js';
import type { RecordBlock, RecordLog, RecordRenderer } from '#src/render/recordLog.js';
import { encodeLogs } from '#src/store/logsRecord.js';

/** A 20- or 32-byte value whose last byte is `tag` and whose first bytes may be zeros. */
function value(length: number, tag: number, zeros: number): Uint8Array {
  const out = new Uint8Array(length).fill(0xab);
  out.fill(0, 0, Math.min(zeros, length - 1));
  out[length - 1] = tag;
  return out;
}

const ADDRESSES = [0, 1, 2, 3].map((i) => value(20, i, i * 5));
const TOPICS = [0, 1, 2, 3, 4, 5].map((i) => value(32, i, i * 6));

const logArb: fc.Arbitrary<Log> = fc.record({
  address: fc.constantFrom(...ADDRESSES),
  topics: fc.array(fc.constantFrom(...TOPICS), { maxLength: 4 }),
  data: fc.oneof(
    fc.uint8Array({ maxLength: 40 }),
    fc.integer({ min: 1, max: 3 }).map((words) => value(32 * words, 7, 31)),
  ),
  txIndex: fc.nat({ max: 5 }),
});

/**
 * A filter as eth_getLogs takes it, after parsing: any-of addresses (empty: any), per position null or alternatives.
 */
interface Filter {
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

const filterArb: fc.Arbitrary<Filter> = fc.record({
  addresses: fc.uniqueArray(fc.constantFrom(...ADDRESSES), { maxLength: 3 }),
  topics: fc.array(
    fc.option(fc.uniqueArray(fc.constantFrom(...TOPICS), { minLength: 1, maxLength: 3 }), { nil: null }),
    { maxLength: 4 },
  ),
});

const equal = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/**
 * The reference: a log matches when its address is listed (or none is) and each position is a wildcard or one of its
 * alternatives.
 */
function matches(log: Log, f: Filter): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => equal(a, log.address))) return false;
  if (f.topics.length > log.topics.length) return false;
  return f.topics.every(
    (alternatives, i) => alternatives === null || alternatives.some((t) => equal(t, log.topics[i]!)),
  );
}

/** What a matched log's offsets say, read back into values. */
interface Seen {
  logIndex: number;
  txIndex: number;
  address: string;
  topics: string[];
}

/** A renderer that reads each match's fields from the record by its offsets. */
class Collect implements RecordRenderer {
  readonly seen: Seen[] = [];

  render(raw: Buffer, log: RecordLog): void {
    const topics = Array.from(log.topicOffsets.subarray(0, log.topicCount), (off) => {
      const len = raw[off]!;
      return Buffer.concat([Buffer.alloc(32 - len), raw.subarray(off + 1, off + 1 + len)]).toString('hex');
    });
    this.seen.push({
      logIndex: log.logIndex,
      txIndex: log.txIndex,
      address: raw.subarray(log.addressOffset, log.addressOffset + 20).toString('hex'),
      topics,
    });
  }
}

/** A block context that renders nothing of its own. */
const BLOCK: RecordBlock = {
  number: 1,
  hash: () => new Uint8Array(32),
  timestamp: () => 0,
  txHash: () => new Uint8Array(32),
};

test('scanRecord matches exactly the logs an independent matcher over the decoded logs matches', () => {
  fc.assert(
    fc.property(fc.array(logArb, { maxLength: 30 }), filterArb, (logs, filter) => {
      const out = new Collect();
      const count = scanRecord(encodeLogs(logs), prepareRecordQuery(filter.addresses, filter.topics), BLOCK, out);
      const expected = logs.flatMap((log, logIndex) =>
        matches(log, filter)
          ? [
              {
                logIndex,
                txIndex: log.txIndex,
                address: Buffer.from(log.address).toString('hex'),
                topics: log.topics.map((t) => Buffer.from(t).toString('hex')),
              },
            ]
          : [],
      );
      assert.equal(count, expected.length);
      assert.deepEqual(out.seen, expected);
    }),
    { numRuns: 2_000, seed: 13 },
  );
});

test('table: address lists, wildcards, alternatives and too many positions', () => {
  const [a0, a1, a2] = ADDRESSES as [Uint8Array, Uint8Array, Uint8Array];
  const [t0, t1, t2] = TOPICS as [Uint8Array, Uint8Array, Uint8Array];
  const logs: Log[] = [
    { address: a0, topics: [t0, t1], data: new Uint8Array(), txIndex: 0 },
    { address: a1, topics: [t0], data: new Uint8Array(64), txIndex: 0 },
    { address: a0, topics: [], data: new Uint8Array([1]), txIndex: 1 },
    { address: a1, topics: [t2, t1, t0], data: new Uint8Array(), txIndex: 2 },
  ];
  const cases: [string, Filter, number[]][] = [
    ['no condition: every log', { addresses: [], topics: [] }, [0, 1, 2, 3]],
    ['one address', { addresses: [a0], topics: [] }, [0, 2]],
    ['an absent address: nothing', { addresses: [a2], topics: [] }, []],
    ['address alternatives', { addresses: [a2, a1], topics: [] }, [1, 3]],
    ['topic0', { addresses: [], topics: [[t0]] }, [0, 1]],
    ['topic0 alternatives', { addresses: [], topics: [[t2, t0]] }, [0, 1, 3]],
    ['wildcard then topic1', { addresses: [], topics: [null, [t1]] }, [0, 3]],
    ['a wildcard position needs a topic there', { addresses: [], topics: [null, null] }, [0, 3]],
    ['more positions than any log has', { addresses: [], topics: [null, null, null, null] }, []],
    ['address and topic together', { addresses: [a1], topics: [[t0]] }, [1]],
  ];
  for (const [name, filter, expected] of cases) {
    const out = new Collect();
    scanRecord(encodeLogs(logs), prepareRecordQuery(filter.addresses, filter.topics), BLOCK, out);
    assert.deepEqual(
      out.seen.map((s) => s.logIndex),
      expected,
      name,
    );
  }
});
