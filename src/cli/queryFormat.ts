/**
 * The output formats of `ethlogd query logs`: JSON lines, one streamed JSON array, and CSV, each
 * framing logs one at a time so output can be written as matches are found.
 */
import type { LogEntry } from '../chain/types.js';
import { formatLog } from '../render/format.js';
import { CSV_COLUMNS, csvRow } from '../render/logCsv.js';

/** The formats `query logs --format` accepts; the first is the default. */
export const OUTPUT_FORMATS = ['jsonl', 'json', 'csv'] as const;

/** One of OUTPUT_FORMATS. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * How one format frames a stream of logs. The head (the csv header, the array's "[") comes with the
 * first log, or with end() when there is none: output of a query that fails before its first log is empty.
 */
export interface LogFormatter {
  /**
   * The whole text of one log (after the head for the first), so output that stops after any log stops between logs.
   */
  log(entry: LogEntry): string;
  /**
   * The whole text of a run of logs given as JSON lines (as EthLogStore.logLines renders them); jsonl and json only.
   */
  lines(text: string): string;
  /** The text that completes the output: the tail, after the head when no log was written. */
  end(): string;
}

/** Whether `name` is one of OUTPUT_FORMATS. */
export function isOutputFormat(name: string): name is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(name);
}

/** The head, the text of one log and the tail of each format. */
const FRAMES: Record<
  OutputFormat,
  {
    head: string;
    body: (entry: LogEntry, first: boolean) => string;
    run?: (lines: string, first: boolean) => string;
    tail: (empty: boolean) => string;
  }
> = {
  jsonl: { head: '', body: (entry) => `${JSON.stringify(formatLog(entry))}\n`, run: (lines) => lines, tail: () => '' },
  json: {
    head: '[',
    body: (entry, first) => `${first ? '\n' : ',\n'}${JSON.stringify(formatLog(entry))}`,
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
