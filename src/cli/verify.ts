/**
 * `ethlogd verify`: checks a store's consistency (src/store/verify.ts) and lists what is wrong.
 */
import { EthLogStore } from '../api/store.js';
import { Progress } from '../ingest/progress.js';
import { readVerifiedMark, VERIFIED_MARK_FILE, writeVerifiedMark } from '../store/verifiedMark.js';
import type { VerifiedMark } from '../store/verify.js';
import { existingStore, parse } from './args.js';

/** Usage text of `verify`. */
export const VERIFY_USAGE = `Usage: ethlogd verify --data DIR [--full]

Checks the store in DIR: every block from earliest to head whole (header, hash index, parent link,
transactions and their hash index, logs, address table, logsBloom, storage history), the bloom rows
and address index of every complete segment, nothing indexed beyond the head, the markers in range.
Prints each problem and exits 1 when there is any. Opens the store read-only: a server or a writer
may keep running (the check reads one snapshot).

A check that finds nothing leaves its mark in DIR/${VERIFIED_MARK_FILE}; the next one checks only what
was written after it (the blocks after the marked one while it is still there, new runs, newly
complete segments; the recent indexes and the markers always). --full checks everything again.

Options:
  --data DIR     store directory                                       required
  --full         check every block, not only those written since the last check
  -h, --help     this text`;

/** Keeps the mark of a check that found nothing; a directory it cannot write to only costs the next check's time. */
function keepMark(dir: string, mark: VerifiedMark): void {
  try {
    writeVerifiedMark(dir, mark);
  } catch (error) {
    console.error(`verify: the mark of this check is not kept (${(error as Error).message}): the next check is full`);
  }
}

/** Runs `verify`. */
export async function verifyCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' }, full: { type: 'boolean' } });
  if (values.help) {
    console.log(VERIFY_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const store = EthLogStore.open(dir);
  try {
    const started = Date.now();
    let progress: Progress | undefined;
    const since = values.full === true ? undefined : readVerifiedMark(dir);
    const { blocks, from, problems, mark } = store.verify({
      since,
      onBlock: (checked, total) => {
        progress ??= new Progress(total, { enabled: true, label: 'verify' });
        progress.update({ blocks: checked, txs: 0, logs: 0 });
      },
    });
    progress?.finish();
    for (const problem of problems) console.log(problem);
    if (mark !== undefined) keepMark(dir, mark);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const found =
      problems.length === 0 ? 'no problems' : problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    const earliest = store.meta()?.earliest;
    const checked =
      from !== undefined && earliest !== undefined && from > earliest
        ? ` (blocks ${from} on; ${earliest}..${from - 1} were checked before: --full checks them again)`
        : '';
    console.log(`verified ${blocks} blocks${checked} in ${seconds} s: ${found}`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}
