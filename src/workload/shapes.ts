/**
 * The request shapes of a workload: every shape of the small-requests and mainnet-traffic
 * benchmarks, each drawing a JSON-RPC call from a store's sample (corpus.ts): blocks by number and
 * hash, transactions, receipts, storage at written slots, eth_getLogs by block hash, over the last
 * blocks and over windows sized to the store's density for busy and rare addresses and topics, and
 * batches of point lookups.
 */
import { MAX_LOG_RESULTS } from '../config.js';
import type { Random } from '../synth/random.js';
import { type Emitter, RECENT_BLOCKS, type SampledBlock, type StoreSample } from './corpus.js';

/** A JSON-RPC call without its envelope. */
export interface Call {
  method: string;
  params: unknown[];
}

/**
 * Logs a ranged eth_getLogs of a workload aims at: a fifth of the result cap, so a window whose
 * density is several times the sample's still answers instead of hitting the cap.
 */
export const WINDOW_LOGS = Math.floor(MAX_LOG_RESULTS / 5);
/** Calls in a batch shape: a wallet or explorer page's lookups sent at once. */
export const BATCH_CALLS = 10;
/** Emitters counted as busy (most logs) and as rare (fewest logs) in the sample. */
const EMITTERS = 16;

/** A shape: its name, what it asks, and how it draws a call (undefined when the store has nothing for it). */
export interface Shape {
  name: string;
  description: string;
  /** One call (or a batch); undefined when the sample holds nothing this shape can ask about. */
  draw(random: Random, sample: StoreSample): Call | Call[] | undefined;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const pick = <T>(random: Random, items: readonly T[]): T | undefined =>
  items.length === 0 ? undefined : items[random.int(0, items.length - 1)];
const call = (method: string, ...params: unknown[]): Call => ({ method, params });
const txOf = (random: Random, blocks: SampledBlock[]) =>
  pick(
    random,
    blocks.filter((b) => b.txHashes.length > 0),
  );
const busy = (emitters: Emitter[]) => emitters.slice(0, EMITTERS);
const rare = (emitters: Emitter[]) => emitters.slice(-EMITTERS).reverse();

/** A block range as eth_getLogs takes it. */
type Range = { fromBlock: string; toBlock: string };

/**
 * A window of the chain expected to hold about WINDOW_LOGS logs at `logsPerBlock`: as many blocks
 * as that takes (at least one, at most the chain), starting at a random block.
 */
export function window(random: Random, sample: StoreSample, logsPerBlock: number): Range {
  const chain = sample.head - sample.earliest + 1;
  const span = Math.max(1, Math.min(chain, logsPerBlock > 0 ? Math.floor(WINDOW_LOGS / logsPerBlock) : chain));
  const from = random.int(sample.earliest, sample.head - span + 1);
  return { fromBlock: hex(from), toBlock: hex(from + span - 1) };
}

/** An emitter's filter over a window sized to its density in the sample. */
function emitterRange(
  random: Random,
  sample: StoreSample,
  emitter: Emitter | undefined,
  filter: (key: string) => Record<string, unknown>,
): Call | undefined {
  if (emitter === undefined) return undefined;
  const range = window(random, sample, emitter.logs / Math.max(1, sample.logBlocks));
  return call('eth_getLogs', { ...range, ...filter(emitter.key) });
}

const byAddress = (address: string) => ({ address });
const byTopic = (topic: string) => ({ topics: [topic] });
const byPair = (pair: string) => {
  const [address, topic] = pair.split(' ');
  return { address, topics: [topic] };
};

/** The last `blocks` blocks as a filter range. */
const last = (sample: StoreSample, blocks: number): Range => ({
  fromBlock: hex(Math.max(sample.earliest, sample.head - blocks + 1)),
  toBlock: hex(sample.head),
});

/** The point lookups a batch draws from. */
const BATCHED = ['block_by_number', 'tx_by_hash', 'receipt', 'storage', 'logs_block_hash'];

/** Every shape, in the order reports list them. */
export const SHAPES: readonly Shape[] = [
  {
    name: 'eth_blockNumber',
    description: "eth_blockNumber, a realtime loop's poll",
    draw: () => call('eth_blockNumber'),
  },
  {
    name: 'block_latest',
    description: 'eth_getBlockByNumber("latest", false)',
    draw: () => call('eth_getBlockByNumber', 'latest', false),
  },
  {
    name: 'recent_block',
    description: `eth_getBlockByNumber of one of the last ${RECENT_BLOCKS} blocks (hashes)`,
    draw: (r, s) => {
      const b = pick(r, s.recent);
      return b && call('eth_getBlockByNumber', hex(b.number), false);
    },
  },
  {
    name: 'recent_logs_block_hash',
    description: 'eth_getLogs {blockHash} of a recent block',
    draw: (r, s) => {
      const b = pick(r, s.recent);
      return b && call('eth_getLogs', { blockHash: b.hash });
    },
  },
  {
    name: 'recent_logs_address',
    description: 'eth_getLogs over the last 10 blocks, one address that emitted there',
    draw: (r, s) => {
      const e = pick(r, s.recentAddresses);
      return e && call('eth_getLogs', { ...last(s, 10), address: e.key });
    },
  },
  {
    name: 'recent_logs_pair',
    description: 'eth_getLogs over the last 100 blocks, address + topic0',
    draw: (r, s) => {
      const e = pick(r, s.recentPairs);
      return e && call('eth_getLogs', { ...last(s, 100), ...byPair(e.key) });
    },
  },
  {
    name: 'recent_block_receipts',
    description: 'eth_getBlockReceipts of a recent block',
    draw: (r, s) => {
      const b = pick(r, s.recent);
      return b && call('eth_getBlockReceipts', hex(b.number));
    },
  },
  {
    name: 'block_by_number',
    description: 'eth_getBlockByNumber anywhere in the chain (hashes)',
    draw: (r, s) => {
      const b = pick(r, s.spread);
      return b && call('eth_getBlockByNumber', hex(b.number), false);
    },
  },
  {
    name: 'block_by_number_full',
    description: 'eth_getBlockByNumber anywhere in the chain (full transactions)',
    draw: (r, s) => {
      const b = pick(r, s.spread);
      return b && call('eth_getBlockByNumber', hex(b.number), true);
    },
  },
  {
    name: 'block_by_hash',
    description: 'eth_getBlockByHash anywhere in the chain (hashes)',
    draw: (r, s) => {
      const b = pick(r, s.spread);
      return b && call('eth_getBlockByHash', b.hash, false);
    },
  },
  {
    name: 'tx_by_hash',
    description: 'eth_getTransactionByHash',
    draw: (r, s) => {
      const b = txOf(r, s.spread);
      return b && call('eth_getTransactionByHash', pick(r, b.txHashes));
    },
  },
  {
    name: 'tx_by_block_index',
    description: 'eth_getTransactionByBlockNumberAndIndex',
    draw: (r, s) => {
      const b = txOf(r, s.spread);
      return b && call('eth_getTransactionByBlockNumberAndIndex', hex(b.number), hex(r.int(0, b.txHashes.length - 1)));
    },
  },
  {
    name: 'receipt',
    description: 'eth_getTransactionReceipt',
    draw: (r, s) => {
      const b = txOf(r, s.spread);
      return b && call('eth_getTransactionReceipt', pick(r, b.txHashes));
    },
  },
  {
    name: 'block_receipts',
    description: 'eth_getBlockReceipts anywhere in the chain',
    draw: (r, s) => {
      const b = pick(r, s.spread);
      return b && call('eth_getBlockReceipts', hex(b.number));
    },
  },
  {
    name: 'storage',
    description: 'eth_getStorageAt of a written slot, at the block that wrote it',
    draw: (r, s) => {
      const slot = pick(r, s.slots);
      return slot && call('eth_getStorageAt', ...slot);
    },
  },
  {
    name: 'logs_block_hash',
    description: 'eth_getLogs {blockHash} anywhere in the chain',
    draw: (r, s) => {
      const b = pick(r, s.spread);
      return b && call('eth_getLogs', { blockHash: b.hash });
    },
  },
  {
    name: 'logs_range',
    description: `eth_getLogs over a window of about ${WINDOW_LOGS} logs, no address (a backfill of everything)`,
    draw: (r, s) => (s.logsPerBlock > 0 ? call('eth_getLogs', window(r, s, s.logsPerBlock)) : undefined),
  },
  {
    name: 'logs_busy_address',
    description: `eth_getLogs of a busy address over a window of about ${WINDOW_LOGS} of its logs`,
    draw: (r, s) => emitterRange(r, s, pick(r, busy(s.addresses)), byAddress),
  },
  {
    name: 'logs_rare_address',
    description: 'eth_getLogs of a rare address over a window sized to its density (up to the whole chain)',
    draw: (r, s) => emitterRange(r, s, pick(r, rare(s.addresses)), byAddress),
  },
  {
    name: 'logs_topic',
    description: 'eth_getLogs of a topic0 alone (busy or rare) over a window sized to its density',
    draw: (r, s) => emitterRange(r, s, pick(r, [...busy(s.topics), ...rare(s.topics)]), byTopic),
  },
  {
    name: 'logs_pair_range',
    description: 'eth_getLogs of an address + topic0 (busy or rare) over a window sized to its density',
    draw: (r, s) => emitterRange(r, s, pick(r, [...busy(s.pairs), ...rare(s.pairs)]), byPair),
  },
  {
    name: 'batch',
    description: `a batch of ${BATCH_CALLS} point lookups (${BATCHED.join(', ')})`,
    draw: (r, s) => {
      const calls: Call[] = [];
      for (let i = 0; i < BATCH_CALLS * 4 && calls.length < BATCH_CALLS; i++) {
        const one = shapeNamed(pick(r, BATCHED)!).draw(r, s);
        if (one !== undefined && !Array.isArray(one)) calls.push(one);
      }
      return calls.length > 0 ? calls : undefined;
    },
  },
];

/** The shape called `name`; throws for an unknown one. */
export function shapeNamed(name: string): Shape {
  const shape = SHAPES.find((s) => s.name === name);
  if (shape === undefined) throw new Error(`unknown shape "${name}"`);
  return shape;
}

/** The JSON-RPC body of a drawn call (ids from 1 within a batch, `id` for a single call). */
export function rpcBody(drawn: Call | Call[], id: number): unknown {
  const envelope = (c: Call, i: number) => ({ jsonrpc: '2.0', id: i, method: c.method, params: c.params });
  return Array.isArray(drawn) ? drawn.map((c, i) => envelope(c, i + 1)) : envelope(drawn, id);
}
