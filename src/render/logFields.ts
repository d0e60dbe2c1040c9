/**
 * The one list of a log's fields. Every representation of a log carries exactly these, with the
 * same values: the JSON-RPC object (format.ts formatLog; the keys in this order), the JSON text
 * written from a decoded log (format.ts renderLogJson) and from a raw record (logJson.ts), the
 * protobuf message (logProto.ts, decoded by logProtoDecode.ts; ethlogd.proto's Log), and the CSV
 * row (logCsv.ts: `topics` split into topic0..topic3). test/integration/logRepresentations.test.ts
 * renders one chain's logs through each and checks them field by field against this list. The
 * Parquet export's columns (export/logRows.ts, cryo's names, plus a few of its own) are held equal
 * to eth_getLogs by test/integration/export.test.ts.
 */

/** A log's fields, in the order eth_getLogs renders them (geth's, plus blockTimestamp). */
export const LOG_FIELDS = [
  'address',
  'topics',
  'data',
  'blockNumber',
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'blockTimestamp',
  'logIndex',
  'removed',
] as const;

/** One of LOG_FIELDS. */
export type LogField = (typeof LOG_FIELDS)[number];
