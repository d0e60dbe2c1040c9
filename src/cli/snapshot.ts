/**
 * `ethlogd snapshot`: a consistent, compacted copy of a store (src/store/snapshot.ts), taken while
 * ingest and serve keep running, to seed a replica.
 */
import { SnapshotTargetError, snapshotStore } from '../store/snapshot.js';
import { existingStore, parse, required, UsageError } from './args.js';

/** Usage text of `snapshot`. */
export const SNAPSHOT_USAGE = `Usage: ethlogd snapshot --data DIR --out DIR2

Copies the store in DIR into the new directory DIR2: one committed state (LMDB copies it from a
single read transaction), compacted (free pages dropped), while writers (ingest, generate) and
servers keep running on DIR. The copy is written beside DIR2 and renamed to it once complete and
flushed, so DIR2 either does not exist or holds a whole store. It passes ethlogd verify, serves at
once, and ingest --follow (or serve --follow-rpc) continues it from its last committed block. It
keeps DIR's API keys.

Options:
  --data DIR     store directory to copy                               required
  --out DIR2     new directory for the copy (must not exist)           required
  -h, --help     this text`;

/** Runs `snapshot`. */
export async function snapshotCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' }, out: { type: 'string' } });
  if (values.help) {
    console.log(SNAPSHOT_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const out = required(values.out, 'out');
  const started = performance.now();
  let result;
  try {
    result = await snapshotStore(dir, out);
  } catch (error) {
    if (error instanceof SnapshotTargetError) throw new UsageError(error.message);
    throw error;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const head = result.head === undefined ? 'no block yet' : `head ${result.head}`;
  console.log(`snapshot of ${dir} in ${out}: ${head}, ${(result.bytes / 1048576).toFixed(1)} MiB in ${seconds} s`);
  return 0;
}
