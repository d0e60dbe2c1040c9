/**
 * `ethlogd generate`: writes a deterministic synthetic chain into a store.
 */
import { generateStore } from '../index.js';
import { integer, parse, positive, required } from './args.js';

/** Usage text of `generate`. */
export const GENERATE_USAGE = `Usage: ethlogd generate --out DIR --blocks N [--seed S] [--density D] [--no-pending]

Generates a deterministic, mainnet-like chain (same seed, same bytes) into the store in DIR.
Continues from the stored head when DIR already holds the start of the same chain.

Options:
  --out DIR        store directory (created if absent)                 required
  --blocks N       number of blocks                                    required
  --seed S         seed of the chain                                   default "ethlogd"
  --density D      1.0 = mainnet (~265 txs, ~500 logs per block)       default 1
  --no-pending     do not store a pending block
  -h, --help       this text`;

/** Runs `generate`. */
export async function generateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    out: { type: 'string' },
    blocks: { type: 'string' },
    seed: { type: 'string' },
    density: { type: 'string' },
    'no-pending': { type: 'boolean' },
  });
  if (values.help) {
    console.log(GENERATE_USAGE);
    return 0;
  }
  const out = required(values.out, 'out');
  const blocks = integer(required(values.blocks, 'blocks'), 'blocks', 0, 1, 100_000_000);
  const result = await generateStore(out, {
    blocks,
    seed: typeof values.seed === 'string' ? values.seed : 'ethlogd',
    density: positive(values.density, 'density', 1),
    pending: values['no-pending'] !== true,
    progress: true,
  });
  const rate = result.seconds > 0 ? Math.round(result.logs / result.seconds) : result.logs;
  console.log(`generated ${result.blocks} blocks, ${result.txs} transactions, ${result.logs} logs in ${result.seconds.toFixed(1)} s (${rate} logs/s) into ${out}`);
  return 0;
}
