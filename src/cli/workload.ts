/**
 * `ethlogd workload`: a reproducible request corpus drawn from a store's real content
 * (src/workload/), written as JSONL for `ethlogd loadtest` and as a wrk script.
 */
import { rename, writeFile } from 'node:fs/promises';
import { EthLogStore } from '../api/store.js';
import { sampleStore } from '../workload/corpus.js';
import { corpusJsonl, drawCorpus, MIXES, MixError, resolveMix } from '../workload/mixes.js';
import { SHAPES, WINDOW_LOGS } from '../workload/shapes.js';
import { wrkScript } from '../workload/wrkLua.js';
import { existingStore, integer, parse, required, UsageError } from './args.js';

/** Default requests of a corpus: enough distinct bodies that a run of minutes seldom repeats one per connection. */
const DEFAULT_COUNT = 10_000;
/** Most requests of a corpus: wrk holds every body in memory, and loads them before it starts. */
const MAX_COUNT = 1_000_000;
/** Worker threads reading the sampled logs: a corpus reads a few hundred blocks' logs, two threads suffice. */
const SAMPLE_THREADS = 2;

/** The wrk script's path beside a corpus file: FILE.lua (FILE without its .jsonl). */
export function luaPath(out: string): string {
  return `${out.replace(/\.jsonl$/, '')}.lua`;
}

/** Usage text of `workload`. */
export const WORKLOAD_USAGE = `Usage: ethlogd workload --data DIR --out FILE
                        [--mix realtime|backfill|explorer|all|MIX.json] [--count N] [--seed S]

Draws a reproducible request corpus from the store in DIR (read-only: a server may keep serving
it): real block numbers and hashes, transactions, receipts, slots blocks wrote, and eth_getLogs
filters for busy and rare addresses and topics over windows sized to the store's density (about
${WINDOW_LOGS} logs each, under the 10,000-result cap). Writes FILE as JSONL, one
{"shape": NAME, "body": JSON-RPC call or batch} a line (for ethlogd loadtest), and the same
bodies as a wrk script, ${luaPath('FILE.jsonl')} (wrk -s FILE.lua URL). The same store, mix, count
and seed give the same corpus. Bodies are distinct where the store holds enough to draw from, so
the server's answer cache does not answer most of them.

Mixes:
  realtime   an indexer following the head: eth_blockNumber, the latest blocks, their logs and receipts
  backfill   an indexer catching up: ranged eth_getLogs by address, topic or none, blocks, receipts
  explorer   a wallet or explorer: transactions, receipts, blocks, storage, batches
  all        every shape alike
  MIX.json   a JSON object of weights by shape, e.g. {"tx_by_hash": 3, "logs_range": 1}

Shapes:
${SHAPES.map((s) => `  ${s.name.padEnd(24)}${s.description}`).join('\n')}

Options:
  --data DIR     store directory                                       required
  --out FILE     corpus file (FILE.lua beside it)                      required
  --mix M        which requests, how often                             default realtime
  --count N      requests in the corpus                                default ${DEFAULT_COUNT}
  --seed S       seed of the draws                                     default "ethlogd"
  -h, --help     this text`;

/** Runs `workload`. */
export async function workloadCommand(argv: string[]): Promise<number> {
  const text = { type: 'string' } as const;
  const { values } = parse(argv, { data: text, out: text, mix: text, count: text, seed: text });
  if (values.help) {
    console.log(WORKLOAD_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const out = required(values.out, 'out');
  const mixName = typeof values.mix === 'string' ? values.mix : 'realtime';
  const count = integer(values.count, 'count', DEFAULT_COUNT, 1, MAX_COUNT);
  const seed = typeof values.seed === 'string' ? values.seed : 'ethlogd';
  let mix;
  try {
    mix = resolveMix(mixName);
  } catch (error) {
    if (error instanceof MixError) throw new UsageError(error.message);
    throw error;
  }

  const store = EthLogStore.open(dir, { threads: SAMPLE_THREADS });
  let sample;
  try {
    sample = await sampleStore(store, seed);
  } finally {
    await store.close();
  }
  const { requests, missing } = drawCorpus(sample, mix, count, seed);
  if (missing.length > 0) {
    console.error(`ethlogd workload: the store holds nothing for ${missing.join(', ')}: left out of the mix`);
  }
  if (requests.length === 0) throw new Error(`the store holds nothing any shape of the mix asks about`);
  const name = Object.hasOwn(MIXES, mixName) ? mixName : 'custom';
  // Each file is written beside its name and renamed, so a reader never sees half a corpus.
  await writeFile(`${out}.tmp`, corpusJsonl(requests));
  await rename(`${out}.tmp`, out);
  const lua = luaPath(out);
  await writeFile(`${lua}.tmp`, wrkScript(requests, name));
  await rename(`${lua}.tmp`, lua);
  const shapes = new Map<string, number>(SHAPES.map((shape) => [shape.name, 0]));
  for (const r of requests) shapes.set(r.shape, shapes.get(r.shape)! + 1);
  const density = `${sample.logsPerBlock.toFixed(1)} logs a block sampled`;
  const blocks = `blocks ${sample.earliest}–${sample.head}`;
  console.log(`${requests.length} requests (mix ${name}) from ${blocks} (${density}) in ${out} and ${lua}`);
  console.log(
    [...shapes]
      .filter(([, n]) => n > 0)
      .map(([shape, n]) => `  ${shape} ${n}`)
      .join('\n'),
  );
  return 0;
}
