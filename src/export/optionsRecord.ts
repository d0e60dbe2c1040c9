/**
 * The options an export directory's files of one datatype were written with, recorded beside them
 * (`.ethlogd-export-{network}__{datatype}.json`, hidden, as generate records a store's provenance):
 * a rerun with the same options resumes; one with others is refused, or with `overwrite` replaces
 * the files, so a directory never mixes files of two filters, encodings or chunkings.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bytesToHex } from '../chain/hex.js';
import type { CompressionName } from './compression.js';
import type { ExportKind } from './schemas.js';

/** What makes two exports' files of one datatype differ, beyond their range. */
export interface ExportRecord {
  chunkBlocks: number;
  compression: CompressionName;
  hex: boolean;
  /** Logs only: the filter's addresses (empty: any) and topic positions (null: any), 0x-hex. */
  addresses: string[];
  topics: (string[] | null)[];
}

/** The record's file name for `kind` on `network`. */
export function recordName(network: string, kind: ExportKind): string {
  return `.ethlogd-export-${network}__${kind}.json`;
}

/** The record of an export's options, the filter's bytes as 0x-hex. */
export function exportRecord(o: {
  chunkBlocks: number;
  compression: CompressionName;
  hex: boolean;
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}): ExportRecord {
  return {
    chunkBlocks: o.chunkBlocks,
    compression: o.compression,
    hex: o.hex,
    addresses: o.addresses.map(bytesToHex),
    topics: o.topics.map((position) => position?.map(bytesToHex) ?? null),
  };
}

/** The record in `dir` for `kind` on `network`, or undefined when there is none (or it cannot be read as one). */
export async function readRecord(dir: string, network: string, kind: ExportKind): Promise<ExportRecord | undefined> {
  try {
    const value = JSON.parse(await readFile(join(dir, recordName(network, kind)), 'utf8')) as ExportRecord;
    return typeof value === 'object' && value !== null && typeof value.chunkBlocks === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the record (beside its name, then renamed: a reader sees the old one or the new one). */
export async function writeRecord(dir: string, network: string, kind: ExportKind, record: ExportRecord): Promise<void> {
  const path = join(dir, recordName(network, kind));
  await writeFile(`${path}.tmp`, `${JSON.stringify(record)}\n`);
  await rename(`${path}.tmp`, path);
}

/** The options in which `a` (the files') and `b` (this run's) differ, as the command line names them. */
export function recordDifferences(a: ExportRecord, b: ExportRecord): string[] {
  const out: string[] = [];
  if (a.chunkBlocks !== b.chunkBlocks) out.push(`--chunk-blocks ${a.chunkBlocks}`);
  if (a.compression !== b.compression) out.push(`--compression ${a.compression}`);
  if (a.hex !== b.hex) out.push(a.hex ? '--hex' : 'no --hex');
  if (JSON.stringify(a.addresses) !== JSON.stringify(b.addresses)) {
    out.push(a.addresses.length === 0 ? 'no address' : `--address ${a.addresses.join(',')}`);
  }
  if (JSON.stringify(a.topics) !== JSON.stringify(b.topics)) {
    out.push(a.topics.length === 0 ? 'no topics' : `topics ${JSON.stringify(a.topics)}`);
  }
  return out;
}

/** The directory holds files of the datatype written with other options; nothing was written. */
export class ExportOptionsError extends Error {
  /** Names the directory, the datatype and the options its files were written with. */
  constructor(dir: string, kind: ExportKind, files: number, differences: string[]) {
    super(
      `${dir} holds ${files} ${kind} files written with other options (${differences.join(', ')}): ` +
        'export into another directory, run again with those options to resume, or pass --overwrite to replace them',
    );
  }
}
