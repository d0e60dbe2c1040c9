/**
 * The protobuf log decoder against the writer it pairs with: whatever LogProtoWriter writes (raw
 * records, pending and orphaned blocks) decodes to the same logs as the JSON path renders, rendered
 * through the library's toRpcLog; unknown fields are skipped; malformed bytes are refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toRpcLog } from '#src/api/wire.js';
import type { BlockBundle } from '#src/chain/types.js';
import { renderBundleMatches } from '#src/logs/blockLogs.js';
import { compileFilter, matchLog } from '#src/logs/filter.js';
import { JsonSink } from '#src/logs/jsonSink.js';
import { prepareRecordQuery, scanRecord } from '#src/logs/recordScan.js';
import { LogProtoWriter } from '#src/render/logProto.js';
import { decodeLogMessages, LogDecodeError } from '#src/render/logProtoDecode.js';
import type { RecordBlock } from '#src/render/recordLog.js';
import { encodeLogs } from '#src/store/logsRecord.js';
import { generateChain, generatePending } from '#src/synth/generator.js';

const OPTS = { blocks: 30, seed: 'logdecode', density: 0.3, pending: true };
const chain: BlockBundle[] = [...generateChain(OPTS)];

function recordBlock(b: BlockBundle): RecordBlock {
  return {
    number: b.header.number,
    hash: () => b.header.hash,
    timestamp: () => b.header.timestamp,
    txHash: (i) => b.transactions[i]!.hash,
  };
}

test('canonical logs decode to what eth_getLogs renders', () => {
  const query = prepareRecordQuery([], []);
  const sink = new JsonSink();
  const proto = new LogProtoWriter();
  for (const b of chain) {
    const raw = encodeLogs(b.logs);
    scanRecord(raw, query, recordBlock(b), sink);
    scanRecord(raw, query, recordBlock(b), proto);
  }
  const expected = JSON.parse(`[${Buffer.from(sink.take()).toString('utf8')}]`) as unknown[];
  const decoded = decodeLogMessages(proto.take().bytes);
  assert.ok(decoded.length > 200, `${decoded.length} logs`);
  assert.deepEqual(decoded.map(toRpcLog), expected);
  assert.ok(
    decoded.some((l) => l.data.length === 0) && decoded.some((l) => l.topics.length === 0),
    'empty data and anonymous logs covered',
  );
});

test('pending logs decode without positions, orphaned ones as removed', () => {
  const pending = generatePending(OPTS, chain[chain.length - 1]!.header);
  const filter = compileFilter({ addresses: [], topics: [] });
  for (const [bundle, kind] of [
    [pending, 'pending'],
    [chain[9]!, 'orphan'],
  ] as const) {
    const writer = new LogProtoWriter();
    writer.writeBundle(bundle, (log) => matchLog(filter, log), kind);
    const decoded = decodeLogMessages(writer.take().bytes);
    const expected = JSON.parse(`[${renderBundleMatches(bundle, filter, kind).join(',')}]`) as unknown[];
    assert.deepEqual(decoded.map(toRpcLog), expected, kind);
    assert.ok(decoded.length > 0);
    if (kind === 'pending')
      assert.ok(decoded.every((l) => l.blockNumber === null && l.logIndex === null && !l.removed));
    else assert.ok(decoded.every((l) => l.removed && l.blockNumber === bundle.header.number));
  }
});

test('unknown fields are skipped; an empty run decodes to no logs', () => {
  assert.deepEqual(decodeLogMessages(new Uint8Array(0)), []);
  const log = Uint8Array.of(0x1a, 20, ...new Uint8Array(20).fill(0xab), 0x58, 0x05, 0x62, 0x02, 0x01, 0x02);
  const decoded = decodeLogMessages(Uint8Array.of(0x0a, log.length, ...log, 0x10, 0x07));
  assert.equal(decoded.length, 1);
  assert.deepEqual(decoded[0]!.address, new Uint8Array(20).fill(0xab));
  assert.equal(decoded[0]!.blockNumber, null);
});

test('malformed bytes are refused with LogDecodeError, never a hang', () => {
  const writer = new LogProtoWriter();
  writer.writeBundle(chain[5]!, () => true, 'orphan');
  const bytes = writer.take().bytes;
  assert.ok(bytes.length > 10);
  for (const cut of [1, 2, bytes.length - 1])
    assert.throws(() => decodeLogMessages(bytes.subarray(0, cut)), LogDecodeError, `cut at ${cut}`);
  assert.throws(
    () => decodeLogMessages(Uint8Array.of(0x0a, 0x02, 0x0b, 0x00)),
    LogDecodeError,
    'wire type 3 is not supported',
  );
  assert.throws(() => decodeLogMessages(Uint8Array.of(0x0a, 0x02, 0x08, 0x80)), LogDecodeError, 'truncated varint');
  assert.throws(
    () => decodeLogMessages(Uint8Array.of(0x0a, 0x02, 0x1d, 0x00)),
    LogDecodeError,
    'address with the wrong wire type',
  );
});
