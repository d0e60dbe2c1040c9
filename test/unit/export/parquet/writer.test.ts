/**
 * Files of the export's Parquet writer (src/export/parquet/writer.ts) written to disk and read by
 * DuckDB: columns of every type (u32, u64, f64, bool, binary, string) with nulls, dictionary
 * columns (u32, u64, binary, string) whose runs and nulls cross a page boundary, in every
 * compression, over more rows than a page holds, read back cell for cell with the documented DuckDB
 * types, null counts and integer bounds in the footer; a file of no rows; the same columns twice
 * give the same bytes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import {
  BoolColumn,
  BytesColumn,
  type ColumnData,
  DictionaryColumn,
  F64Column,
  TextColumn,
  U32Column,
  U64Column,
} from '#src/export/columns.js';
import { COMPRESSIONS } from '#src/export/compression.js';
import { ByteWriter } from '#src/export/parquet/byteWriter.js';
import { encodeParquet } from '#src/export/parquet/writer.js';
import { Rng } from '../../store/fixtures.js';

/** Rows of the test file: past one page (65,536 rows), so a column has two pages, the second partial. */
const ROWS = 70_003;

let db: DuckDBConnection;
let dir: string;

before(async () => {
  db = await (await DuckDBInstance.create(':memory:')).connect();
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-parquet-'));
});

after(() => {
  db.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

type Cell = number | bigint | boolean | string | null;

/** Random columns of every type, some rows null, and the cells DuckDB should read (blobs and text as strings). */
function sample(rows: number): { columns: ColumnData[]; expected: Cell[][] } {
  const rng = new Rng(17);
  const u32 = new U32Column('u32');
  const u64 = new U64Column('u64');
  const f64 = new F64Column('f64');
  const bool = new BoolColumn('bool');
  const blob = new BytesColumn('blob', false);
  const hex = new BytesColumn('hex', true);
  const text = new TextColumn('text');
  const dense = new U32Column('dense');
  const dictU32 = new DictionaryColumn(new U32Column('dict_u32'));
  const dictU64 = new DictionaryColumn(new U64Column('dict_u64'));
  const dictBlob = new DictionaryColumn(new BytesColumn('dict_blob', false));
  const dictHex = new DictionaryColumn(new BytesColumn('dict_hex', true));
  const dictionaries = [dictU32, dictU64, dictBlob, dictHex];
  // A run of rows shares one value (a block's or a transaction's); its entry is pushed at its first non-null row, so
  // every entry is some row's value.
  let runLeft = 0;
  let run: Cell[] = [];
  let runPushed = false;
  const expected: Cell[][] = [];
  for (let i = 0; i < rows; i++) {
    if (runLeft === 0) {
      runLeft = 1 + (rng.int(20) === 0 ? rng.int(3000) : rng.int(12));
      const n = rng.int(2 ** 31) * 2 + rng.int(2);
      const big = (BigInt(rng.int(2 ** 31)) << 33n) | BigInt(n);
      const bytes = Uint8Array.from({ length: 32 }, () => rng.int(256));
      run = [n, big, bytes as unknown as Cell];
      runPushed = false;
    }
    runLeft--;
    const dictNull = rng.int(6) === 0;
    if (dictNull) {
      for (const d of dictionaries) d.pushNull();
    } else {
      if (!runPushed) {
        dictU32.entries.push(run[0] as number);
        dictU64.entries.push(run[1] as bigint);
        dictBlob.entries.push(run[2] as unknown as Uint8Array);
        dictHex.entries.push(run[2] as unknown as Uint8Array);
        runPushed = true;
      }
      for (const d of dictionaries) d.repeat();
    }
    const runHex = '0x' + Buffer.from(run[2] as unknown as Uint8Array).toString('hex');
    const dictCells: Cell[] = dictNull ? [null, null, null, null] : [run[0]!, run[1]!, runHex, runHex];
    const isNull = rng.int(5) === 0;
    const n = rng.int(2 ** 31) * 2 + rng.int(2);
    const big = (BigInt(n) << 32n) | BigInt(rng.int(2 ** 31));
    const bytes = Uint8Array.from({ length: rng.int(70) }, () => rng.int(256));
    const double = (n - 2 ** 31) / 7;
    if (isNull) {
      u32.pushNull();
      u64.pushNull();
      bool.pushNull();
      blob.pushNull();
      hex.pushNull();
    } else {
      u32.push(n);
      u64.push(big);
      bool.push(n % 3 === 0);
      blob.push(bytes);
      hex.push(bytes);
    }
    f64.push(double);
    text.push(String(big));
    dense.push(i);
    const hexText = '0x' + Buffer.from(bytes).toString('hex');
    expected.push([
      ...(isNull
        ? [null, null, double, null, null, null, String(big), i]
        : [n, big, double, n % 3 === 0, hexText, hexText, String(big), i]),
      ...dictCells,
    ]);
  }
  return { columns: [u32, u64, f64, bool, blob, hex, text, dense, ...dictionaries].map((c) => c.finish()), expected };
}

/** The rows of `path` as DuckDB reads them, blobs as 0x-hex. */
async function read(path: string): Promise<Cell[][]> {
  const reader = await db.runAndReadAll(`SELECT * FROM read_parquet('${path}')`);
  return reader
    .getRows()
    .map((row) =>
      row.map((v) =>
        v !== null && typeof v === 'object' && 'bytes' in v
          ? '0x' + Buffer.from((v as { bytes: Uint8Array }).bytes).toString('hex')
          : (v as Cell),
      ),
    );
}

test(
  "a file encoded into a reused output (a worker thread's, " +
    'after a larger file) has the bytes of one encoded into a new one',
  () => {
    const large = sample(ROWS).columns;
    const small = sample(ROWS >> 2).columns;
    for (const compression of COMPRESSIONS) {
      const out = new ByteWriter(16);
      const first = Buffer.from(encodeParquet(large, compression, out));
      assert.ok(first.equals(encodeParquet(large, compression)), `${compression}: the large file`);
      assert.ok(
        Buffer.from(encodeParquet(small, compression, out)).equals(encodeParquet(small, compression)),
        `${compression}: the smaller file after it`,
      );
    }
  },
);

test('every type, with nulls, in every compression, read back by DuckDB cell for cell', async () => {
  const { columns, expected } = sample(ROWS);
  for (const compression of COMPRESSIONS) {
    const path = join(dir, `${compression}.parquet`);
    const bytes = encodeParquet(columns, compression);
    writeFileSync(path, bytes);
    assert.ok(
      Buffer.from(encodeParquet(columns, compression)).equals(bytes),
      `${compression}: the same columns give the same bytes`,
    );
    const described = (await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`))
      .getRows()
      .map((r) => `${String(r[0])} ${String(r[1])}`);
    assert.deepEqual(
      described,
      [
        'u32 UINTEGER',
        'u64 UBIGINT',
        'f64 DOUBLE',
        'bool BOOLEAN',
        'blob BLOB',
        'hex VARCHAR',
        'text VARCHAR',
        'dense UINTEGER',
        'dict_u32 UINTEGER',
        'dict_u64 UBIGINT',
        'dict_blob BLOB',
        'dict_hex VARCHAR',
      ],
      compression,
    );
    const got = await read(path);
    assert.equal(got.length, ROWS, compression);
    for (let i = 0; i < ROWS; i++) assert.deepEqual(got[i], expected[i], `${compression}: row ${i}`);
  }
});

test('the footer: codec, null counts, unsigned bounds of the integer columns, dictionary encodings', async () => {
  const { columns, expected } = sample(ROWS);
  const path = join(dir, 'footer.parquet');
  writeFileSync(path, encodeParquet(columns, 'zstd'));
  const meta = (
    await db.runAndReadAll(
      'SELECT path_in_schema, compression, stats_null_count, stats_min_value, stats_max_value, ' +
        `sum(num_values) OVER (PARTITION BY path_in_schema) FROM parquet_metadata('${path}')`,
    )
  ).getRows();
  const nulls = expected.filter((r) => r[0] === null).length;
  const dictNulls = expected.filter((r) => r[8] === null).length;
  const ints = (k: number) => expected.map((r) => r[k]).filter((v) => v !== null) as (number | bigint)[];
  const bounds = (k: number) => [
    String(ints(k).reduce((a, b) => (b < a ? b : a))),
    String(ints(k).reduce((a, b) => (b > a ? b : a))),
  ];
  assert.deepEqual(
    meta.map((r) => r.map(String)),
    [
      ['u32', 'ZSTD', String(nulls), ...bounds(0), String(ROWS)],
      ['u64', 'ZSTD', String(nulls), ...bounds(1), String(ROWS)],
      ['f64', 'ZSTD', '0', 'null', 'null', String(ROWS)],
      ['bool', 'ZSTD', String(nulls), 'null', 'null', String(ROWS)],
      ['blob', 'ZSTD', String(nulls), 'null', 'null', String(ROWS)],
      ['hex', 'ZSTD', String(nulls), 'null', 'null', String(ROWS)],
      ['text', 'ZSTD', '0', 'null', 'null', String(ROWS)],
      ['dense', 'ZSTD', '0', '0', String(ROWS - 1), String(ROWS)],
      ['dict_u32', 'ZSTD', String(dictNulls), ...bounds(8), String(ROWS)],
      ['dict_u64', 'ZSTD', String(dictNulls), ...bounds(9), String(ROWS)],
      ['dict_blob', 'ZSTD', String(dictNulls), 'null', 'null', String(ROWS)],
      ['dict_hex', 'ZSTD', String(dictNulls), 'null', 'null', String(ROWS)],
    ],
  );
  const encodings = (
    await db.runAndReadAll(
      `SELECT path_in_schema, encodings, dictionary_page_offset IS NOT NULL FROM parquet_metadata('${path}')`,
    )
  ).getRows();
  for (const [name, list, hasDictionary] of encodings) {
    const dictionary = String(name).startsWith('dict_');
    assert.equal(String(list), dictionary ? 'PLAIN, RLE, RLE_DICTIONARY' : 'PLAIN, RLE', String(name));
    assert.equal(hasDictionary, dictionary, String(name));
  }
  const pruned = (
    await db.runAndReadAll(`SELECT count(*) FROM read_parquet('${path}') WHERE dense BETWEEN 100 AND 199`)
  ).getRows();
  assert.equal(String(pruned[0]![0]), '100');
});

test('a file of no rows has the schema and reads as empty', async () => {
  const path = join(dir, 'empty.parquet');
  writeFileSync(path, encodeParquet(sample(0).columns, 'zstd'));
  assert.equal((await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`)).getRows().length, 12);
  assert.deepEqual(await read(path), []);
});
