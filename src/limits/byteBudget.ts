/**
 * Byte budgets per API key and per process (polling filters, WebSocket subscriptions): what each
 * key holds and the total, in a BucketTable's shared memory, so every HTTP thread charges the same
 * budget (a key's subscriptions on two threads count together) with no message on a request's path.
 */
import { BucketTable, bucketKey } from './bucketTable.js';

/**
 * API keys holding bytes at once that a budget tracks (a shared table of ~1.3 MB); past it new keys are refused as over
 * the process's budget.
 */
const MAX_BUDGET_KEYS = 16_384;
/** Which budget a charge would pass. */
export type OverBudget = 'key' | 'process';

/** The budgets, in bytes. */
export interface ByteLimits {
  perKey: number;
  total: number;
}

/** The buffers a ByteBudget on another thread attaches to. */
export interface ByteBudgetBuffers {
  table: SharedArrayBuffer;
  total: SharedArrayBuffer;
}

/**
 * Bytes held per key and in all under per-key and per-process budgets, shared by the threads given the same buffers.
 */
export class ByteBudget {
  private readonly table: BucketTable;
  /** The bytes held in all (cell 0), changed under the table's lock. */
  private readonly held: Float64Array;

  /** A budget of `limits`, new or (given `buffers`) the one another thread created. */
  constructor(
    readonly limits: ByteLimits,
    buffers?: ByteBudgetBuffers,
  ) {
    this.table = new BucketTable(MAX_BUDGET_KEYS, buffers?.table);
    this.held = new Float64Array(buffers?.total ?? new SharedArrayBuffer(8));
  }

  /** The buffers to give a ByteBudget on another thread. */
  get buffers(): ByteBudgetBuffers {
    return { table: this.table.buffer, total: this.held.buffer as SharedArrayBuffer };
  }

  /** Bytes held in all now. */
  get total(): number {
    return this.table.locked(() => this.held[0]!);
  }

  /** Bytes `key` holds now. */
  of(key: string): number {
    const { table } = this;
    return table.locked(() => {
      const slot = table.find(bucketKey(key));
      return slot === -1 ? 0 : table.tokens[slot]!;
    });
  }

  /** Charges `bytes` to `key` and returns null, or returns the budget it would pass and charges nothing. */
  take(key: string, bytes: number): OverBudget | null {
    const { table } = this;
    const id = bucketKey(key);
    return table.locked(() => {
      if (this.held[0]! + bytes > this.limits.total) return 'process';
      let slot = table.find(id);
      const mine = slot === -1 ? 0 : table.tokens[slot]!;
      if (mine + bytes > this.limits.perKey) return 'key';
      if (slot === -1) {
        // Keys holding nothing go first; the table holds a key per bucket, far more than hold bytes.
        if (table.size >= table.maxBuckets) table.evict((s) => table.tokens[s] === 0, table.maxBuckets);
        if (table.size >= table.maxBuckets) return 'process';
        slot = table.insert(id, 0, 0);
      }
      table.tokens[slot] = mine + bytes;
      this.held[0] = this.held[0]! + bytes;
      return null;
    });
  }

  /** Gives back `bytes` that `key` held. */
  give(key: string, bytes: number): void {
    const { table } = this;
    table.locked(() => {
      const slot = table.find(bucketKey(key));
      if (slot === -1) return;
      const back = Math.min(bytes, table.tokens[slot]!);
      table.tokens[slot] = table.tokens[slot]! - back;
      this.held[0] = this.held[0]! - back;
    });
  }
}
