/**
 * The output formats of `query logs` (src/cli/queryFormat.ts): jsonl lines are formatLog's objects,
 * the json array parses (empty, one log, several), csv rows (src/render/logCsv.ts) hold every field in CSV_COLUMNS
 * order
 * with empty cells for absent topics and a pending log's null positions, and nothing is written
 * ahead of the first log except through end().
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isOutputFormat, logFormatter, OUTPUT_FORMATS } from '#src/cli/queryFormat.js';
import { bytesToHex, type LogEntry, toRpcLog } from '#src/index.js';
import { CSV_COLUMNS, csvRow } from '#src/render/logCsv.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

/** A canonical log with `topics` topics. */
function log(topics: number, logIndex = 3): LogEntry {
  return {
    address: bytes(20, 0xaa),
    topics: Array.from({ length: topics }, (_, i) => bytes(32, i + 1)),
    data: Uint8Array.of(0, 1, 0xff),
    blockNumber: 1234,
    blockHash: bytes(32, 0xbb),
    blockTimestamp: 1_700_000_000,
    transactionHash: bytes(32, 0xcc),
    transactionIndex: 7,
    logIndex,
    removed: false,
  };
}

/** A log of the pending block: positions null. */
const pending: LogEntry = {
  ...log(1),
  blockNumber: null,
  blockHash: null,
  blockTimestamp: null,
  transactionHash: null,
  transactionIndex: null,
  logIndex: null,
};

/** The whole output of `format` for `logs`. */
function render(format: (typeof OUTPUT_FORMATS)[number], logs: LogEntry[]): string {
  const formatter = logFormatter(format);
  return logs.map((l) => formatter.log(l)).join('') + formatter.end();
}

describe('query logs formats', () => {
  test('the format names', () => {
    assert.deepEqual([...OUTPUT_FORMATS], ['jsonl', 'json', 'csv']);
    for (const name of OUTPUT_FORMATS) assert.ok(isOutputFormat(name));
    assert.ok(!isOutputFormat('xml'));
  });

  test('jsonl: one line per log, exactly toRpcLog as JSON; nothing for no logs', () => {
    const logs = [log(0), log(4, 4), pending];
    assert.equal(render('jsonl', logs), logs.map((l) => JSON.stringify(toRpcLog(l)) + '\n').join(''));
    assert.equal(render('jsonl', []), '');
  });

  test('json: a valid array for zero, one and several logs, each element toRpcLog', () => {
    for (const logs of [[], [log(2)], [log(0), log(4, 4), pending]]) {
      const text = render('json', logs);
      assert.ok(text.endsWith('\n'));
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(logs.map(toRpcLog))));
    }
    assert.equal(render('json', []), '[]\n');
  });

  test('json: output cut after any log is the start of the array with whole elements', () => {
    const formatter = logFormatter('json');
    const first = formatter.log(log(1));
    const second = formatter.log(log(2, 4));
    assert.deepEqual(JSON.parse(first + formatter.end()), [JSON.parse(JSON.stringify(toRpcLog(log(1))))]);
    assert.ok(second.startsWith(',\n'));
    assert.equal(JSON.parse(first + second + formatter.end()).length, 2);
  });

  test('csv: the header, then one row per log with every column', () => {
    const lines = render('csv', [log(2), pending]).split('\n');
    assert.equal(lines.length, 4);
    assert.equal(lines[0], CSV_COLUMNS.join(','));
    assert.equal(lines[3], '');
    const row = Object.fromEntries(lines[1]!.split(',').map((cell, i) => [CSV_COLUMNS[i], cell]));
    assert.deepEqual(row, {
      blockNumber: '1234',
      logIndex: '3',
      transactionIndex: '7',
      transactionHash: bytesToHex(bytes(32, 0xcc)),
      blockHash: bytesToHex(bytes(32, 0xbb)),
      blockTimestamp: '1700000000',
      address: bytesToHex(bytes(20, 0xaa)),
      topic0: bytesToHex(bytes(32, 1)),
      topic1: bytesToHex(bytes(32, 2)),
      topic2: '',
      topic3: '',
      data: '0x0001ff',
      removed: 'false',
    });
    const cells = lines[2]!.split(',');
    assert.equal(cells.length, CSV_COLUMNS.length);
    assert.deepEqual(cells.slice(0, 6), ['', '', '', '', '', '']);
    assert.equal(cells[CSV_COLUMNS.indexOf('topic0')], bytesToHex(bytes(32, 1)));
  });

  test('csv: four topics and a removed log fill the last columns; no logs is the header alone', () => {
    const cells = csvRow({ ...log(4), removed: true }).split(',');
    assert.deepEqual(
      cells.slice(7, 11),
      [1, 2, 3, 4].map((i) => bytesToHex(bytes(32, i))),
    );
    assert.equal(cells.at(-1), 'true');
    assert.equal(render('csv', []), CSV_COLUMNS.join(',') + '\n');
  });
});
