/**
 * A log as a CSV row (`ethlogd query logs --format csv`): the fields of LOG_FIELDS (logFields.ts),
 * positions first and `topics` split into one column per topic.
 */
import { bytesToHex } from '../chain/hex.js';
import type { LogEntry } from '../chain/types.js';

/** The columns of the CSV format, in order (the header line): LOG_FIELDS, `topics` split in four. */
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
