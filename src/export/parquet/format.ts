/**
 * Parquet's own structures, in Thrift's compact protocol: the headers of a data page (v1) and of a
 * dictionary page, and the file's footer (FileMetaData: the schema, one row group, each column chunk's metadata and
 * statistics). Every column is flat and OPTIONAL, as in cryo's files; integers carry the unsigned
 * integer logical type, text the string one.
 */
import { CLIENT_VERSION } from '../../config.js';
import type { ColumnType } from '../columns.js';
import type { ByteWriter } from './byteWriter.js';
import type { ChunkStatistics } from './statistics.js';
import { CompactWriter } from './thrift.js';

/** Parquet's physical types (Type), those the export uses. */
const PhysicalType = { BOOLEAN: 0, INT32: 1, INT64: 2, DOUBLE: 5, BYTE_ARRAY: 6 } as const;

/**
 * Parquet's encodings (Encoding): PLAIN for values and dictionaries, RLE (the RLE / bit-packing hybrid) for levels,
 * RLE_DICTIONARY for dictionary indices.
 */
const Encoding = { PLAIN: 0, RLE: 3, RLE_DICTIONARY: 8 } as const;

/** Parquet's legacy annotations (ConvertedType), written beside the logical types for older readers. */
const ConvertedType = { UTF8: 0, UINT_32: 13, UINT_64: 14 } as const;

/** FieldRepetitionType.OPTIONAL: a column that may hold nulls. */
const OPTIONAL = 1;

/** PageType.DATA_PAGE: a data page v1. */
const DATA_PAGE = 0;

/** PageType.DICTIONARY_PAGE: a column chunk's dictionary, before its data pages. */
const DICTIONARY_PAGE = 2;

/** The Parquet format version written in FileMetaData (1: the features of format 1, which every reader has). */
const FORMAT_VERSION = 1;

/** The writer named in each file's metadata: a constant, so files do not depend on the machine. */
const CREATED_BY = CLIENT_VERSION.replace('/', ' version ');

/** How a column type is stored: physical type, legacy annotation and logical type. */
const STORAGE: Record<ColumnType, { physical: number; converted?: number; logical?: 'string' | 32 | 64 }> = {
  u32: { physical: PhysicalType.INT32, converted: ConvertedType.UINT_32, logical: 32 },
  u64: { physical: PhysicalType.INT64, converted: ConvertedType.UINT_64, logical: 64 },
  f64: { physical: PhysicalType.DOUBLE },
  bool: { physical: PhysicalType.BOOLEAN },
  binary: { physical: PhysicalType.BYTE_ARRAY },
  string: { physical: PhysicalType.BYTE_ARRAY, converted: ConvertedType.UTF8, logical: 'string' },
};

/**
 * Writes the header of a data page v1 of `rows` rows, RLE definition levels, and PLAIN values or, with `dictionary`,
 * RLE_DICTIONARY indices.
 */
export function writeDataPageHeader(
  out: ByteWriter,
  rows: number,
  uncompressedSize: number,
  compressedSize: number,
  dictionary = false,
): void {
  const t = new CompactWriter(out);
  t.i32(1, DATA_PAGE);
  t.i32(2, uncompressedSize);
  t.i32(3, compressedSize);
  t.begin(5);
  t.i32(1, rows);
  t.i32(2, dictionary ? Encoding.RLE_DICTIONARY : Encoding.PLAIN);
  t.i32(3, Encoding.RLE);
  t.i32(4, Encoding.RLE);
  t.end();
  t.end();
}

/** Writes the header of a dictionary page of `entries` PLAIN values. */
export function writeDictionaryPageHeader(
  out: ByteWriter,
  entries: number,
  uncompressedSize: number,
  compressedSize: number,
): void {
  const t = new CompactWriter(out);
  t.i32(1, DICTIONARY_PAGE);
  t.i32(2, uncompressedSize);
  t.i32(3, compressedSize);
  t.begin(7);
  t.i32(1, entries);
  t.i32(2, Encoding.PLAIN);
  t.end();
  t.end();
}

/** One column chunk of the file, as its metadata describes it. */
export interface ChunkInfo {
  name: string;
  type: ColumnType;
  codec: number;
  /** Offset in the file of its first page's header (its dictionary page's, when it has one). */
  offset: number;
  /** Offset in the file of its first data page's header: after the dictionary page, or `offset`. */
  dataOffset: number;
  /** Whether its data pages hold dictionary indices (a dictionary page at `offset`). */
  dictionary: boolean;
  /** Bytes of its pages, headers included: compressed as in the file, and as they would be uncompressed. */
  compressedSize: number;
  uncompressedSize: number;
  statistics: ChunkStatistics;
}

/**
 * Writes the FileMetaData of a file of `rows` rows in one row group of `chunks` (in schema order; none when `rows` is
 * 0).
 */
export function writeFileMetaData(out: ByteWriter, rows: number, chunks: readonly ChunkInfo[]): void {
  const t = new CompactWriter(out);
  t.i32(1, FORMAT_VERSION);
  t.structList(2, chunks.length + 1);
  t.beginElement();
  t.string(4, 'schema');
  t.i32(5, chunks.length);
  t.end();
  for (const c of chunks) writeSchemaElement(t, c);
  t.i64(3, rows);
  // A file without rows has no row group (a row group of no rows would hold chunks of no pages).
  t.structList(4, rows > 0 ? 1 : 0);
  if (rows > 0) {
    t.beginElement();
    t.structList(1, chunks.length);
    for (const c of chunks) writeColumnChunk(t, c, rows);
    t.i64(
      2,
      chunks.reduce((sum, c) => sum + c.uncompressedSize, 0),
    );
    t.i64(3, rows);
    t.i64(5, chunks[0]!.offset);
    t.i64(
      6,
      chunks.reduce((sum, c) => sum + c.compressedSize, 0),
    );
    t.end();
  }
  t.string(6, CREATED_BY);
  // Every column's statistics are in its type's order (TypeDefinedOrder): unsigned for the unsigned integers.
  t.structList(7, chunks.length);
  for (let i = 0; i < chunks.length; i++) {
    t.beginElement();
    t.begin(1);
    t.end();
    t.end();
  }
  t.end();
}

/** A column's SchemaElement: type, OPTIONAL, name, annotations. */
function writeSchemaElement(t: CompactWriter, c: ChunkInfo): void {
  const storage = STORAGE[c.type];
  t.beginElement();
  t.i32(1, storage.physical);
  t.i32(3, OPTIONAL);
  t.string(4, c.name);
  if (storage.converted !== undefined) t.i32(6, storage.converted);
  if (storage.logical !== undefined) {
    t.begin(10);
    if (storage.logical === 'string') {
      t.begin(1);
      t.end();
    } else {
      t.begin(10);
      t.i8(1, storage.logical);
      t.bool(2, false);
      t.end();
    }
    t.end();
  }
  t.end();
}

/** A ColumnChunk and its ColumnMetaData. */
function writeColumnChunk(t: CompactWriter, c: ChunkInfo, rows: number): void {
  t.beginElement();
  t.i64(2, c.offset);
  t.begin(3);
  t.i32(1, STORAGE[c.type].physical);
  t.i32List(2, c.dictionary ? [Encoding.PLAIN, Encoding.RLE, Encoding.RLE_DICTIONARY] : [Encoding.PLAIN, Encoding.RLE]);
  t.stringList(3, [c.name]);
  t.i32(4, c.codec);
  t.i64(5, rows);
  t.i64(6, c.uncompressedSize);
  t.i64(7, c.compressedSize);
  t.i64(9, c.dataOffset);
  if (c.dictionary) t.i64(11, c.offset);
  t.begin(12);
  t.i64(3, c.statistics.nullCount);
  if (c.statistics.max !== undefined) t.binary(5, c.statistics.max);
  if (c.statistics.min !== undefined) t.binary(6, c.statistics.min);
  t.end();
  t.end();
  t.end();
}
