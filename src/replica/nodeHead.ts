/**
 * The node's head as a replica last saw it, in shared memory: the serve process polls its node
 * (nodeWatch.ts) and every HTTP thread reads the same cells to answer /ready and eth_syncing.
 */

/** Cell of the node's head (-1: not seen yet). */
const NODE_HEAD = 0;
/** Cell of the store's head when the replica started following (-1: the store held no block). */
const STARTING = 1;
/** Cells of the gauge. */
const CELLS = 2;

/** The node's last seen head and the replica's starting block, shared between threads. */
export class NodeHeadGauge {
  private readonly cells: BigInt64Array;

  /** A gauge over `buffer` (a new one, nothing seen, by default; another thread's to share it). */
  constructor(readonly buffer: SharedArrayBuffer = NodeHeadGauge.emptyBuffer()) {
    this.cells = new BigInt64Array(buffer, 0, CELLS);
  }

  /** A buffer whose cells say nothing is known yet. */
  private static emptyBuffer(): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer(CELLS * BigInt64Array.BYTES_PER_ELEMENT);
    new BigInt64Array(buffer).fill(-1n);
    return buffer;
  }

  /** Records the node's head as just seen. */
  setNodeHead(head: number): void {
    Atomics.store(this.cells, NODE_HEAD, BigInt(head));
  }

  /** The node's head as last seen, or undefined before the first answer. */
  nodeHead(): number | undefined {
    const value = Atomics.load(this.cells, NODE_HEAD);
    return value < 0n ? undefined : Number(value);
  }

  /** Records the store's head when following began (undefined: the store held no block). */
  setStartingBlock(head: number | undefined): void {
    Atomics.store(this.cells, STARTING, BigInt(head ?? -1));
  }

  /** The store's head when following began, or undefined when it held no block. */
  startingBlock(): number | undefined {
    const value = Atomics.load(this.cells, STARTING);
    return value < 0n ? undefined : Number(value);
  }
}
