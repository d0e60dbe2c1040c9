import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Log } from '#src/chain/types.js';
import { decodeLogs, encodeLogs, logAddressTable } from '#src/store/logsRecord.js';
import { filled, Rng } from './fixtures.js';

/** The record's address table (logAddressTable), as its addresses. */
function decodeLogAddresses(record: Uint8Array): Uint8Array[] {
  const table = logAddressTable(record);
  return Array.from({ length: table.length / 20 }, (_, i) => new Uint8Array(table.subarray(i * 20, i * 20 + 20)));
}

function roundTrip(logs: Log[]): void {
  const encoded = encodeLogs(logs);
  assert.deepStrictEqual(decodeLogs(encoded), logs);
  const distinct = new Map(logs.map((l) => [Buffer.from(l.address).toString('hex'), l.address]));
  assert.deepStrictEqual(decodeLogAddresses(encoded), [...distinct.values()].sort(Buffer.compare));
}

/** A 20-byte address left-padded to a 32-byte topic, as indexed `address` params are. */
function addressTopic(address: Uint8Array): Uint8Array {
  const t = new Uint8Array(32);
  t.set(address, 12);
  return t;
}

function word(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.padStart(64, '0'), 'hex'));
}

test('no logs', () => {
  const encoded = encodeLogs([]);
  assert.deepStrictEqual(decodeLogs(encoded), []);
  assert.deepStrictEqual(decodeLogAddresses(encoded), []);
});

test('logs with 0, 1, 2, 3 and 4 topics', () => {
  const rng = new Rng(1);
  const address = rng.bytes(20);
  for (let n = 0; n <= 4; n++) {
    roundTrip([{ address, topics: Array.from({ length: n }, () => rng.bytes(32)), data: rng.bytes(32), txIndex: n }]);
  }
  roundTrip(
    Array.from({ length: 5 }, (_, n) => ({
      address,
      topics: Array.from({ length: n }, () => rng.bytes(32)),
      data: new Uint8Array(0),
      txIndex: 0,
    })),
  );
});

test('topics with leading zeros: padded addresses, small numbers, all zero, all 0xff', () => {
  const rng = new Rng(2);
  const transfer = word('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
  const from = addressTopic(rng.bytes(20));
  const to = addressTopic(Uint8Array.of(0, 0, 0, ...rng.bytes(17))); // extra leading zeros inside the address
  const zeroAddressTopic = addressTopic(new Uint8Array(20));
  const logs: Log[] = [
    { address: rng.bytes(20), topics: [transfer, from, to], data: word('de0b6b3a7640000'), txIndex: 0 },
    {
      address: rng.bytes(20),
      topics: [transfer, zeroAddressTopic, from, word('1')],
      data: new Uint8Array(0),
      txIndex: 1,
    },
    {
      address: rng.bytes(20),
      topics: [new Uint8Array(32), filled(32, 0xff), word('100')],
      data: new Uint8Array(0),
      txIndex: 2,
    },
    {
      address: rng.bytes(20),
      topics: [Uint8Array.of(0x80, ...new Uint8Array(31)), Uint8Array.of(...new Uint8Array(31), 0x01)],
      data: new Uint8Array(0),
      txIndex: 2,
    },
  ];
  roundTrip(logs);
  const decoded = decodeLogs(encodeLogs(logs));
  for (const l of decoded) for (const t of l.topics) assert.equal(t.length, 32);
});

test('data: empty, odd lengths, non-multiples of 32', () => {
  const rng = new Rng(3);
  const address = rng.bytes(20);
  for (const length of [0, 1, 2, 3, 5, 19, 31, 33, 63, 65, 95, 100, 1001]) {
    roundTrip([{ address, topics: [], data: rng.bytes(length), txIndex: 0 }]);
    roundTrip([{ address, topics: [], data: new Uint8Array(length), txIndex: 0 }]);
    roundTrip([{ address, topics: [], data: filled(length, 0xff), txIndex: 0 }]);
  }
});

test('data: multiples of 32 with zero and non-zero leading bytes', () => {
  const rng = new Rng(4);
  const address = rng.bytes(20);
  const words = [
    filled(32, 0xff),
    new Uint8Array(32),
    word('1'),
    word('ff'),
    word('0100'),
    Uint8Array.of(0x80, ...new Uint8Array(31)),
    Uint8Array.of(0, 0x01, ...new Uint8Array(30)),
    Uint8Array.of(...new Uint8Array(31), 0x00),
    rng.bytes(32),
    addressTopic(rng.bytes(20)),
  ];
  for (const w of words) roundTrip([{ address, topics: [], data: w, txIndex: 0 }]);
  const concat = (...ws: Uint8Array[]) => new Uint8Array(Buffer.concat(ws));
  roundTrip([{ address, topics: [], data: concat(...words), txIndex: 0 }]);
  roundTrip([
    { address, topics: [], data: concat(new Uint8Array(32), new Uint8Array(32), new Uint8Array(32)), txIndex: 0 },
  ]);
  roundTrip([
    { address, topics: [], data: concat(filled(32, 0xff), new Uint8Array(32), filled(32, 0xff)), txIndex: 0 },
  ]);
  // A typical ABI-encoded dynamic payload: offset, length, then data padded to a word.
  const payload = concat(word('20'), word('5'), Uint8Array.of(0x68, 0x65, 0x6c, 0x6c, 0x6f, ...new Uint8Array(27)));
  roundTrip([{ address, topics: [], data: payload, txIndex: 0 }]);
});

test('zero-heavy word data is stored compactly', () => {
  const address = new Uint8Array(20);
  const data = new Uint8Array(32 * 10);
  const encoded = encodeLogs([{ address, topics: [], data, txIndex: 0 }]);
  assert.ok(encoded.length < 60, `encoded ${encoded.length} bytes for 320 zero bytes`);
});

test('repeated addresses and topics share dictionary entries; the address table is sorted and distinct', () => {
  const rng = new Rng(5);
  const a = [filled(20, 0xff), rng.bytes(20), new Uint8Array(20), filled(20, 0x01)];
  const t = [rng.bytes(32), new Uint8Array(32), word('2a')];
  const logs: Log[] = [];
  for (let i = 0; i < 40; i++) {
    logs.push({
      address: a[i % a.length]!,
      topics: [t[i % 3]!, t[(i + 1) % 3]!, t[i % 3]!],
      data: rng.bytes(i % 7),
      txIndex: Math.floor(i / 3),
    });
  }
  roundTrip(logs);
  const encoded = encodeLogs(logs);
  assert.deepStrictEqual(decodeLogAddresses(encoded), [...a].sort(Buffer.compare));
  // Equal-content but distinct array objects dedupe too.
  const copies: Log[] = [
    { address: Uint8Array.from(a[1]!), topics: [Uint8Array.from(t[0]!)], data: new Uint8Array(0), txIndex: 0 },
    { address: Uint8Array.from(a[1]!), topics: [Uint8Array.from(t[0]!)], data: new Uint8Array(0), txIndex: 0 },
  ];
  roundTrip(copies);
  assert.equal(decodeLogAddresses(encodeLogs(copies)).length, 1);
  const single = encodeLogs(copies.slice(0, 1));
  assert.ok(
    encodeLogs(copies).length - single.length < 10,
    'a repeated log should not repeat its address or topic bytes',
  );
});

test('large tx indexes and many logs', () => {
  const rng = new Rng(6);
  const addresses = Array.from({ length: 300 }, () => rng.bytes(20));
  const topics = Array.from({ length: 300 }, () => rng.bytes(32));
  const logs: Log[] = Array.from({ length: 2000 }, (_, i) => ({
    address: rng.pick(addresses),
    topics: Array.from({ length: rng.int(5) }, () => rng.pick(topics)),
    data: rng.bytes(rng.int(200)),
    txIndex: i * 1000,
  }));
  roundTrip(logs);
});

test('logs whose subarray views sit inside larger buffers encode by content', () => {
  const backing = new Uint8Array(200).map((_, i) => i);
  const log: Log = {
    address: backing.subarray(10, 30),
    topics: [backing.subarray(40, 72)],
    data: backing.subarray(100, 164),
    txIndex: 3,
  };
  const decoded = decodeLogs(encodeLogs([log]));
  assert.deepStrictEqual(decoded, [
    {
      address: Uint8Array.from(backing.subarray(10, 30)),
      topics: [Uint8Array.from(backing.subarray(40, 72))],
      data: Uint8Array.from(backing.subarray(100, 164)),
      txIndex: 3,
    },
  ]);
});

function randomWord(rng: Rng): Uint8Array {
  switch (rng.int(6)) {
    case 0:
      return new Uint8Array(32);
    case 1:
      return filled(32, 0xff);
    case 2: {
      const w = new Uint8Array(32);
      w.set(rng.bytes(rng.int(33)), 0);
      return w; // leading non-zero bytes, trailing zeros
    }
    case 3: {
      const n = rng.int(33);
      const w = new Uint8Array(32);
      w.set(rng.bytes(n), 32 - n);
      return w; // leading zeros
    }
    default:
      return rng.bytes(32);
  }
}

function randomData(rng: Rng): Uint8Array {
  if (rng.chance(0.5)) {
    const words = rng.int(6);
    return new Uint8Array(Buffer.concat(Array.from({ length: words }, () => randomWord(rng))));
  }
  const length = rng.int(130);
  return rng.chance(0.3) ? new Uint8Array(length) : rng.bytes(length);
}

test('seeded random property: encode/decode round trips over thousands of blocks', () => {
  const rng = new Rng(0xc0ffee);
  let totalLogs = 0;
  for (let block = 0; block < 3000; block++) {
    const addressPool = Array.from({ length: 1 + rng.int(6) }, () =>
      rng.chance(0.2) ? Uint8Array.of(0, 0, ...rng.bytes(18)) : rng.bytes(20),
    );
    if (rng.chance(0.1)) addressPool.push(new Uint8Array(20));
    const topicPool = Array.from({ length: 1 + rng.int(8) }, () => randomWord(rng));
    const count = rng.chance(0.1) ? 0 : rng.int(25);
    let txIndex = 0;
    const logs: Log[] = [];
    for (let i = 0; i < count; i++) {
      if (rng.chance(0.4)) txIndex += 1 + rng.int(3);
      logs.push({
        address: Uint8Array.from(rng.pick(addressPool)),
        topics: Array.from({ length: rng.int(5) }, () => Uint8Array.from(rng.pick(topicPool))),
        data: randomData(rng),
        txIndex,
      });
    }
    totalLogs += logs.length;
    roundTrip(logs);
  }
  assert.ok(totalLogs > 10_000);
});
