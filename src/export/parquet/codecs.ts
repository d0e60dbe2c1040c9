/**
 * The page compressors of the export's compressions, each a native library with prebuilt binaries
 * on npm (docs/export.md has the measurements behind the choice): zstd (@toondepauw/node-zstd,
 * the zstd C library through napi-rs), snappy (snappy, the Rust snap crate's raw format) and
 * LZ4_RAW (lz4-napi, lz4_flex's block format). Each is loaded at its first use, so a thread only
 * loads the one it writes.
 */
import { createRequire } from 'node:module';
import type * as NodeZstd from '@toondepauw/node-zstd';
import type * as Lz4 from 'lz4-napi';
import type * as Snappy from 'snappy';
import type { CompressionName } from '../compression.js';

const require = createRequire(import.meta.url);

/**
 * Parquet's CompressionCodec of each name (lz4 is LZ4_RAW, the codec the format specifies; its older framed LZ4 is
 * deprecated).
 */
export const CODEC_IDS: Record<CompressionName, number> = { none: 0, snappy: 1, zstd: 6, lz4: 7 };

/**
 * zstd's level: 1, its fastest standard level and Apache Arrow's default for Parquet. Measured on
 * the export's log pages, level 3 gives files 6 % smaller at 60 % of level 1's speed.
 */
const ZSTD_LEVEL = 1;

/**
 * lz4-napi's compressSync prefixes lz4_flex's block with its uncompressed size in 4 bytes, which LZ4_RAW does not have.
 */
const LZ4_SIZE_PREFIX = 4;

/** A page compressor. */
type Compress = (page: Buffer) => Uint8Array;

/** Each name's compressor, once loaded. */
const loaded = new Map<CompressionName, Compress>();

/** The compressor of `name`, loading its library. */
function load(name: Exclude<CompressionName, 'none'>): Compress {
  switch (name) {
    case 'zstd': {
      const encoder = new (require('@toondepauw/node-zstd') as typeof NodeZstd).Encoder(ZSTD_LEVEL);
      return (page) => encoder.encodeSync(page);
    }
    case 'snappy': {
      const { compressSync } = require('snappy') as typeof Snappy;
      return (page) => compressSync(page);
    }
    case 'lz4': {
      const { compressSync } = require('lz4-napi') as typeof Lz4;
      return (page) => compressSync(page).subarray(LZ4_SIZE_PREFIX);
    }
  }
}

/** `page` compressed with `name` (`none`: the page itself). */
export function compressPage(page: Uint8Array, name: CompressionName): Uint8Array {
  if (name === 'none') return page;
  let compress = loaded.get(name);
  if (compress === undefined) {
    compress = load(name);
    loaded.set(name, compress);
  }
  return compress(Buffer.from(page.buffer, page.byteOffset, page.byteLength));
}
