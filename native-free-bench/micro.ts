/**
 * Micro-benchmarks (benchmark.js) of the hot paths, on real blocks of a generated store: bloom
 * computation, bit-sliced candidate selection, hex and key codecs, filter matching, and JSON
 * rendering of blocks, transactions and 10,000 logs.
 */
import Benchmark from 'benchmark';
import { logsBloom } from '#src/chain/bloom.js';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { filterBits, segmentCandidates } from '#src/logs/candidates.js';
import { compileFilter, matchLog } from '#src/logs/filter.js';
import { JsonSink } from '#src/logs/jsonSink.js';
import { prepareRecordQuery, scanRecord } from '#src/logs/recordScan.js';
import { formatBlock, formatTransaction } from '#src/render/format.js';
import type { RecordBlock } from '#src/render/recordLog.js';
import { encodeBlockKey, encodeTxKey } from '#src/store/keys.js';
import { decodeLogs } from '#src/store/logsRecord.js';
import { StoreReader } from '#src/store/reader.js';
import { ADDRESS_INDEX_FLAG, closeStore, openStore } from '#src/store/schema.js';
import { describeDataset } from '#src/synth/generator.js';
import type { Row } from './report.js';

/** Runs the micro-benchmarks for about `maxTime` seconds each; one row per benchmark (ops/s). */
export async function measureMicro(dataDir: string, seed: string, maxTime: number): Promise<Row[]> {
  const store = openStore(dataDir, { readOnly: true });
  const reader = new StoreReader(store);
  try {
    const head = reader.meta()!.head;
    const n = Math.floor(head / 2);
    const header = reader.header(n)!;
    const txs = reader.transactions(n);
    const logs = reader.logs(n);
    const raw = store.logs.getBinary(encodeBlockKey(n))!;
    const d = describeDataset({ blocks: head + 1, seed, density: 1 });
    const address = logs[0]!.address;
    const at = { hash: header.hash, number: n, timestamp: header.timestamp, baseFeePerGas: header.baseFeePerGas };
    const block: RecordBlock = {
      number: n,
      hash: () => header.hash,
      timestamp: () => header.timestamp,
      txHash: (i) => txs[i]!.hash,
    };
    const all = prepareRecordQuery([], []);
    let perRecord = 0;
    {
      const sink = new JsonSink();
      perRecord = scanRecord(raw, all, block, sink);
    }
    const recordsFor10k = Math.ceil(10_000 / Math.max(1, perRecord));
    const compiled = compileFilter({ addresses: [address], topics: [[d.transferTopic]] });
    const candidateQuery = {
      addresses: [address],
      bits: filterBits([address], [[d.transferTopic]]),
      addressIndex: store.meta.get(ADDRESS_INDEX_FLAG) === true,
    };
    const hash32 = header.hash;

    const rows: Row[] = [];
    const suite = new Benchmark.Suite();
    const add = (name: string, fn: () => unknown) => suite.add(name, fn, { maxTime });
    add(`logsBloom of a block (${logs.length} logs)`, () => logsBloom(logs));
    add('bit-sliced candidates of a segment (address index + Transfer topic rows)', () =>
      segmentCandidates(store, 0, candidateQuery),
    );
    add('bytesToHex of a 32-byte hash', () => bytesToHex(hash32));
    add('quantityToHex', () => quantityToHex(123456789));
    add('encodeTxKey', () => encodeTxKey(n, 17));
    add(`decode a block's logs record (${logs.length} logs)`, () => decodeLogs(raw));
    add(
      `matchLog over a block's decoded logs (${logs.length})`,
      () => logs.filter((l) => matchLog(compiled, l)).length,
    );
    add(`render a block with ${txs.length} transaction hashes (format + JSON.stringify)`, () =>
      JSON.stringify(formatBlock(header, { hashes: txs.map((t) => t.hash) }, false)),
    );
    add('render one transaction (format + JSON.stringify)', () => JSON.stringify(formatTransaction(txs[0]!, at, 0)));
    add(`render ${recordsFor10k * perRecord} logs as JSON bytes from raw records`, () => {
      const sink = new JsonSink(false, 8 * 1024 * 1024);
      for (let i = 0; i < recordsFor10k; i++) scanRecord(raw, all, block, sink);
      return sink.length;
    });
    await new Promise<void>((resolve) => {
      suite.on('cycle', (event: Benchmark.Event) => {
        const b = event.target as unknown as { name: string; hz: number; stats: { rme: number } };
        rows.push({ figure: `micro: ${b.name}`, ours: b.hz, unit: 'ops/s', note: `±${b.stats.rme.toFixed(1)}%` });
      });
      suite.on('complete', () => resolve());
      suite.run({ async: false });
    });
    return rows;
  } finally {
    await closeStore(store);
  }
}
