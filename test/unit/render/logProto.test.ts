/**
 * Protobuf log rendering against the JSON path: the same matches of the same raw records, decoded
 * with ethlogd.proto, equal the JSON the eth_getLogs path renders; whole-block rendering (pending,
 * orphaned) equals renderBundleMatches; the marks name each log's end and position.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { bytesToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { loadDefinition, SERVICE_NAME } from '#src/grpc/definition.js';
import { renderBundleMatches } from '#src/logs/blockLogs.js';
import { compileFilter, matchLog } from '#src/logs/filter.js';
import { JsonSink } from '#src/logs/jsonSink.js';
import { prepareRecordQuery, scanRecord } from '#src/logs/recordScan.js';
import { LogProtoWriter, MARK_STRIDE } from '#src/render/logProto.js';
import type { RecordBlock } from '#src/render/recordLog.js';
import { encodeLogs } from '#src/store/logsRecord.js';
import { generateChain, generatePending } from '#src/synth/generator.js';
import { type Obj, wireLog } from '../../grpcWire.js';

const OPTS = { blocks: 40, seed: 'logproto', density: 0.3, pending: true };
const chain: BlockBundle[] = [...generateChain(OPTS)];
const getLogs = (loadDefinition()[SERVICE_NAME] as unknown as ServiceDefinition).GetLogs!;

function decode(bytes: Uint8Array): Obj[] {
  return ((getLogs.responseDeserialize(Buffer.from(bytes)) as Obj).logs ?? []) as Obj[];
}

function recordBlock(b: BlockBundle): RecordBlock {
  return {
    number: b.header.number,
    hash: () => b.header.hash,
    timestamp: () => b.header.timestamp,
    txHash: (i) => b.transactions[i]!.hash,
  };
}

function filters(): { addresses: Uint8Array[]; topics: (Uint8Array[] | null)[] }[] {
  const sample = chain[7]!.logs.find((l) => l.topics.length >= 2)!;
  return [
    { addresses: [], topics: [] },
    { addresses: [sample.address], topics: [] },
    { addresses: [], topics: [[sample.topics[0]!]] },
    { addresses: [], topics: [null, [sample.topics[1]!]] },
    {
      addresses: [sample.address, new Uint8Array(20).fill(9)],
      topics: [[sample.topics[0]!, new Uint8Array(32).fill(1)]],
    },
    { addresses: [new Uint8Array(20).fill(7)], topics: [] },
  ];
}

test('raw records render the same logs as protobuf as they do as JSON, with marks at each log', () => {
  let total = 0;
  for (const f of filters()) {
    const query = prepareRecordQuery(f.addresses, f.topics);
    const sink = new JsonSink();
    const proto = new LogProtoWriter();
    for (const b of chain) {
      const raw = encodeLogs(b.logs);
      assert.equal(scanRecord(raw, query, recordBlock(b), sink), scanRecord(raw, query, recordBlock(b), proto));
    }
    const expected = JSON.parse(`[${Buffer.from(sink.take()).toString('utf8')}]`) as Obj[];
    const { bytes, marks } = proto.take();
    assert.equal(proto.count, expected.length);
    assert.deepEqual(decode(bytes).map(wireLog), expected);
    let start = 0;
    expected.forEach((log, i) => {
      const end = marks[i * MARK_STRIDE]!;
      assert.deepEqual(decode(bytes.subarray(start, end)).map(wireLog), [log], 'each mark ends one whole log');
      assert.equal('0x' + marks[i * MARK_STRIDE + 1]!.toString(16), log.blockNumber);
      assert.equal('0x' + marks[i * MARK_STRIDE + 2]!.toString(16), log.logIndex);
      start = end;
    });
    assert.equal(start, bytes.length);
    total += expected.length;
  }
  assert.ok(total > 100, `${total} logs compared`);
});

test('whole blocks: pending logs have no position, orphaned ones are removed; both equal the JSON path', () => {
  const pending = generatePending(OPTS, chain[chain.length - 1]!.header);
  assert.ok(pending.logs.length > 0);
  for (const [bundle, kind] of [
    [pending, 'pending'],
    [chain[12]!, 'orphan'],
  ] as const) {
    for (const f of filters()) {
      const filter = compileFilter(f);
      const expected = JSON.parse(`[${renderBundleMatches(bundle, filter, kind).join(',')}]`) as Obj[];
      const writer = new LogProtoWriter();
      writer.writeBundle(bundle, (log) => matchLog(filter, log), kind);
      const { bytes, marks } = writer.take();
      assert.deepEqual(
        decode(bytes).map(wireLog),
        expected,
        `${kind} ${bytesToHex(f.addresses[0] ?? new Uint8Array(0))}`,
      );
      for (let i = 0; i < expected.length; i++) assert.equal(marks[i * MARK_STRIDE + 1], bundle.header.number);
    }
  }
});

test('a whole block from a log index on: the logs before it are left out', () => {
  const b = chain[20]!;
  const filter = compileFilter({ addresses: [], topics: [] });
  const writer = new LogProtoWriter();
  writer.writeBundle(b, (log) => matchLog(filter, log), 'orphan', 3);
  const logs = decode(writer.take().bytes).map(wireLog);
  assert.equal(logs.length, b.logs.length - 3);
  assert.equal(logs[0]!.logIndex, '0x3');
});
