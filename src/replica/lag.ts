/**
 * How far a replica's store is behind its node, and whether that is within what it may serve at:
 * the one rule /ready and eth_syncing both answer by.
 */
import type { NodeHeadGauge } from './nodeHead.js';

/** What a replica knows of its node: the shared gauge and the lag it tolerates. */
export interface ReplicaSync {
  gauge: NodeHeadGauge;
  /** Blocks the store may be behind the node while /ready answers 200 and eth_syncing false. */
  maxLagBlocks: number;
}

/** A replica's position against its node. */
export interface LagStatus {
  /** The node's head as last seen, or undefined before the first answer. */
  nodeHead: number | undefined;
  /** Blocks the store is behind the node (0 when level or ahead), or null while either head is unknown. */
  lag: number | null;
  /** Why the replica should not be sent requests, or undefined when it is within the lag. */
  behind: string | undefined;
}

/** The position of a store whose head is `storeHead` (undefined: no block yet) against `sync`'s node. */
export function lagStatus(storeHead: number | undefined, sync: ReplicaSync): LagStatus {
  const nodeHead = sync.gauge.nodeHead();
  if (nodeHead === undefined) return { nodeHead, lag: null, behind: "the node's head is not known yet" };
  if (storeHead === undefined) return { nodeHead, lag: null, behind: 'the store holds no block yet' };
  const lag = Math.max(0, nodeHead - storeHead);
  const behind =
    lag > sync.maxLagBlocks ? `the store is ${lag} blocks behind its node (more than ${sync.maxLagBlocks})` : undefined;
  return { nodeHead, lag, behind };
}
