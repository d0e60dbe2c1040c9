/**
 * The comparison behind the export's choice of Parquet writer (docs/export.md): the same log
 * columns (blocks 0–1999 of the quick benchmark dataset, built by the export's own LogRows) written
 * by the export's own writer (src/export/parquet, every codec), by parquet-wasm (its former writer,
 * every codec; the columns converted to Arrow's layout beforehand, untimed) and by hyparquet-writer
 * (pure JavaScript: snappy or none on Node 20, which has no zstd), rows/s of the encode in this one
 * thread (median of 5, after a warm-up) and bytes per row. hyparquet-writer is not a dependency of the project; install
 * it for this run:
 *
 *   npm install --no-save hyparquet-writer@0.17.0 && node dist/native-free-bench/parquetWriters.js [DATA]
 */

import { type ColumnData, withoutDictionary } from '#src/export/columns.js';
import { COMPRESSIONS } from '#src/export/compression.js';
import { LogRows } from '#src/export/logRows.js';
import { encodeParquet } from '#src/export/parquet/writer.js';
import { bulkBlockScanner } from '#src/logs/blockScan.js';
import { StoreReader } from '#src/store/reader.js';
import { openStore } from '#src/store/schema.js';
import { arrowLayout, encodeParquetWasm } from './parquetWasm.js';

/** Blocks whose logs are written: two 1,000-block chunks of the quick dataset, about 190,000 logs. */
const BLOCKS = 2_000;
/** Timed runs of each writer and codec (the median is reported), after one warm-up. */
const RUNS = 5;

/** The module name, held in a variable so the compiler does not look for a package the project does not install. */
const HYPARQUET = 'hyparquet-writer';

type HyparquetWrite = (options: {
  columnData: { name: string; data: unknown; type: string }[];
  codec: string;
  rowGroupSize: number;
}) => ArrayBuffer;

/** A finished column as hyparquet-writer takes one: an array of values (null for a null). */
function hyparquetColumn(c: ColumnData): { name: string; data: unknown; type: string } {
  const valid = (i: number) => c.nullCount === 0 || ((c.validity[i >> 3]! >> (i & 7)) & 1) === 1;
  const data = Array.from({ length: c.length }, (_, i) => {
    if (!valid(i)) return null;
    switch (c.type) {
      case 'u32':
        return (c.values as Uint32Array)[i];
      case 'u64':
        return (c.values as BigUint64Array)[i];
      case 'f64':
        return (c.values as Float64Array)[i];
      case 'bool':
        return (((c.values as Uint8Array)[i >> 3]! >> (i & 7)) & 1) === 1;
      default:
        return (c.values as Uint8Array).subarray(c.offsets![i]!, c.offsets![i + 1]!);
    }
  });
  const type = { u32: 'INT64', u64: 'INT64', f64: 'DOUBLE', bool: 'BOOLEAN', binary: 'BYTE_ARRAY', string: 'STRING' }[
    c.type
  ];
  return {
    name: c.name,
    data: c.type === 'u32' ? data.map((v) => (v === null ? null : BigInt(v as number))) : data,
    type,
  };
}

/** The median of `RUNS` timings of `write` after a warm-up, and the size of its output. */
function measure(write: () => number): { ms: number; bytes: number } {
  write();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    bytes = write();
    times.push(performance.now() - t);
  }
  return { ms: times.sort((a, b) => a - b)[RUNS >> 1]!, bytes };
}

const dir = process.argv[2] ?? 'data/bench-quick';
const store = openStore(dir, { readOnly: true });
const rows = new LogRows(false, 1n);
const scan = bulkBlockScanner(new StoreReader(store), [], []);
for (let n = 0; n < BLOCKS; n++) scan(n, rows);
const columns = rows.finish();
const count = rows.rows;
const arrowColumns = columns.map((c) => arrowLayout(withoutDictionary(c)));
console.log(
  `${count} logs of blocks 0–${BLOCKS - 1} of ${dir}\n\n| writer | codec | rows/s | bytes/row |\n|---|---|---|---|`,
);
const line = (writer: string, codec: string, r: { ms: number; bytes: number }) =>
  console.log(`| ${writer} | ${codec} | ${Math.round(count / (r.ms / 1000))} | ${(r.bytes / count).toFixed(1)} |`);
for (const codec of COMPRESSIONS)
  line(
    'ethlogd (src/export/parquet)',
    codec,
    measure(() => encodeParquet(columns, codec).length),
  );
for (const codec of COMPRESSIONS)
  line(
    'parquet-wasm 0.8.0 (arrow-rs)',
    codec,
    measure(() => encodeParquetWasm(arrowColumns, codec).length),
  );
try {
  const { parquetWriteBuffer } = (await import(HYPARQUET)) as { parquetWriteBuffer: HyparquetWrite };
  const columnData = arrowColumns.map(hyparquetColumn);
  for (const codec of ['SNAPPY', 'UNCOMPRESSED']) {
    line(
      'hyparquet-writer 0.17.0',
      codec.toLowerCase(),
      measure(() => parquetWriteBuffer({ columnData, codec, rowGroupSize: count }).byteLength),
    );
  }
} catch (error) {
  console.log(
    `hyparquet-writer not measured: ${(error as Error).message} (npm install --no-save hyparquet-writer@0.17.0)`,
  );
}
await store.env.close();
