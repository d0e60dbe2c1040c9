/**
 * The export's Parquet writer: finished columns (columns.ts) become one Parquet file in memory, one
 * row group, each column a chunk of data pages v1 (RLE definition levels, PLAIN values; a dictionary
 * column's chunk opens with its dictionary page, PLAIN, and its data pages hold RLE_DICTIONARY
 * indices) compressed with the chosen codec, then the footer. Nothing in the output depends on the clock or the
 * machine: the same columns give the same bytes.
 */
import type { ColumnData } from '../columns.js';
import type { CompressionName } from '../compression.js';
import { ByteWriter } from './byteWriter.js';
import { CODEC_IDS, compressPage } from './codecs.js';
import { indexBitWidth, writeDictionaryIndices } from './dictionary.js';
import { type ChunkInfo, writeDataPageHeader, writeDictionaryPageHeader, writeFileMetaData } from './format.js';
import { writeDefinitionLevels } from './levels.js';
import { writePlain } from './plain.js';
import { columnStatistics } from './statistics.js';

/** The 4 bytes that open and close a Parquet file. */
const MAGIC = Uint8Array.of(0x50, 0x41, 0x52, 0x31);

/**
 * Rows per data page: a multiple of 8, so each page's levels start on a byte of the validity
 * bitmap; about 2 MB of log topics or 5 MB of log data, pages a reader decompresses whole and a
 * compressor handles in one call (zstd's level 1 finds no better matches in larger ones).
 */
const PAGE_ROWS = 1 << 16;

/**
 * The page being assembled before compression: one per thread, kept between files so it stops growing after the first.
 */
const page = new ByteWriter(1 << 20);

/**
 * Bytes the file is first given room for: a share of the columns' raw size (the output grows past it when it compresses
 * less).
 */
function initialSize(columns: readonly ColumnData[], compression: CompressionName): number {
  const raw = columns.reduce((sum, c) => sum + c.values.byteLength + (c.offsets === undefined ? 0 : 4 * c.length), 0);
  return (compression === 'none' ? raw : raw >> 2) + (1 << 16);
}

/**
 * The columns (all of the same length) written as one Parquet file, pages compressed with
 * `compression`: into `out` when given (reset first; the result is then a view of its buffer, valid
 * until its next use), else into a new buffer.
 */
export function encodeParquet(
  columns: readonly ColumnData[],
  compression: CompressionName,
  out = new ByteWriter(initialSize(columns, compression)),
): Uint8Array {
  const rows = columns[0]?.length ?? 0;
  out.reset();
  out.append(MAGIC);
  const chunks: ChunkInfo[] = [];
  for (const c of columns) {
    if (c.length !== rows) throw new RangeError(`column ${c.name} has ${c.length} rows, ${columns[0]!.name} ${rows}`);
    const offset = out.length;
    let uncompressedSize = 0;
    const dictionary = c.dictionary;
    if (dictionary !== undefined && rows > 0) {
      page.reset();
      writePlain(page, dictionary, 0, dictionary.length);
      const raw = page.view();
      const body = compressPage(raw, compression);
      writeDictionaryPageHeader(out, dictionary.length, raw.length, body.length);
      uncompressedSize += out.length - offset + raw.length;
      out.append(body);
    }
    const dataOffset = out.length;
    const bitWidth = dictionary === undefined ? 0 : indexBitWidth(dictionary.length);
    for (let start = 0; start < rows; start += PAGE_ROWS) {
      const count = Math.min(PAGE_ROWS, rows - start);
      page.reset();
      writeDefinitionLevels(page, c.validity, start, count);
      if (dictionary === undefined) writePlain(page, c, start, count);
      else writeDictionaryIndices(page, c.values as Uint32Array, c.validity, start, count, bitWidth);
      const raw = page.view();
      const body = compressPage(raw, compression);
      const headerAt = out.length;
      writeDataPageHeader(out, count, raw.length, body.length, dictionary !== undefined);
      uncompressedSize += out.length - headerAt + raw.length;
      out.append(body);
    }
    const statistics =
      dictionary === undefined ? columnStatistics(c) : { ...columnStatistics(dictionary), nullCount: c.nullCount };
    chunks.push({
      name: c.name,
      type: c.type,
      codec: CODEC_IDS[compression],
      offset,
      dataOffset,
      dictionary: dictionary !== undefined && rows > 0,
      compressedSize: out.length - offset,
      uncompressedSize,
      statistics,
    });
  }
  const footerAt = out.length;
  writeFileMetaData(out, rows, chunks);
  out.u32le(out.length - footerAt);
  out.append(MAGIC);
  return out.view();
}
