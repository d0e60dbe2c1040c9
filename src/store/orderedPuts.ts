/**
 * Puts to one database gathered over a write transaction and made together, in key order when
 * they are many. The writer's random keys (transaction and block hashes, storage slots) land all
 * over their B-trees; put in key order, one leaf page after the next, each page is searched and
 * dirtied while it is in the CPU's cache, and the transaction's dirty-page lookups stay local.
 */
import type { Database } from 'lmdb';
import { keyOrder, MAX_ORDERED_KEYS } from './keyOrder.js';

/**
 * Fewest queued puts worth ordering. Ordering pays when a transaction puts several keys into each
 * leaf page: 256 mainnet-density blocks a transaction (70,000 transaction hashes, 97,000 storage
 * slots) onto a store of 1,024 blocks took ~20% less time ordered, while batches of 33 blocks
 * (9,000 and 12,500) gained nothing and paid for the ordering (~30 ms in a process's first batch).
 */
export const MIN_ORDERED_PUTS = 16_384;

/**
 * A queue of puts to one database, made (in key order when they are many) by flush, and whenever it holds
 * MAX_ORDERED_KEYS.
 */
export class OrderedPuts {
  private keys: Buffer[] = [];
  private values: Buffer[] = [];

  /** Queues puts to `db`, whose keys are all of one length (keyOrder orders such keys). */
  constructor(private readonly db: Database<Buffer, Buffer>) {}

  /** Queues a put; key and value must stay unchanged until it is made. */
  add(key: Buffer, value: Buffer): void {
    this.keys.push(key);
    this.values.push(value);
    if (this.keys.length === MAX_ORDERED_KEYS) this.flush();
  }

  /**
   * Makes the queued puts, in ascending key order when there are MIN_ORDERED_PUTS or more (else as
   * added), equal keys in the order added (the last one added stays, as when put one by one), and
   * empties the queue.
   */
  flush(): void {
    const { db, keys, values } = this;
    const order = keys.length >= MIN_ORDERED_PUTS ? keyOrder(keys) : undefined;
    for (let k = 0; k < keys.length; k++) {
      const i = order ? order[k]! : k;
      db.put(keys[i]!, values[i]!);
    }
    this.keys = [];
    this.values = [];
  }
}
