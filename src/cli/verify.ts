/**
 * `ethlogd verify`: checks a store's consistency (src/store/verify.ts) and lists what is wrong.
 */
import { EthLogStore } from '../api/store.js';
import { Progress } from '../ingest/progress.js';
import { existingStore, parse } from './args.js';

/** Usage text of `verify`. */
export const VERIFY_USAGE = `Usage: ethlogd verify --data DIR

Checks the store in DIR: every block from earliest to head whole (header, hash index, parent link,
transactions and their hash index, logs, address table, logsBloom, storage history), the bloom rows
and address index of every complete segment, nothing indexed beyond the head, the markers in range.
Prints each problem and exits 1 when there is any. Opens the store read-only: a server or a writer
may keep running (the check reads one snapshot).

Options:
  --data DIR     store directory                                       required
  -h, --help     this text`;

/** Runs `verify`. */
export async function verifyCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' } });
  if (values.help) {
    console.log(VERIFY_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const store = EthLogStore.open(dir);
  try {
    const started = Date.now();
    let progress: Progress | undefined;
    const { blocks, problems } = store.verify((checked, total) => {
      progress ??= new Progress(total, { enabled: true, label: 'verify' });
      progress.update({ blocks: checked, txs: 0, logs: 0 });
    });
    progress?.finish();
    for (const problem of problems) console.log(problem);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const found =
      problems.length === 0 ? 'no problems' : problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    console.log(`verified ${blocks} blocks in ${seconds} s: ${found}`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}
