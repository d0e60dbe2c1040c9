/**
 * Counts the logs a generation emits, per contract and per contract's topic0, so generate can name
 * the busiest contracts without reading the store again. While generating, logs are counted by
 * array identity (the universe's contracts and event topics are shared arrays, so a log costs two
 * map lookups and no hashing of bytes); the counts are merged by value when read.
 */
import { bytesToHex } from '../chain/hex.js';
import type { Log } from '../chain/types.js';

/**
 * Distinct topic0 arrays counted per contract array. An anonymous event's first topic is an
 * arbitrary word, new with every log; past this many, new ones are not counted, so memory stays
 * bounded. A contract's named events come first (they are its most frequent), so their counts
 * are whole.
 */
const MAX_TOPICS_PER_CONTRACT = 16;

/** A contract and how many of the counted logs it emitted, with its most frequent topic0s. */
export interface BusyContract {
  address: Uint8Array;
  logs: number;
  /** Most frequent first, each with its count; anonymous logs (no topics) are not among them. */
  topics: { topic0: Uint8Array; logs: number }[];
}

interface Counts {
  logs: number;
  topics: Map<Uint8Array, number>;
}

/** Log counts per contract and topic0 over the blocks added. */
export class LogTally {
  private readonly byAddress = new Map<Uint8Array, Counts>();

  /** Counts the logs of one block. */
  add(logs: readonly Log[]): void {
    for (const log of logs) {
      let counts = this.byAddress.get(log.address);
      if (!counts) this.byAddress.set(log.address, (counts = { logs: 0, topics: new Map() }));
      counts.logs++;
      const topic0 = log.topics[0];
      if (topic0 === undefined) continue;
      const seen = counts.topics.get(topic0);
      if (seen !== undefined) counts.topics.set(topic0, seen + 1);
      else if (counts.topics.size < MAX_TOPICS_PER_CONTRACT) counts.topics.set(topic0, 1);
    }
  }

  /** The `contracts` contracts with the most logs (ties by address), each with its `topics` most frequent topic0s. */
  busiest(contracts: number, topics: number): BusyContract[] {
    const merged = new Map<string, { address: Uint8Array; logs: number; topics: Map<string, { topic0: Uint8Array; logs: number }> }>();
    for (const [address, counts] of this.byAddress) {
      const key = bytesToHex(address);
      let entry = merged.get(key);
      if (!entry) merged.set(key, (entry = { address, logs: 0, topics: new Map() }));
      entry.logs += counts.logs;
      for (const [topic0, n] of counts.topics) {
        const topicKey = bytesToHex(topic0);
        const t = entry.topics.get(topicKey);
        if (t) t.logs += n;
        else entry.topics.set(topicKey, { topic0, logs: n });
      }
    }
    return mostFirst(merged)
      .slice(0, contracts)
      .map((e) => ({ address: e.address, logs: e.logs, topics: mostFirst(e.topics).slice(0, topics) }));
  }
}

/** The values of `byHex` by count, most first, ties in the order of their hex keys. */
function mostFirst<T extends { logs: number }>(byHex: Map<string, T>): T[] {
  return [...byHex.entries()].sort(([ka, a], [kb, b]) => b.logs - a.logs || (ka < kb ? -1 : 1)).map(([, v]) => v);
}
