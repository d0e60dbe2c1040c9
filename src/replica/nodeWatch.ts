/**
 * A replica's own view of its node's head: eth_blockNumber every poll interval, recorded in the
 * shared gauge (nodeHead.ts) that /ready and eth_syncing compare the store's head with. It runs beside
 * the follow-mode ingest, not inside it, so the lag stays known while the ingest restarts. A node that
 * does not answer keeps its last seen head; the first failure of a streak and the recovery are logged.
 */
import { NODE_HEAD_TIMEOUT_MS } from '../config.js';
import { RpcClient } from '../ingest/rpcClient.js';
import type { Logger } from '../logger.js';
import type { NodeHeadGauge } from './nodeHead.js';

/** Polls a node's head into a gauge until closed. */
export class NodeWatch {
  private readonly stop = new AbortController();
  private readonly client: RpcClient;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  /** Watches the node at `url` every `pollMs`, recording into `gauge`; the first poll starts at once. */
  constructor(
    url: string,
    private readonly gauge: NodeHeadGauge,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {
    this.client = new RpcClient(url, {
      timeoutMs: NODE_HEAD_TIMEOUT_MS,
      maxRetries: 0,
      maxInFlight: 1,
      signal: this.stop.signal,
    });
    void this.poll();
  }

  /** One poll, then the next one scheduled. */
  private async poll(): Promise<void> {
    try {
      const value = await this.client.call('eth_blockNumber', []);
      if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,15}$/.test(value))
        throw new Error(`eth_blockNumber answered ${JSON.stringify(value)}`);
      this.gauge.setNodeHead(Number.parseInt(value, 16));
      if (this.failing) this.logger.info("replica: the node's head is known again");
      this.failing = false;
    } catch (error) {
      if (this.stop.signal.aborted) return;
      if (!this.failing)
        this.logger.warn(
          "replica: the node's head cannot be read (the lag /ready reports stays at its last value): " +
            (error as Error).message,
        );
      this.failing = true;
    }
    if (!this.stop.signal.aborted) this.timer = setTimeout(() => void this.poll(), this.pollMs);
  }

  /** Stops polling (a request in flight is aborted). */
  close(): void {
    this.stop.abort(new Error('closed'));
    clearTimeout(this.timer);
  }
}
