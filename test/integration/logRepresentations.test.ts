/**
 * Every representation of a log carries the fields of LOG_FIELDS (src/render/logFields.ts) with the
 * same values. One generated chain (with a pending block) is read through each: the JSON lines the
 * engine's workers write from raw records (render/logJson.ts, through EthLogStore.logLines), the
 * protobuf messages they write (render/logProto.ts) decoded into LogEntry values
 * (render/logProtoDecode.ts, through EthLogStore.logs) and rendered as JSON-RPC objects
 * (render/format.ts formatLog), the JSON text written from decoded logs (render/format.ts
 * renderLogJson, over the store reader's blocks) and the CSV rows (render/logCsv.ts); each log
 * must be the same object in all of them, its keys LOG_FIELDS in order.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EthLogStore } from '#src/api/store.js';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { LogEntry } from '#src/chain/types.js';
import { formatLog, type LogContext, renderLogJson } from '#src/render/format.js';
import { CSV_COLUMNS, csvRow } from '#src/render/logCsv.js';
import { LOG_FIELDS } from '#src/render/logFields.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';

const BLOCKS = 120;
const OPTS = { blocks: BLOCKS, density: 0.04, seed: 'representations', pending: true, progress: false };

let dir: string;
let store: EthLogStore;
/** The logs through the protobuf path (LogEntry values) and through the JSON lines path (parsed). */
let entries: LogEntry[];
let lines: Record<string, unknown>[];
/** The logs as the reference renders them (referenceLogs). */
let reference: Record<string, unknown>[];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-representations-'));
  await generateStore(dir, OPTS);
  reference = await referenceLogs();
  store = EthLogStore.open(dir, { threads: 2 });
  const filter = { fromBlock: 0, toBlock: 'pending' };
  entries = [];
  for await (const entry of store.logs(filter)) entries.push(entry);
  lines = [];
  for await (const run of store.logLines(filter)) {
    for (const line of new TextDecoder().decode(run.text).split('\n'))
      if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
  }
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Every log of the generated chain as the reference renders it: renderLogJson over the reader's decoded blocks, the
 * pending block's last (read before EthLogStore opens the store: one process opens a store once).
 */
async function referenceLogs(): Promise<Record<string, unknown>[]> {
  const raw = openStore(dir);
  try {
    const reader = new StoreReader(raw);
    const out: Record<string, unknown>[] = [];
    for (let n = 0; n < BLOCKS; n++) {
      const header = reader.header(n)!;
      const txs = reader.txHashes(n);
      const ctx: LogContext = {
        blockHash: bytesToHex(header.hash),
        blockNumber: quantityToHex(n),
        blockTimestamp: quantityToHex(header.timestamp),
        txHash: (i) => bytesToHex(txs[i]!),
        removed: false,
        pending: false,
      };
      reader.logs(n).forEach((log, i) => out.push(JSON.parse(renderLogJson(log, i, ctx)) as Record<string, unknown>));
    }
    const pending = reader.pending();
    assert.ok(pending && pending.logs.length > 0, 'the generated pending block has logs');
    const ctx: LogContext = {
      blockHash: null,
      blockNumber: null,
      blockTimestamp: null,
      txHash: () => null,
      removed: false,
      pending: true,
    };
    pending.logs.forEach((log, i) => out.push(JSON.parse(renderLogJson(log, i, ctx)) as Record<string, unknown>));
    return out;
  } finally {
    await closeStore(raw);
  }
}

/** A CSV row read back into the JSON-RPC object it stands for. */
function fromCsv(row: string): Record<string, unknown> {
  const cells = Object.fromEntries(row.split(',').map((cell, i) => [CSV_COLUMNS[i], cell]));
  const quantity = (cell: string) => (cell === '' ? null : quantityToHex(Number(cell)));
  const bytes = (cell: string) => (cell === '' ? null : cell);
  return {
    address: cells.address,
    topics: [cells.topic0, cells.topic1, cells.topic2, cells.topic3].filter((t) => t !== ''),
    data: cells.data,
    blockNumber: quantity(cells.blockNumber!),
    transactionHash: bytes(cells.transactionHash!),
    transactionIndex: quantity(cells.transactionIndex!),
    blockHash: bytes(cells.blockHash!),
    blockTimestamp: quantity(cells.blockTimestamp!),
    logIndex: quantity(cells.logIndex!),
    removed: cells.removed === 'true',
  };
}

test('the chain has canonical and pending logs, the same number in every representation', () => {
  assert.ok(entries.length > 200, `${entries.length} logs`);
  assert.ok(
    entries.some((e) => e.blockNumber === null),
    'pending logs are included',
  );
  assert.equal(lines.length, entries.length);
  assert.equal(reference.length, entries.length);
});

test('every log is the same object in every representation, its keys LOG_FIELDS in order', () => {
  entries.forEach((entry, i) => {
    const rpc = formatLog(entry);
    assert.deepEqual(Object.keys(rpc), [...LOG_FIELDS], 'formatLog keys');
    assert.deepEqual(Object.keys(lines[i]!), [...LOG_FIELDS], 'raw-record JSON keys');
    assert.deepEqual(Object.keys(reference[i]!), [...LOG_FIELDS], 'renderLogJson keys');
    assert.deepEqual(lines[i], rpc, `log ${i}: raw-record JSON vs protobuf`);
    assert.deepEqual(reference[i], rpc, `log ${i}: renderLogJson vs protobuf`);
    assert.deepEqual(fromCsv(csvRow(entry)), rpc, `log ${i}: CSV vs protobuf`);
  });
});
