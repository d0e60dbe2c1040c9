/**
 * The messages between the exporter and its worker threads: a task is one chunk of one datatype
 * and the temporary file to write it to; its answer what was written, or the failure's message (no
 * error object crosses).
 */
import type { CompressionName } from './compression.js';
import type { ExportKind } from './schemas.js';

/** One chunk to export. */
export interface ExportTask {
  dataDir: string;
  kind: ExportKind;
  /** The chunk's blocks, inclusive. */
  from: number;
  to: number;
  /** The logs filter (logs only): addresses (empty: any) and topic positions (null: any). */
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
  /** Byte columns as 0x-hex text instead of binary. */
  hex: boolean;
  compression: CompressionName;
  chainId: bigint;
  /**
   * The temporary file the worker writes the chunk's Parquet file to (created or truncated; the exporter flushes and
   * renames it).
   */
  path: string;
}

/** A task's answer. */
export type ExportResult = { ok: true; bytes: number; rows: number } | { ok: false; message: string };
