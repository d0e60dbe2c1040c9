/**
 * What a request corpus is drawn from: a sample of a store's real content, read through the
 * library's store API (EthLogStore): blocks (number, hash, transactions), the slots blocks wrote,
 * and the logs of windows of consecutive blocks (who emits them, how densely), the recent ones
 * and windows spread over the chain. Reading a sample, not the whole chain, keeps a corpus of a
 * mainnet-sized store a matter of seconds.
 */
import type { EthLogStore } from '../api/store.js';
import { bytesToHex } from '../chain/hex.js';
import { Random } from '../synth/random.js';

/** Blocks at the head an indexer's realtime loop asks about: the last 100 and a margin. */
export const RECENT_BLOCKS = 128;
/** Blocks sampled over the whole chain for point lookups: enough for thousands of distinct requests. */
export const SPREAD_BLOCKS = 1024;
/** Windows of consecutive blocks whose logs are read to learn who emits how densely. */
export const LOG_WINDOWS = 16;
/** Blocks per such window. */
export const LOG_WINDOW_BLOCKS = 32;
/** Most transactions and slots kept per sampled block: blocks of hundreds would crowd out the others. */
const PER_BLOCK = 16;

/** A sampled block: its number, hash and transaction hashes. */
export interface SampledBlock {
  number: number;
  hash: string;
  txHashes: string[];
}

/** How often something was seen in the sampled windows' logs. */
export interface Emitter {
  /** An address, a topic0, or "address topic0". */
  key: string;
  logs: number;
}

/** What a corpus is drawn from. */
export interface StoreSample {
  earliest: number;
  head: number;
  /** The recent blocks (up to RECENT_BLOCKS, oldest first), then the blocks spread over the chain. */
  recent: SampledBlock[];
  spread: SampledBlock[];
  /**
   * Written slots as eth_getStorageAt params [address, slot, block]: at the recent blocks that wrote them, then the
   * same slots at the spread blocks (the store lists a block's written slots only until the block is frozen, so
   * older blocks are asked for slots written lately: the newest write at or below them, or zero).
   */
  slots: [string, string, string][];
  /** Blocks whose logs were read, and the mean logs per block over them. */
  logBlocks: number;
  logsPerBlock: number;
  /** Emitters in the sampled windows, most logs first: addresses, topic0s, address + topic0 pairs. */
  addresses: Emitter[];
  topics: Emitter[];
  pairs: Emitter[];
  /** Addresses and pairs that emitted in the recent window (the last RECENT_BLOCKS), most logs first. */
  recentAddresses: Emitter[];
  recentPairs: Emitter[];
}

/** The counts of a map, most first (ties by key, so the order is reproducible). */
function ranked(counts: Map<string, number>): Emitter[] {
  return [...counts].map(([key, logs]) => ({ key, logs })).sort((a, b) => b.logs - a.logs || (a.key < b.key ? -1 : 1));
}

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** The distinct block numbers `count` draws pick from [from, to], in order (all of them when the range is smaller). */
function pickNumbers(random: Random, from: number, to: number, count: number): number[] {
  if (to < from) return [];
  if (to - from + 1 <= count) return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(random.int(from, to));
  return [...picked].sort((a, b) => a - b);
}

/** Reads the sample of `store` that seed `seed` picks; throws when the store holds no block. */
export async function sampleStore(store: EthLogStore, seed: string): Promise<StoreSample> {
  const meta = store.meta();
  if (meta === undefined) throw new Error(`the store in ${store.dataDir} holds no block`);
  const { earliest, head } = meta;
  const random = Random.derive(seed, 'workload-sample');
  const block = (number: number): SampledBlock | undefined => {
    const b = store.getBlock(number);
    if (!b) return undefined;
    const txHashes = b.transactionHashes.slice(0, PER_BLOCK).map(bytesToHex);
    return { number, hash: bytesToHex(b.header.hash), txHashes };
  };
  const recentFrom = Math.max(earliest, head - RECENT_BLOCKS + 1);
  const recent = pickNumbers(random, recentFrom, head, RECENT_BLOCKS).flatMap((n) => block(n) ?? []);
  const spread = pickNumbers(random, earliest, head, SPREAD_BLOCKS).flatMap((n) => block(n) ?? []);
  const slots: [string, string, string][] = [];
  const written: [string, string][] = [];
  for (const b of [...spread, ...recent]) {
    for (const { address, slot } of store.writtenSlots(b.number).slice(0, PER_BLOCK)) {
      written.push([bytesToHex(address), bytesToHex(slot)]);
      slots.push([bytesToHex(address), bytesToHex(slot), `0x${b.number.toString(16)}`]);
    }
  }
  if (written.length > 0) {
    spread.forEach((b, i) => {
      const [address, slot] = written[i % written.length]!;
      slots.push([address, slot, `0x${b.number.toString(16)}`]);
    });
  }

  const addresses = new Map<string, number>();
  const topics = new Map<string, number>();
  const pairs = new Map<string, number>();
  const recentAddresses = new Map<string, number>();
  const recentPairs = new Map<string, number>();
  const windows: [number, number][] = [[recentFrom, head]];
  for (const start of pickNumbers(random, earliest, Math.max(earliest, recentFrom - LOG_WINDOW_BLOCKS), LOG_WINDOWS)) {
    windows.push([start, Math.min(start + LOG_WINDOW_BLOCKS - 1, recentFrom - 1)]);
  }
  const seen = new Set<number>();
  let logs = 0;
  for (const [from, to] of windows) {
    if (to < from) continue;
    for (let n = from; n <= to; n++) seen.add(n);
    for await (const log of store.logs({ fromBlock: from, toBlock: to })) {
      const address = bytesToHex(log.address);
      const topic = log.topics[0];
      const isRecent = from === recentFrom;
      logs++;
      bump(addresses, address);
      if (isRecent) bump(recentAddresses, address);
      if (topic === undefined) continue;
      const topicHex = bytesToHex(topic);
      bump(topics, topicHex);
      bump(pairs, `${address} ${topicHex}`);
      if (isRecent) bump(recentPairs, `${address} ${topicHex}`);
    }
  }
  return {
    earliest,
    head,
    recent,
    spread,
    slots,
    logBlocks: seen.size,
    logsPerBlock: logs / Math.max(1, seen.size),
    addresses: ranked(addresses),
    topics: ranked(topics),
    pairs: ranked(pairs),
    recentAddresses: ranked(recentAddresses),
    recentPairs: ranked(recentPairs),
  };
}
