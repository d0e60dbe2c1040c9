/**
 * What the scans of one thread remember of the blocks they read: each block's logsBloom, hash and
 * timestamp (one header read instead of one per query: realtime queries read the same recent
 * blocks over and over). Everything is valid until the writer rolls blocks back (ROLLBACKS_KEY
 * moves): until then a stored block is only ever followed by new ones.
 */
import { writeBlockKey } from '../store/keys.js';
import { storedRollbacks } from '../store/reader.js';
import { headerLogsBloom, headerTimestamp, storedBlockHash } from '../store/recordViews.js';
import type { Store } from '../store/schema.js';
import { SEGMENT_BLOCKS } from '../store/segments.js';

/**
 * Headers a thread keeps: two segments' worth (about 3 MB), so the open segment, whose blocks have
 * no bloom rows and are read by every realtime query, stays whole.
 */
export const RECENT_HEADERS = 2 * SEGMENT_BLOCKS;

/** The header fields the scans read. */
export interface HeaderFacts {
  /** The block's 256-byte logsBloom. */
  bloom: Uint8Array;
  /** The block's 32-byte hash. */
  hash: Uint8Array;
  timestamp: number;
}

/** A Map that drops its oldest entry once it holds `max`. */
function remember<K, V>(map: Map<K, V>, max: number, key: K, value: V): V {
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

/** One store's remembered blocks on this thread. */
export class RecentBlocks {
  private readonly headers = new Map<number, HeaderFacts>();
  private rollbacks = 0;
  /** Key buffers of the reads, rewritten for each (lmdb copies a key before it reads). */
  private readonly blockKey = Buffer.alloc(8);

  constructor(private readonly store: Store) {}

  /** Forgets everything when the store's rollback counter is not `rollbacks` any more. */
  check(rollbacks: number): void {
    if (rollbacks === this.rollbacks) return;
    this.headers.clear();
    this.rollbacks = rollbacks;
  }

  /** The header fields of canonical block `number`; undefined when it is not stored. */
  header(number: number): HeaderFacts | undefined {
    const known = this.headers.get(number);
    if (known !== undefined) return known;
    const raw = this.store.headers.getBinaryFast(writeBlockKey(this.blockKey, number));
    if (raw === undefined) return undefined;
    const facts = {
      bloom: new Uint8Array(headerLogsBloom(raw)),
      hash: new Uint8Array(storedBlockHash(raw)),
      timestamp: headerTimestamp(raw),
    };
    return remember(this.headers, RECENT_HEADERS, number, facts);
  }
}

/** This thread's memory of each open store. */
const memories = new WeakMap<Store, RecentBlocks>();

/**
 * This thread's memory of `store`, emptied first if blocks were rolled back since it was filled
 * (`rollbacks`: the store's count, read here unless the caller has it): call once per query.
 */
export function recentBlocks(store: Store, rollbacks = storedRollbacks(store)): RecentBlocks {
  let memory = memories.get(store);
  if (memory === undefined) {
    memory = new RecentBlocks(store);
    memories.set(store, memory);
  }
  memory.check(rollbacks);
  return memory;
}
