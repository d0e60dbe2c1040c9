/**
 * The output formats of `ethlogd query logs`: JSON lines, one streamed JSON array, and CSV, each
 * framing logs one at a time so output can be written as matches are found.
 */
import { toRpcLog } from '../api/wire.js';
import { bytesToHex } from '../chain/hex.js';
import type { LogEntry } from '../chain/types.js';

/** The formats `query logs --format` accepts; the first is the default. */
export const OUTPUT_FORMATS = ['jsonl', 'json', 'csv'] as const;

/** One of OUTPUT_FORMATS. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The columns of the CSV format, in order (the header line). */
export const CSV_COLUMNS = [
  'blockNumber',
  'logIndex',
  'transactionIndex',
  'transactionHash',
  'blockHash',
  'blockTimestamp',
  'address',
  'topic0',
  'topic1',
  'topic2',
  'topic3',
  'data',
  'removed',
] as const;

/** Topic columns of a CSV row: the EVM's LOG0..LOG4 emit at most four topics. */
const CSV_TOPICS = 4;

/**
 * How one format frames a stream of logs. The head (the csv header, the array's "[") comes with the
 * first log, or with end() when there is none: output of a query that fails before its first log is empty.
 */
export interface LogFormatter {
  /** The whole text of one log (after the head for the first), so output that stops after any log stops between logs. */
  log(entry: LogEntry): string;
  /** The whole text of a run of logs given as JSON lines (as EthLogStore.logLines renders them); jsonl and json only. */
  lines(text: string): string;
  /** The text that completes the output: the tail, after the head when no log was written. */
  end(): string;
}

/** Whether `name` is one of OUTPUT_FORMATS. */
export function isOutputFormat(name: string): name is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(name);
}

/** A decimal number, or an empty cell for null. */
function decimal(n: number | null): string {
  return n === null ? '' : String(n);
}

/** 0x-hex bytes, or an empty cell for null or absent. */
function hexCell(bytes: Uint8Array | null | undefined): string {
  return bytes ? bytesToHex(bytes) : '';
}

/**
 * One CSV row (no line end) in CSV_COLUMNS order: decimal numbers, 0x-hex bytes, `true`/`false`,
 * empty cells for absent topics and a pending log's null positions. No cell can hold a comma, quote
 * or line break, so none is quoted.
 */
export function csvRow(entry: LogEntry): string {
  const topics: string[] = [];
  for (let i = 0; i < CSV_TOPICS; i++) topics.push(hexCell(entry.topics[i]));
  return [
    decimal(entry.blockNumber),
    decimal(entry.logIndex),
    decimal(entry.transactionIndex),
    hexCell(entry.transactionHash),
    hexCell(entry.blockHash),
    decimal(entry.blockTimestamp),
    bytesToHex(entry.address),
    ...topics,
    bytesToHex(entry.data),
    String(entry.removed),
  ].join(',');
}

/** The head, the text of one log and the tail of each format. */
const FRAMES: Record<OutputFormat, { head: string; body: (entry: LogEntry, first: boolean) => string; run?: (lines: string, first: boolean) => string; tail: (empty: boolean) => string }> = {
  jsonl: { head: '', body: (entry) => `${JSON.stringify(toRpcLog(entry))}\n`, run: (lines) => lines, tail: () => '' },
  json: {
    head: '[',
    body: (entry, first) => `${first ? '\n' : ',\n'}${JSON.stringify(toRpcLog(entry))}`,
    run: (lines, first) => `${first ? '\n' : ',\n'}${lines.slice(0, -1).replaceAll('\n', ',\n')}`,
    tail: (empty) => (empty ? ']\n' : '\n]\n'),
  },
  csv: { head: `${CSV_COLUMNS.join(',')}\n`, body: (entry) => `${csvRow(entry)}\n`, tail: () => '' },
};

/** A fresh formatter for one output in `format`. */
export function logFormatter(format: OutputFormat): LogFormatter {
  const { head, body, run, tail } = FRAMES[format];
  let empty = true;
  return {
    log: (entry) => {
      if (!empty) return body(entry, false);
      empty = false;
      return head + body(entry, true);
    },
    lines: (text) => {
      if (run === undefined) throw new Error(`the ${format} format takes logs one at a time`);
      if (!empty) return run(text, false);
      empty = false;
      return head + run(text, true);
    },
    end: () => (empty ? head + tail(true) : tail(false)),
  };
}
