/**
 * Ingest from the generator: logs/s into a fresh store, and bytes per log (the log data and its
 * indexes, and the whole store with transactions, headers and storage history).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateStore } from '../src/ingest/generateStore.js';
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

/** Generates `blocks` mainnet-density blocks into a temp store and measures rate and size. */
export async function measureIngest(blocks: number): Promise<Row[]> {
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
