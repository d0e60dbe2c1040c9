/**
 * `ethlogd generate`: writes a deterministic synthetic chain into a store, or extends one it made.
 */
import { defaultGenerateThreads } from '../synth/blockThreads.js';
import { DEFAULT_BATCH_BLOCKS, DEFAULT_BATCH_BYTES, generateStore } from '../synth/generateStore.js';
import { GenerateRefusedError } from '../synth/provenance.js';
import { integer, parse, positive, required, UsageError } from './args.js';
import { busiestHint } from './busiestHint.js';

/**
 * Most generating threads: far more than any machine's cores, a bound on a typo's cost (each thread holds the world,
 * ~20 MB).
 */
const MAX_THREADS = 256;

/**
 * Most blocks per write transaction one may ask for: a bound on a typo's cost (a transaction's records are capped at
 * DEFAULT_BATCH_BYTES anyway).
 */
const MAX_BATCH_BLOCKS = 1_000_000;

/** Usage text of `generate`. */
export const GENERATE_USAGE =
  `Usage: ethlogd generate --out DIR --blocks N [--seed S] [--density D] [--threads T] ` +
  `[--batch-blocks B] [--no-pending]
                        [--chain ethereum|op]

Generates a deterministic, mainnet-like chain of N blocks (same seed and density, same bytes) into
the store in DIR, then names its busiest contracts with a ready eth_getLogs example. A block's fork
depends on its number alone: London 0–7, Shanghai 8–15, Cancun 16–23, Prague from 24 on.

A store this command made with the same seed and density is extended to N blocks, with the pending
block of its new head (N then 2N blocks give the same store as 2N at once); one holding N blocks
already is left as it is (exit 0). Refused, changing nothing (exit 2, saying what to do): a store of
another seed or density, one holding more than N blocks, and one this version of generate did not
make (an ingested store, or one of an older chain version).

Options:
  --out DIR        store directory (created if absent)                 required
  --blocks N       number of blocks of the chain                       required
  --seed S         seed of the chain                                   default "ethlogd"
  --density D      1.0 = mainnet (~265 txs, ~500 logs per block)       default 1
  --threads T      worker threads building blocks (0: the writer's)   ` +
  `default ${defaultGenerateThreads()} (the cores; 0 on one core)
  --batch-blocks B most blocks per write transaction                  ` +
  `default ${DEFAULT_BATCH_BLOCKS} (fewer past ${DEFAULT_BATCH_BYTES / 2 ** 20} MiB of records)
  --no-pending     do not store a pending block
  --chain KIND     ethereum, or op: an OP-stack-like chain (an L1-attributes deposit first in every
                   block, user deposits, L1 fee fields on receipts)   default ethereum
  -h, --help       this text`;

/** Runs `generate`. */
export async function generateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    out: { type: 'string' },
    blocks: { type: 'string' },
    seed: { type: 'string' },
    density: { type: 'string' },
    threads: { type: 'string' },
    'batch-blocks': { type: 'string' },
    'no-pending': { type: 'boolean' },
    chain: { type: 'string' },
  });
  if (values.help) {
    console.log(GENERATE_USAGE);
    return 0;
  }
  const out = required(values.out, 'out');
  const blocks = integer(required(values.blocks, 'blocks'), 'blocks', 0, 1, 100_000_000);
  const seed = typeof values.seed === 'string' ? values.seed : 'ethlogd';
  const density = positive(values.density, 'density', 1);
  const threads = integer(values.threads, 'threads', defaultGenerateThreads(), 0, MAX_THREADS);
  const batchBlocks = integer(values['batch-blocks'], 'batch-blocks', DEFAULT_BATCH_BLOCKS, 1, MAX_BATCH_BLOCKS);
  if (values.chain !== undefined && values.chain !== 'ethereum' && values.chain !== 'op')
    throw new UsageError('--chain must be ethereum or op');
  const chain = values.chain === 'op' ? ('op' as const) : undefined;
  try {
    const result = await generateStore(out, {
      blocks,
      seed,
      density,
      chain,
      threads,
      batchBlocks,
      pending: values['no-pending'] !== true,
      progress: true,
    });
    if (result.blocks === 0) {
      console.log(
        `the store at ${out} already holds blocks ${result.earliest}–${result.head} of this chain ` +
          `(--seed ${JSON.stringify(seed)} --density ${density}): nothing to add`,
      );
      return 0;
    }
    const rate = Math.round(result.logs / Math.max(result.seconds, 1e-9));
    const writeRate = Math.round(result.logs / Math.max(result.writeSeconds, 1e-9));
    const from = result.head - result.blocks + 1;
    console.log(
      `generated ${result.blocks} blocks, ${result.txs} transactions, ${result.logs} logs ` +
        `in ${result.seconds.toFixed(1)} s ` +
        `(${rate} logs/s; the writer's transactions ${result.writeSeconds.toFixed(1)} s, ${writeRate} logs/s) ` +
        `into ${out} (blocks ${from}–${result.head})`,
    );
    for (const line of busiestHint(result)) console.log(line);
    return 0;
  } catch (error) {
    if (!(error instanceof GenerateRefusedError)) throw error;
    console.error(`ethlogd generate: ${error.message}`);
    return 2;
  }
}
