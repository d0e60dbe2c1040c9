/**
 * The Piscina worker task: scans a run of blocks for a filter. Per segment it selects candidate
 * blocks from the bloom index, rejects false positives cheaply by the block's address table, then
 * matches exactly and renders the matches as JSON text, transferred back without a copy.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { encodeBlockKey } from '../store/keys.js';
import { decodeLogs, logsRecordHasAddress } from '../store/logsRecord.js';
import { StoreReader } from '../store/reader.js';
import { openStore, type Store } from '../store/schema.js';
import { segmentOf } from '../store/segments.js';
import { renderCanonicalMatches } from './blockLogs.js';
import { candidateBlocks, filterBits } from './candidates.js';
import { compileFilter } from './filter.js';
import type { ScanResult, ScanStop, ScanTask } from './task.js';

/** How many candidate blocks pass between deadline and cancellation checks. */
const CHECK_EVERY = 64;

const encoder = new TextEncoder();

const stores = new Map<string, { store: Store; reader: StoreReader }>();

function storeFor(dataDir: string) {
  let entry = stores.get(dataDir);
  if (!entry) {
    const store = openStore(dataDir, { readOnly: true });
    entry = { store, reader: new StoreReader(store) };
    stores.set(dataDir, entry);
  }
  return entry;
}

function scan(task: ScanTask): ScanResult {
  const { store, reader } = storeFor(task.dataDir);
  const bits = filterBits(task.addresses, task.topics);
  const compiled = compileFilter(task);
  const fragments: string[] = [];
  const blockCounts: number[] = [];
  let stop: ScanStop = 'done';
  let candidates = 0;
  outer: for (let segment = segmentOf(task.from); segment <= segmentOf(task.to); segment++) {
    const blocks = candidateBlocks(store, segment, task.from, task.to, bits);
    for (const n of blocks) {
      if (candidates++ % CHECK_EVERY === 0) {
        if (Atomics.load(task.cancel, 0) !== 0) {
          stop = 'cancelled';
          break outer;
        }
        if (Date.now() > task.deadline) {
          stop = 'deadline';
          break outer;
        }
      }
      const raw = store.logs.getBinaryFast(encodeBlockKey(n));
      if (raw === undefined) continue;
      if (task.addresses.length > 0 && !logsRecordHasAddress(raw, task.addresses)) continue;
      const matches = renderCanonicalMatches(reader, n, decodeLogs(raw), compiled);
      if (matches.length === 0) continue;
      for (const m of matches) fragments.push(m);
      blockCounts.push(n, matches.length);
      if (fragments.length > task.budget) {
        stop = 'budget';
        break outer;
      }
    }
  }
  const json = encoder.encode(fragments.join(','));
  return { ok: true, json, count: fragments.length, blockCounts: new Float64Array(blockCounts), stop, candidates };
}

/**
 * Runs a scan task; the JSON and counts buffers are transferred, not copied. An unexpected failure
 * comes back as `{ ok: false }`, never as a thrown error.
 */
export default function runScanTask(task: ScanTask): ScanResult | object {
  try {
    const result = scan(task);
    if (!result.ok) return result;
    return move({ [transferableSymbol]: [result.json.buffer, result.blockCounts.buffer], [valueSymbol]: result });
  } catch (error) {
    return { ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
