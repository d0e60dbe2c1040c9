/**
 * `ethlogd bloombits`: rebuilds the bit-sliced bloom index of every complete segment of a store.
 */
import { closeStore, openStore } from '../store/schema.js';
import { StoreWriter } from '../store/writer.js';
import { parse, required } from './args.js';

/** Usage text of `bloombits`. */
export const BLOOMBITS_USAGE = `Usage: ethlogd bloombits --data DIR

Rewrites the bloom-bits rows of every complete segment from the stored headers' logsBloom
(for a store written before the index existed, or to repair it). One write transaction per segment.

Options:
  --data DIR     store directory                                       required
  -h, --help     this text`;

/** Runs `bloombits`. */
export async function bloombitsCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' } });
  if (values.help) {
    console.log(BLOOMBITS_USAGE);
    return 0;
  }
  const store = openStore(required(values.data, 'data'));
  try {
    const started = Date.now();
    const segments = new StoreWriter(store).rebuildBloomBits();
    console.log(`rebuilt the bloom bits of ${segments} segments in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    await closeStore(store);
  }
}
