/**
 * Puts to one database gathered over a write transaction and made together in key order. The
 * writer's random keys (transaction and block hashes, storage slots) land all over their B-trees;
 * put in key order, one leaf page after the next, each page is searched and dirtied while it is in
 * the CPU's cache, and the transaction's dirty-page lookups stay local.
 */
import type { Database } from 'lmdb';
import { keyOrder, MAX_ORDERED_KEYS } from './keyOrder.js';

/** A queue of puts to one database, made in key order by flush (and whenever it holds MAX_ORDERED_KEYS). */
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

  /** Makes the queued puts in ascending key order, equal keys in the order added (the last one added stays, as when put one by one), and empties the queue. */
  flush(): void {
    const { db, keys, values } = this;
    const order = keyOrder(keys);
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      db.put(keys[i]!, values[i]!);
    }
    this.keys = [];
    this.values = [];
  }
}
