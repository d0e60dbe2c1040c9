/**
 * The gRPC front writes its Log messages by hand (src/render/logProto.ts, straight from stored
 * records): protobufjs, an independent implementation, decodes them against ethlogd.proto as
 * GetLogsResponse messages, to the logs eth_getLogs renders, for canonical and pending logs with
 * every topic count and data length.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { BlockBundle } from '#src/chain/types.js';
import { renderBundleMatches } from '#src/logs/blockLogs.js';
import { compileFilter, matchLog } from '#src/logs/filter.js';
import { JsonSink } from '#src/logs/jsonSink.js';
import { prepareRecordQuery, scanRecord } from '#src/logs/recordScan.js';
import { LogProtoWriter } from '#src/render/logProto.js';
import type { RecordBlock } from '#src/render/recordLog.js';
import { encodeLogs } from '#src/store/logsRecord.js';
import { generateChain, generatePending } from '#src/synth/generator.js';
import { type Obj, wireLog } from '../../grpcWire.js';

const PROTO = fileURLToPath(new URL('../../../../src/grpc/ethlogd.proto', import.meta.url));
const GetLogsResponse = protobuf.loadSync(PROTO).lookupType('ethlogd.v1.GetLogsResponse');

const OPTS = { blocks: 25, seed: 'proto-wire', density: 0.3, pending: true };
const chain: BlockBundle[] = [...generateChain(OPTS)];

/** What protobufjs reads from `bytes`, as the loader options of the gRPC front present it. */
function decode(bytes: Uint8Array): Obj[] {
  const message = GetLogsResponse.toObject(GetLogsResponse.decode(bytes), { longs: String, defaults: false });
  return (message.logs ?? []) as Obj[];
}

test('canonical logs written from stored records decode with protobufjs to what eth_getLogs renders', () => {
  const query = prepareRecordQuery([], []);
  const sink = new JsonSink();
  const proto = new LogProtoWriter();
  for (const b of chain) {
    const block: RecordBlock = {
      number: b.header.number,
      hash: () => b.header.hash,
      timestamp: () => b.header.timestamp,
      txHash: (i) => b.transactions[i]!.hash,
    };
    const raw = encodeLogs(b.logs);
    scanRecord(raw, query, block, sink);
    scanRecord(raw, query, block, proto);
  }
  const expected = JSON.parse(`[${Buffer.from(sink.take()).toString('utf8')}]`) as Obj[];
  const decoded = decode(proto.take().bytes).map(wireLog);
  assert.ok(decoded.length > 200, `${decoded.length} logs`);
  assert.deepEqual(decoded, expected);
  assert.ok(
    expected.some((l) => (l.topics as unknown[]).length === 0) &&
      expected.some((l) => (l.topics as unknown[]).length === 4),
    'anonymous logs and four topics covered',
  );
});

test(
  'pending logs (unset positions) and orphaned ones ' + '(removed) decode with protobufjs as eth_getLogs renders them',
  () => {
    const pending = generatePending(OPTS, chain.at(-1)!.header);
    const all = compileFilter({ addresses: [], topics: [] });
    for (const [bundle, kind] of [
      [pending, 'pending'],
      [chain[9]!, 'orphan'],
    ] as const) {
      const proto = new LogProtoWriter();
      proto.writeBundle(bundle, (log) => matchLog(all, log), kind);
      const decoded = decode(proto.take().bytes).map(wireLog);
      assert.ok(decoded.length > 0, kind);
      assert.deepEqual(
        decoded,
        renderBundleMatches(bundle, all, kind).map((text) => JSON.parse(text) as Obj),
        kind,
      );
    }
  },
);
