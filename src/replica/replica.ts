/**
 * What makes `serve` a replica (serve --follow-rpc), beside the service it runs: the shared gauge of
 * the node's head the service answers /ready and eth_syncing by, the watch that fills it, and the
 * supervised follow-mode ingest that keeps the store on the node's chain.
 */

import { FollowChild, type FollowChildOptions } from './followChild.js';
import type { ReplicaSync } from './lag.js';
import { NodeHeadGauge } from './nodeHead.js';
import { NodeWatch } from './nodeWatch.js';

/** A replica's following, started once its service listens and stopped with it. */
export class Replica {
  /** What the service answers /ready and eth_syncing by (pass it as ServiceOptions.replica). */
  readonly sync: ReplicaSync;
  private watch: NodeWatch | undefined;
  private child: FollowChild | undefined;

  /** A replica tolerating `maxLagBlocks` of lag, not following yet. */
  constructor(maxLagBlocks: number) {
    this.sync = { gauge: new NodeHeadGauge(), maxLagBlocks };
  }

  /** Starts watching the node's head and following it into the store. */
  follow(options: FollowChildOptions): void {
    this.watch = new NodeWatch(options.rpc, this.sync.gauge, options.pollMs, options.logger);
    this.child = new FollowChild(options);
  }

  /** Stops the watch and the ingest (which commits its current batch first). */
  async close(): Promise<void> {
    this.watch?.close();
    await this.child?.close();
  }
}
