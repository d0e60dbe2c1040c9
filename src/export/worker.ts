/**
 * The export's Piscina worker: builds one chunk's columns from the store (logs through the log
 * engine's candidate selection and raw-record scan, so a filtered export matches what eth_getLogs
 * answers; blocks, transactions and receipts through the store reader), encodes them as a Parquet
 * file in this thread's output buffer and writes it to the task's temporary file (the exporter
 * flushes and renames it): no file's bytes cross threads, and the buffer stops growing after the
 * thread's largest file.
 */
import { writeFileSync } from 'node:fs';
import { bulkBlockScanner } from '../logs/blockScan.js';
import { candidateBlocks, candidateQuery } from '../logs/candidates.js';
import type { StoreReader } from '../store/reader.js';
import type { Store } from '../store/schema.js';
import { segmentOf } from '../store/segments.js';
import { workerStore } from '../store/workerStore.js';
import { BlockRows } from './blockRows.js';
import type { ColumnData } from './columns.js';
import { LogRows } from './logRows.js';
import { ByteWriter } from './parquet/byteWriter.js';
import { encodeParquet } from './parquet/writer.js';
import { ReceiptRows } from './receiptRows.js';
import type { ExportResult, ExportTask } from './task.js';
import { TransactionRows } from './transactionRows.js';

/**
 * Bytes this thread's file buffer starts with: a 1,000-block chunk of mainnet logs compresses to about 30 MB, so it
 * grows a few times on the first.
 */
const FIRST_FILE_BYTES = 1 << 22;

/** This thread's file buffer, reused for every chunk (a file is written out before the next is encoded). */
const file = new ByteWriter(FIRST_FILE_BYTES);

/**
 * This thread's log columns, reset for each chunk: their buffers stop growing after the first (the columns are encoded
 * before the next chunk starts).
 */
let logRows: LogRows | undefined;

/** The logs of the chunk matching the task's filter, in order, as columns. */
function logColumns(store: Store, reader: StoreReader, task: ExportTask): { columns: ColumnData[]; rows: number } {
  if (logRows?.fits(task.hex, task.chainId)) logRows.reset();
  else logRows = new LogRows(task.hex, task.chainId);
  const rows = logRows;
  const selection = candidateQuery(store, task.addresses, task.topics);
  const scanBlock = bulkBlockScanner(reader, task.addresses, task.topics);
  for (let segment = segmentOf(task.from); segment <= segmentOf(task.to); segment++) {
    for (const n of candidateBlocks(store, segment, task.from, task.to, selection)) scanBlock(n, rows);
  }
  return { rows: rows.rows, columns: rows.finish() };
}

/** The header of canonical block `n`; a chunk's blocks are stored, so a missing one is a store fault. */
function header(reader: StoreReader, n: number) {
  const h = reader.header(n);
  if (h === undefined) throw new Error(`block ${n} is not in the store`);
  return h;
}

/** The chunk's blocks, transactions or receipts, as columns. */
function blockColumns(reader: StoreReader, task: ExportTask): { columns: ColumnData[]; rows: number } {
  switch (task.kind) {
    case 'blocks': {
      const rows = new BlockRows(task.hex, task.chainId);
      for (let n = task.from; n <= task.to; n++) rows.add(header(reader, n));
      return { rows: rows.rows, columns: rows.finish() };
    }
    case 'transactions': {
      const rows = new TransactionRows(task.hex, task.chainId);
      for (let n = task.from; n <= task.to; n++) {
        const h = header(reader, n);
        const receipts = reader.receipts(n);
        reader.transactions(n).forEach((tx, i) => rows.add(h, i, tx, receipts[i]!));
      }
      return { rows: rows.rows, columns: rows.finish() };
    }
    default: {
      const rows = new ReceiptRows(task.hex, task.chainId);
      for (let n = task.from; n <= task.to; n++) {
        const txs = reader.transactions(n);
        rows.addBlock(header(reader, n), reader.receipts(n), (i) => txs[i]!, reader.logs(n));
      }
      return { rows: rows.rows, columns: rows.finish() };
    }
  }
}

/**
 * Builds, encodes and writes one chunk to `task.path`; an unexpected failure comes back as `{ ok: false }`, never
 * thrown.
 */
export default function runExportTask(task: ExportTask): ExportResult {
  try {
    const { store, reader } = workerStore(task.dataDir);
    const { columns, rows } = task.kind === 'logs' ? logColumns(store, reader, task) : blockColumns(reader, task);
    const bytes = encodeParquet(columns, task.compression, file);
    writeFileSync(task.path, bytes);
    return { ok: true, bytes: bytes.length, rows };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

/**
 * The pool's start-up task, as the log engine's: each thread says it has loaded, then waits (bounded) for the others.
 */
export { ready } from '../logs/worker.js';
