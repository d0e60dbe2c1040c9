/**
 * Follow mode: polls the node's head and keeps the store on the node's chain. When the node's block
 * at the stored head is not the stored one (a reorganisation), it walks back to the common
 * ancestor comparing stored hashes with the node's, then moves the reorganised-out blocks to
 * orphans and applies the new branch in one write transaction. New blocks beyond the head are
 * copied by the bulk copy loop; safe and finalized follow the node's.
 */
import { bytesEqual } from '../chain/hex.js';
import { FOLLOW_POLL_MS, MAX_REORG_DEPTH, REORG_WALK_BLOCKS } from '../config.js';
import type { Logger } from '../logger.js';
import { ChainContinuityError } from '../store/writer.js';
import {
  batchChainKind,
  copyBlocks,
  countBlocks,
  currentMarkers,
  fetchBlocks,
  type IngestContext,
  markersAt,
} from './copy.js';
import { IngestConflictError, NodeDataError } from './errors.js';
import { Progress } from './progress.js';

/** How the follower runs. */
export interface FollowOptions {
  /** First block of an empty store. */
  from: number;
  pollMs?: number;
  logger: Logger;
  /** Whether the catch-up copy shows a progress bar (or plain progress lines). */
  progress: boolean;
  /** Seconds between plain progress lines when stderr is not a terminal. */
  progressIntervalSeconds?: number;
}

/** Failures a later poll may not meet again: the chain moved while it was being read. */
function transient(error: unknown): boolean {
  return (
    error instanceof ChainContinuityError ||
    (error instanceof NodeDataError && (error.code === 'inconsistent' || error.code === 'missing-block'))
  );
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

const short = (hash: Uint8Array) => Buffer.from(hash.subarray(0, 4)).toString('hex');

/** Keeps a store on a node's chain until stopped. */
export class Follower {
  private readonly pollMs: number;

  /** A follower writing through `ctx`. */
  constructor(
    private readonly ctx: IngestContext,
    private readonly options: FollowOptions,
  ) {
    this.pollMs = options.pollMs ?? FOLLOW_POLL_MS;
  }

  /**
   * Polls and applies the node's chain until the signal aborts; a chain that moved mid-poll is read again at the next
   * poll.
   */
  async run(): Promise<void> {
    const { signal } = this.ctx;
    while (!signal.aborted) {
      try {
        await this.poll();
      } catch (error) {
        if (signal.aborted) break;
        if (!transient(error)) throw error;
        this.options.logger.info(
          `the node's chain moved while it was read (${(error as Error).message}); reading it again`,
        );
        continue;
      }
      await wait(this.pollMs, signal);
    }
  }

  /** One poll: reconciles a reorganisation at the stored head, copies the blocks beyond it, and follows the markers. */
  async poll(): Promise<void> {
    const { reader, source } = this.ctx;
    const nodeHead = await source.headNumber();
    const meta = reader.meta();
    if (meta) await this.reconcile(nodeHead, meta.head);
    const head = reader.meta()?.head;
    const start = head === undefined ? this.options.from : head + 1;
    if (nodeHead >= start) {
      const count = nodeHead - start + 1;
      const progress = new Progress(count, {
        enabled: this.options.progress && count > this.ctx.tuning.commitBlocks,
        label: 'ingest',
        intervalSeconds: this.options.progressIntervalSeconds,
      });
      const copied = await copyBlocks(this.ctx, start, nodeHead, progress);
      progress.finish();
      const tip = reader.header(reader.meta()!.head)!;
      this.options.logger.info(`head ${tip.number} (${short(tip.hash)}…): +${copied} blocks`);
    } else if (meta) {
      await this.followMarkers();
    }
  }

  /** Writes the node's safe/finalized markers when they moved without a new block. */
  private async followMarkers(): Promise<void> {
    const meta = this.ctx.reader.meta()!;
    const markers = markersAt(await currentMarkers(this.ctx), meta.head);
    const moved =
      (markers.safe !== undefined && markers.safe !== meta.safe) ||
      (markers.finalized !== undefined && markers.finalized !== meta.finalized);
    if (moved && !this.ctx.signal.aborted) this.ctx.writer.append({ blocks: [], ...markers });
  }

  /**
   * Makes the stored chain a prefix of the node's: when the node's block at min(its head, the stored
   * head) differs from the stored one, finds the common ancestor and replaces everything above it
   * with the node's branch (up to one commit batch of it) in one write transaction; when the node's
   * chain is merely shorter (rewound), rolls back to its head.
   */
  private async reconcile(nodeHead: number, storedHead: number): Promise<void> {
    const { reader, writer, source } = this.ctx;
    const probe = Math.min(nodeHead, storedHead);
    const [ref] = await source.refs(probe, probe);
    if (!ref) throw new NodeDataError('missing-block', `the node has no block ${probe} below its head ${nodeHead}`);
    const same = bytesEqual(ref.hash, reader.header(probe)!.hash);
    if (same && probe === storedHead) return;
    const ancestor = same ? probe : await this.commonAncestor(probe - 1, storedHead);
    const branchEnd = Math.min(nodeHead, ancestor + this.ctx.tuning.commitBlocks);
    const branch = branchEnd > ancestor ? await fetchBlocks(this.ctx, ancestor + 1, branchEnd) : [];
    const markers = await currentMarkers(this.ctx);
    if (this.ctx.signal.aborted) return;
    const newHead = branch.length > 0 ? branch[branch.length - 1]!.header.number : ancestor;
    writer.append({
      rollbackTo: ancestor,
      blocks: branch,
      chainKind: batchChainKind(this.ctx, branch, false),
      ...markersAt(markers, newHead),
    });
    countBlocks(this.ctx.counts, branch);
    this.options.logger.info(
      `reorganisation: blocks ${ancestor + 1}..${storedHead} moved to orphans, ` +
        `${branch.length} blocks of the node's branch applied; ` +
        `head ${newHead} (${short(reader.header(newHead)!.hash)}…), common ancestor ${ancestor}`,
    );
  }

  /** The highest block at or below `from` whose stored hash is the node's. */
  private async commonAncestor(from: number, storedHead: number): Promise<number> {
    const { reader, source } = this.ctx;
    const earliest = reader.meta()!.earliest;
    for (let top = from; top >= earliest; top -= REORG_WALK_BLOCKS) {
      if (storedHead - top > MAX_REORG_DEPTH) break;
      const bottom = Math.max(earliest, top - REORG_WALK_BLOCKS + 1);
      const refs = await source.refs(bottom, top);
      for (let n = top; n >= bottom; n--) {
        const ref = refs[n - bottom];
        if (ref && bytesEqual(ref.hash, reader.header(n)!.hash)) return n;
      }
    }
    throw new IngestConflictError(
      'reorg-too-deep',
      `no block of the store (from ${earliest}, at most ${MAX_REORG_DEPTH} below the head ${storedHead}) ` +
        "is on the node's chain: another chain, or a reorganisation too deep to follow",
    );
  }
}
