/**
 * The export's former Parquet writer, kept as the benchmarks' baseline (parquetWriters.ts): columns
 * in Arrow's layout become one Arrow record batch (apache-arrow, over the columns' own buffers),
 * handed to parquet-wasm (Apache Arrow's Rust Parquet writer compiled to WebAssembly) as an Arrow
 * IPC stream, and written as one Parquet file in memory.
 */
import { createRequire } from 'node:module';
import {
  Binary,
  Bool,
  type Data,
  type DataType,
  Field,
  Float64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  Uint32,
  Uint64,
  Utf8,
} from 'apache-arrow';
import type * as ParquetWasm from 'parquet-wasm/node';
import { type ColumnData, LENGTH_PREFIX } from '#src/export/columns.js';
import type { CompressionName } from '#src/export/compression.js';

// parquet-wasm's Node build is CommonJS that instantiates its WebAssembly synchronously on load.
const parquet = createRequire(import.meta.url)('parquet-wasm/node') as typeof ParquetWasm;

/**
 * Each name's Parquet codec (lz4 is LZ4_RAW, the codec the Parquet format specifies; the older framed LZ4 is
 * deprecated).
 */
const CODECS: Record<CompressionName, ParquetWasm.Compression> = {
  zstd: parquet.Compression.ZSTD,
  snappy: parquet.Compression.SNAPPY,
  lz4: parquet.Compression.LZ4_RAW,
  none: parquet.Compression.UNCOMPRESSED,
};

/**
 * Rows per row group: above any chunk's rows (a 1,000-block chunk of mainnet holds ~500k logs), so
 * each file is one row group, as cryo writes a chunk.
 */
const ROW_GROUP_ROWS = 1 << 22;

/**
 * Column `c` in Arrow's layout: byte strings without PLAIN's length prefixes, offsets to match (a copy; other types as
 * they are).
 */
export function arrowLayout(c: ColumnData): ColumnData {
  if (c.offsets === undefined) return c;
  const src = c.values as Uint8Array;
  const values = new Uint8Array(src.length);
  const offsets = new Int32Array(c.length + 1);
  let size = 0;
  for (let i = 0; i < c.length; i++) {
    const from = c.offsets[i]!;
    const to = c.offsets[i + 1]!;
    if (to > from) {
      values.set(src.subarray(from + LENGTH_PREFIX, to), size);
      size += to - from - LENGTH_PREFIX;
    }
    offsets[i + 1] = size;
  }
  return { ...c, values: values.subarray(0, size), offsets };
}

/** A column's Arrow type and data over its own buffers (no copy). */
function arrowData(c: ColumnData): { type: DataType; data: Data } {
  const nulls = c.nullCount > 0 ? { nullCount: c.nullCount, nullBitmap: c.validity } : { nullCount: 0 };
  switch (c.type) {
    case 'u32': {
      const type = new Uint32();
      return { type, data: makeData({ type, length: c.length, data: c.values as Uint32Array, ...nulls }) };
    }
    case 'u64': {
      const type = new Uint64();
      return { type, data: makeData({ type, length: c.length, data: c.values as BigUint64Array, ...nulls }) };
    }
    case 'f64': {
      const type = new Float64();
      return { type, data: makeData({ type, length: c.length, data: c.values as Float64Array, ...nulls }) };
    }
    case 'bool': {
      const type = new Bool();
      return { type, data: makeData({ type, length: c.length, data: c.values as Uint8Array, ...nulls }) };
    }
    case 'binary': {
      const type = new Binary();
      return {
        type,
        data: makeData({ type, length: c.length, data: c.values as Uint8Array, valueOffsets: c.offsets!, ...nulls }),
      };
    }
    case 'string': {
      const type = new Utf8();
      return {
        type,
        data: makeData({ type, length: c.length, data: c.values as Uint8Array, valueOffsets: c.offsets!, ...nulls }),
      };
    }
  }
}

/** The columns as an Arrow IPC stream of one record batch (every field nullable, as cryo's files have them). */
export function arrowIpc(columns: readonly ColumnData[]): Uint8Array {
  const length = columns[0]?.length ?? 0;
  const fields: Field[] = [];
  const children: Data[] = [];
  for (const c of columns) {
    if (c.length !== length)
      throw new RangeError(`column ${c.name} has ${c.length} rows, ${columns[0]!.name} ${length}`);
    const { type, data } = arrowData(c);
    fields.push(new Field(c.name, type, true));
    children.push(data);
  }
  const schema = new Schema(fields);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length, children }));
  return tableToIPC(new Table(schema, [batch]), 'stream');
}

/**
 * The columns (in Arrow's layout: arrowLayout) written by parquet-wasm as one Parquet file (one row group), compressed
 * with `compression`.
 */
export function encodeParquetWasm(columns: readonly ColumnData[], compression: CompressionName): Uint8Array {
  const table = parquet.Table.fromIPCStream(arrowIpc(columns));
  const properties = new parquet.WriterPropertiesBuilder()
    .setCompression(CODECS[compression])
    .setMaxRowGroupSize(ROW_GROUP_ROWS)
    .build();
  // writeParquet takes the table and the properties over: wasm-bindgen frees both.
  return parquet.writeParquet(table, properties);
}
