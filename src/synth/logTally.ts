/**
 * Counts the logs a generation emits, per contract and per contract's topic0, so generate can name
 * the busiest contracts without reading the store again. While generating, logs are counted by
 * array identity (the universe's contracts and event topics are shared arrays, so a log costs two
 * map lookups and no hashing of bytes); the counts are merged by value when read, also with the
 * counts of tallies kept in other threads (a worker generating blocks counts its own).
 */
import { bytesToHex, hexToBytes } from '../chain/hex.js';
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

/**
 * Log counts merged by value, as one thread hands them to another: per contract (hex) its logs and its counted topic0s
 * (hex) with theirs.
 */
export type TallyCounts = [address: string, logs: number, topics: [topic0: string, logs: number][]][];

interface Merged {
  address: Uint8Array;
  logs: number;
  topics: Map<string, { topic0: Uint8Array; logs: number }>;
}

/** Log counts per contract and topic0 over the blocks added, and over the counts of other tallies added. */
export class LogTally {
  private readonly byAddress = new Map<Uint8Array, Counts>();
  private readonly added: TallyCounts[] = [];

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

  /** Adds the counts another tally made (its counts()). */
  addCounts(counts: TallyCounts): void {
    this.added.push(counts);
  }

  /** Everything counted, merged by value: what another thread's tally takes with addCounts. */
  counts(): TallyCounts {
    return [...this.merged().entries()].map(([key, e]) => [
      key,
      e.logs,
      [...e.topics.entries()].map(([topicKey, t]) => [topicKey, t.logs]),
    ]);
  }

  /** The `contracts` contracts with the most logs (ties by address), each with its `topics` most frequent topic0s. */
  busiest(contracts: number, topics: number): BusyContract[] {
    return mostFirst(this.merged())
      .slice(0, contracts)
      .map((e) => ({ address: e.address, logs: e.logs, topics: mostFirst(e.topics).slice(0, topics) }));
  }

  private merged(): Map<string, Merged> {
    const merged = new Map<string, Merged>();
    const entry = (key: string, address: () => Uint8Array): Merged => {
      let e = merged.get(key);
      if (!e) merged.set(key, (e = { address: address(), logs: 0, topics: new Map() }));
      return e;
    };
    const addTopic = (e: Merged, topicKey: string, topic0: () => Uint8Array, n: number) => {
      const t = e.topics.get(topicKey);
      if (t) t.logs += n;
      else e.topics.set(topicKey, { topic0: topic0(), logs: n });
    };
    for (const [address, counts] of this.byAddress) {
      const e = entry(bytesToHex(address), () => address);
      e.logs += counts.logs;
      for (const [topic0, n] of counts.topics) addTopic(e, bytesToHex(topic0), () => topic0, n);
    }
    for (const counts of this.added) {
      for (const [key, logs, topics] of counts) {
        const e = entry(key, () => hexToBytes(key)!);
        e.logs += logs;
        for (const [topicKey, n] of topics) addTopic(e, topicKey, () => hexToBytes(topicKey)!, n);
      }
    }
    return merged;
  }
}

/** The values of `byHex` by count, most first, ties in the order of their hex keys. */
function mostFirst<T extends { logs: number }>(byHex: Map<string, T>): T[] {
  return [...byHex.entries()].sort(([ka, a], [kb, b]) => b.logs - a.logs || (ka < kb ? -1 : 1)).map(([, v]) => v);
}
