/**
 * Ingest from the generator: logs/s into a fresh store, and bytes per log (the log data and its
 * indexes, and the whole store with transactions, headers and storage history).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateStore } from '../src/synth/generateStore.js';
import { generateChain } from '../src/synth/generator.js';
import { StoreWriter } from '../src/store/writer.js';
import { closeStore, openStore, type Store } from '../src/store/schema.js';
import type { Row } from './report.js';

/** The databases that hold logs and their indexes. */
const LOG_DATABASES = ['logs', 'logAddresses', 'bloomBits', 'addressSegments'] as const;

interface Stats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

function bytesOf(store: Store, name: (typeof LOG_DATABASES)[number]): number {
  const s = store[name].getStats() as Stats;
  return (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize;
}

/** Blocks per write transaction of the store-writes-alone measurement: generateStore's default batch. */
const WRITE_BATCH_BLOCKS = 64;

/** Appends pre-generated mainnet-density blocks into a fresh store: the store's write path alone, in logs/s. */
async function measureWrites(blocks: number): Promise<number> {
  const chain = [...generateChain({ blocks, seed: 'ingest-bench-writes', density: 1 })];
  const logs = chain.reduce((sum, b) => sum + b.logs.length, 0);
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-write-bench-'));
  const store = openStore(dir);
  try {
    const writer = new StoreWriter(store);
    const started = performance.now();
    for (let i = 0; i < chain.length; i += WRITE_BATCH_BLOCKS) {
      writer.append({ blocks: chain.slice(i, i + WRITE_BATCH_BLOCKS), chainId: i === 0 ? 1n : undefined });
    }
    return logs / ((performance.now() - started) / 1000);
  } finally {
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Generates `blocks` mainnet-density blocks into a temp store and measures rate and size, and the write path alone. */
export async function measureIngest(blocks: number): Promise<Row[]> {
  const writes = await measureWrites(Math.max(1, Math.floor(blocks / 3)));
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-ingest-bench-'));
  try {
    const result = await generateStore(dir, { blocks, seed: 'ingest-bench', density: 1, pending: false, progress: false });
    const store = openStore(dir, { readOnly: true });
    const logBytes = LOG_DATABASES.reduce((sum, name) => sum + bytesOf(store, name), 0);
    await closeStore(store);
    const fileBytes = statSync(join(dir, 'data.mdb')).size;
    return [
      {
        figure: `ingest from the generator (${blocks} blocks, ${result.logs} logs, one write transaction per 64 blocks)`,
        ours: result.logs / result.seconds,
        unit: 'logs/s',
        target: { kind: 'min', value: 1_000_000, text: '≥ 1M logs/s' },
        note: 'includes generating the chain (keccak of every tx and header, RLP) in the same thread',
      },
      {
        figure: `ingest: the store's write path alone (pre-generated mainnet blocks appended ${WRITE_BATCH_BLOCKS} per transaction)`,
        ours: writes,
        unit: 'logs/s',
        target: { kind: 'min', value: 1_000_000, text: '≥ 1M logs/s' },
      },
      {
        figure: 'store size per log: logs and their indexes (logs, address tables, bloom bits, address index)',
        ours: logBytes / result.logs,
        unit: 'B/log',
        target: { kind: 'max', value: 120, text: '≤ 120 B/log' },
      },
      {
        figure: 'store size per log: whole file (with transactions, headers, storage history)',
        ours: fileBytes / result.logs,
        unit: 'B/log',
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
