/**
 * Compression of HTTP answers (gzip and brotli, node:zlib): which coding an answer gets from its
 * request's Accept-Encoding and its size, and the compressors, whole (answers respond.ts writes in
 * one piece) or streaming (the large ones, compressed on libuv's thread pool as the client reads).
 * The size threshold, gzip level and brotli quality are the operator's (config.ts defaults).
 */
import type { Transform } from 'node:stream';
import {
  type BrotliOptions,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzipSync,
  type ZlibOptions,
} from 'node:zlib';
import { DEFAULT_BROTLI_QUALITY, DEFAULT_COMPRESSION_MIN_BYTES, DEFAULT_GZIP_LEVEL } from '../config.js';
import { type Negotiated, negotiate, parseAcceptEncoding } from './acceptEncoding.js';

/**
 * The content codings answers can get, in the order preferred when a client weighs them alike (brotli: smaller and
 * cheaper, see config.ts).
 */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;

/** A content coding this service applies. */
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** How answers are compressed; every field has its config.ts default. */
export interface CompressionOptions {
  /** The codings offered (a subset of CONTENT_CODINGS); empty: answers are never compressed. */
  codings?: readonly ContentCoding[];
  /** Answers smaller than this many bytes go out uncompressed, unless the client refuses that. */
  minBytes?: number;
  /** gzip level, 1 (fastest) to 9 (smallest). */
  gzipLevel?: number;
  /** Brotli quality, 0 (fastest) to 11 (smallest). */
  brotliQuality?: number;
}

/**
 * Output chunk of the streaming compressors: 64 KiB holds about 400 KB of a log answer, so a large
 * answer is a few dozen chunks, each hop between the thread pool and the event loop worth its cost
 * (native-free-bench/compression.ts: 4.2 against 5.0 ms/MB with zlib's 16 KiB chunks for gzip, 1.9
 * against 3.0 for brotli), and what a slow client leaves waiting stays a chunk or two.
 */
const STREAM_CHUNK_BYTES = 64 * 1024;

/** Compression options with every default filled in. */
export type ResolvedCompression = Required<CompressionOptions>;

/**
 * `options` with config.ts's defaults filled in; throws a RangeError on a level, quality or threshold zlib or reason
 * refuses.
 */
export function resolveCompression(options: CompressionOptions): ResolvedCompression {
  const resolved = {
    codings: CONTENT_CODINGS.filter((coding) => (options.codings ?? CONTENT_CODINGS).includes(coding)),
    minBytes: options.minBytes ?? DEFAULT_COMPRESSION_MIN_BYTES,
    gzipLevel: options.gzipLevel ?? DEFAULT_GZIP_LEVEL,
    brotliQuality: options.brotliQuality ?? DEFAULT_BROTLI_QUALITY,
  };
  const { minBytes, gzipLevel, brotliQuality } = resolved;
  if (!Number.isInteger(gzipLevel) || gzipLevel < 1 || gzipLevel > 9)
    throw new RangeError(`gzip level ${gzipLevel} is not an integer from 1 to 9`);
  if (!Number.isInteger(brotliQuality) || brotliQuality < 0 || brotliQuality > 11)
    throw new RangeError(`brotli quality ${brotliQuality} is not an integer from 0 to 11`);
  if (!Number.isSafeInteger(minBytes) || minBytes < 0)
    throw new RangeError(`compression threshold ${minBytes} is not a byte count`);
  return resolved;
}

/** The compression settings of a front; it negotiates each request's coding. */
export class Compression {
  private readonly settings: ResolvedCompression;
  private readonly gzip: ZlibOptions;

  /** Resolves `options` against the defaults (resolveCompression: a RangeError on a bad value). */
  constructor(options: CompressionOptions = {}) {
    this.settings = resolveCompression(options);
    this.gzip = { level: this.settings.gzipLevel };
  }

  /** The coding choice for one request whose Accept-Encoding is `header` (`''` when absent). */
  negotiate(header: string): AnswerCoding {
    const { codings } = this.settings;
    if (codings.length === 0) return AS_IS;
    return new AnswerCoding(this, header === '' ? NOTHING_NAMED : negotiate(parseAcceptEncoding(header), codings));
  }

  /**
   * Whether an answer of `bytes` bytes is compressed, given what its request accepts: from the threshold on, and below
   * it only when the client refuses an answer as it is.
   */
  chooses(accepted: Negotiated<ContentCoding>, bytes: number): ContentCoding | null {
    if (accepted.coding === null || (bytes < this.settings.minBytes && accepted.identity)) return null;
    return accepted.coding;
  }

  /** `input` compressed whole with `coding`. */
  compress(coding: ContentCoding, input: Uint8Array): Buffer {
    return coding === 'gzip'
      ? gzipSync(input, this.gzip)
      : brotliCompressSync(input, this.brotliOptions(input.byteLength));
  }

  /**
   * A stream that compresses what is written to it with `coding`, `bytes` in all, in STREAM_CHUNK_BYTES output chunks.
   */
  compressor(coding: ContentCoding, bytes: number): Transform {
    return coding === 'gzip'
      ? createGzip({ ...this.gzip, chunkSize: STREAM_CHUNK_BYTES })
      : createBrotliCompress({ ...this.brotliOptions(bytes), chunkSize: STREAM_CHUNK_BYTES });
  }

  /** Brotli's parameters for an input of `bytes` bytes (text mode, its size hinted so the window fits it). */
  private brotliOptions(bytes: number): BrotliOptions {
    return {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: this.settings.brotliQuality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
      },
    };
  }
}

/** What a request accepts when its Accept-Encoding names nothing: its answers as they are. */
const NOTHING_NAMED: Negotiated<ContentCoding> = { coding: null, identity: true };

/**
 * The coding of the answers to one request: chosen by size from what the request accepts, with the compressors to apply
 * it.
 */
export class AnswerCoding {
  /** Made by Compression.negotiate (or AS_IS when compression is off). */
  constructor(
    private readonly compression: Compression | undefined,
    private readonly accepted: Negotiated<ContentCoding>,
  ) {}

  /** Whether the answer says `Vary: Accept-Encoding`: compression is on, so another request could get other bytes. */
  get vary(): boolean {
    return this.compression !== undefined;
  }

  /** The coding of an answer of `bytes` bytes, or null to send it as it is. */
  choose(bytes: number): ContentCoding | null {
    return this.compression?.chooses(this.accepted, bytes) ?? null;
  }

  /** `input` compressed whole with `coding` (one chose()). */
  compress(coding: ContentCoding, input: Uint8Array): Buffer {
    return this.compression!.compress(coding, input);
  }

  /** A streaming compressor for an answer of `bytes` bytes with `coding` (one chose()). */
  compressor(coding: ContentCoding, bytes: number): Transform {
    return this.compression!.compressor(coding, bytes);
  }
}

/** The coding of every answer when compression is off: as it is, without Vary. */
export const AS_IS = new AnswerCoding(undefined, NOTHING_NAMED);
