/**
 * The export options record: the options two records differ in, named as the command line names
 * the files' options, and a record read back as written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type ExportRecord,
  exportRecord,
  readRecord,
  recordDifferences,
  recordName,
  writeRecord,
} from '#src/export/optionsRecord.js';

const base: ExportRecord = exportRecord({
  chunkBlocks: 1000,
  compression: 'zstd',
  hex: false,
  addresses: [],
  topics: [],
});

test('recordDifferences names each option the files were written with that this run changes', () => {
  const cases: [Partial<ExportRecord>, string[]][] = [
    [{}, []],
    [{ hex: true }, ['--hex']],
    [{ chunkBlocks: 10 }, ['--chunk-blocks 10']],
    [{ compression: 'snappy' }, ['--compression snappy']],
    [{ addresses: ['0x01'] }, ['--address 0x01']],
    [{ topics: [null, ['0x02']] }, ['topics [null,["0x02"]]']],
    [{ hex: true, chunkBlocks: 5 }, ['--chunk-blocks 5', '--hex']],
  ];
  for (const [files, expected] of cases)
    assert.deepEqual(recordDifferences({ ...base, ...files }, base), expected, JSON.stringify(files));
  assert.deepEqual(recordDifferences(base, { ...base, hex: true }), ['no --hex']);
  assert.deepEqual(recordDifferences(base, { ...base, addresses: ['0x01'] }), ['no address']);
});

test('a record reads back as written; a missing or foreign file reads as none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-record-'));
  try {
    const record = exportRecord({
      chunkBlocks: 7,
      compression: 'lz4',
      hex: true,
      addresses: [new Uint8Array(20).fill(1)],
      topics: [null, [new Uint8Array(32)]],
    });
    assert.equal(await readRecord(dir, 'ethereum', 'logs'), undefined);
    await writeRecord(dir, 'ethereum', 'logs', record);
    assert.deepEqual(await readRecord(dir, 'ethereum', 'logs'), record);
    assert.equal(await readRecord(dir, 'ethereum', 'blocks'), undefined, 'one record per datatype');
    writeFileSync(join(dir, recordName('ethereum', 'blocks')), 'not json');
    assert.equal(await readRecord(dir, 'ethereum', 'blocks'), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
