/**
 * What ingest asks an upstream node, as batched JSON-RPC: the chain id, the head, the safe and
 * finalized markers, block hashes, and whole blocks (eth_getBlockByNumber with full transactions,
 * eth_getBlockReceipts — or eth_getTransactionReceipt per transaction when the node lacks it — and
 * debug_traceBlockByNumber with prestateTracer in diffMode), normalised into BlockBundles.
 */
import { quantityToHex } from '../chain/hex.js';
import type { BlockBundle, StorageWrite } from '../chain/types.js';
import { INGEST_INCONSISTENT_RETRIES } from '../config.js';
import { NodeDataError, NodeRpcError } from './errors.js';
import { type BlockLink, normalizeBlock, normalizeBlockLink } from './normalize.js';
import type { RpcCall, RpcClient, RpcOutcome } from './rpcClient.js';

/** Where storage history comes from: prestateTracer diffs per block, or nowhere. */
export type StorageMode = 'prestate' | 'none';

/** The node's safe and finalized block numbers (undefined when it does not serve the tag). */
export interface NodeMarkers {
  safe?: number;
  finalized?: number;
}

const PRESTATE_DIFF = { tracer: 'prestateTracer', tracerConfig: { diffMode: true, disableCode: true } };

/** Whether a JSON-RPC error says the method itself is not served. */
function isUnsupported(error: { code: number; message: string }): boolean {
  return error.code === -32601 || /method|unsupported|not implemented/i.test(error.message);
}

function resultOf(outcome: RpcOutcome, method: string): unknown {
  if ('error' in outcome) throw new NodeRpcError(outcome.error.code, outcome.error.message, method);
  return outcome.result;
}

/** Reads an upstream node through a JSON-RPC client. */
export class NodeSource {
  /** False once the node has answered that it does not serve eth_getBlockReceipts. */
  private blockReceipts = true;

  /**
   * A source over `client`, ingesting storage per `storage`; block 0 is never traced (it has no
   * transactions, and geth refuses: `genesis is not traceable`): its storage is `genesis`, the
   * alloc of a genesis file, when given. `onReceiptsPerTransaction` is told once when the node
   * turns out not to serve eth_getBlockReceipts.
   */
  constructor(
    readonly client: RpcClient,
    readonly storage: StorageMode,
    readonly genesis: StorageWrite[] = [],
    private readonly onReceiptsPerTransaction?: () => void,
  ) {}

  /** Whether receipts come per block (eth_getBlockReceipts) rather than per transaction. */
  get receiptsByBlock(): boolean {
    return this.blockReceipts;
  }

  /**
   * Whether the node traces blocks (debug_traceBlockByNumber), asked once about its head block:
   * false when it answers that it does not serve the method (most hosted providers).
   */
  async tracesBlocks(): Promise<boolean> {
    const [outcome] = await this.client.batch([
      { method: 'debug_traceBlockByNumber', params: ['latest', PRESTATE_DIFF] },
    ]);
    return !('error' in outcome! && isUnsupported(outcome.error));
  }

  /** The node's chain id. */
  async chainId(): Promise<bigint> {
    const value = await this.client.call('eth_chainId', []);
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
      throw new NodeDataError('malformed', `eth_chainId answered ${JSON.stringify(value)}`);
    return BigInt(value);
  }

  /** The number of the node's head block. */
  async headNumber(): Promise<number> {
    const value = await this.client.call('eth_blockNumber', []);
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
      throw new NodeDataError('malformed', `eth_blockNumber answered ${JSON.stringify(value)}`);
    return Number(BigInt(value));
  }

  /** The node's safe and finalized markers; a tag the node does not serve is left undefined. */
  async markers(): Promise<NodeMarkers> {
    const outcomes = await this.client.batch([
      { method: 'eth_getBlockByNumber', params: ['safe', false] },
      { method: 'eth_getBlockByNumber', params: ['finalized', false] },
    ]);
    const numberOf = (o: RpcOutcome, tag: string) =>
      'error' in o || o.result === null ? undefined : normalizeBlockLink(o.result, `${tag} block`).number;
    return { safe: numberOf(outcomes[0]!, 'safe'), finalized: numberOf(outcomes[1]!, 'finalized') };
  }

  /** The identities of blocks [from, to] (null for a block the node does not have). */
  async refs(from: number, to: number): Promise<(BlockLink | null)[]> {
    const calls: RpcCall[] = [];
    for (let n = from; n <= to; n++) calls.push({ method: 'eth_getBlockByNumber', params: [quantityToHex(n), false] });
    const outcomes = await this.client.batch(calls);
    return outcomes.map((o, i) => {
      const block = resultOf(o, 'eth_getBlockByNumber');
      return block === null ? null : normalizeBlockLink(block, `block ${from + i}`);
    });
  }

  /**
   * Blocks [from, to] as bundles, in one batch request (plus one for per-transaction receipts on a
   * node without eth_getBlockReceipts). Answers that disagree about a block (the head moved between
   * calls) are fetched again a few times before the NodeDataError surfaces.
   */
  async bundles(from: number, to: number): Promise<BlockBundle[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.fetchBundles(from, to);
      } catch (error) {
        if (
          !(error instanceof NodeDataError) ||
          error.code !== 'inconsistent' ||
          attempt >= INGEST_INCONSISTENT_RETRIES
        )
          throw error;
      }
    }
  }

  private async fetchBundles(from: number, to: number): Promise<BlockBundle[]> {
    const byBlock = this.blockReceipts;
    const traced = (n: number) => this.storage === 'prestate' && n > 0;
    const calls: RpcCall[] = [];
    for (let n = from; n <= to; n++) {
      const tag = quantityToHex(n);
      calls.push({ method: 'eth_getBlockByNumber', params: [tag, true] });
      if (byBlock) calls.push({ method: 'eth_getBlockReceipts', params: [tag] });
      if (traced(n)) calls.push({ method: 'debug_traceBlockByNumber', params: [tag, PRESTATE_DIFF] });
    }
    const outcomes = await this.client.batch(calls);
    const blocks: unknown[] = [];
    const receipts: (unknown[] | undefined)[] = [];
    const traces: (unknown[] | undefined)[] = [];
    let at = 0;
    for (let n = from; n <= to; n++) {
      const block = resultOf(outcomes[at++]!, 'eth_getBlockByNumber');
      if (block === null) throw new NodeDataError('missing-block', `the node has no block ${n}`);
      blocks.push(block);
      if (byBlock) receipts.push(this.blockReceiptsOf(outcomes[at++]!, n));
      traces.push(
        traced(n)
          ? this.listOf(resultOf(outcomes[at++]!, 'debug_traceBlockByNumber'), 'debug_traceBlockByNumber', n)
          : undefined,
      );
    }
    if (receipts.length === 0 || receipts.some((r) => r === undefined))
      await this.receiptsPerTransaction(blocks, receipts);
    return blocks.map((block, i) => {
      const bundle = normalizeBlock({ block, receipts: receipts[i]!, traces: traces[i] }, from + i);
      if (from + i === 0 && this.storage === 'prestate') bundle.storage = this.genesis;
      return bundle;
    });
  }

  /**
   * The receipts of eth_getBlockReceipts; undefined (and per-transaction receipts from now on) when the node lacks the
   * method.
   */
  private blockReceiptsOf(outcome: RpcOutcome, n: number): unknown[] | undefined {
    if ('error' in outcome && isUnsupported(outcome.error)) {
      if (this.blockReceipts) this.onReceiptsPerTransaction?.();
      this.blockReceipts = false;
      return undefined;
    }
    return this.listOf(resultOf(outcome, 'eth_getBlockReceipts'), 'eth_getBlockReceipts', n);
  }

  /** Fills the missing receipt lists with eth_getTransactionReceipt for every transaction, in one batch. */
  private async receiptsPerTransaction(blocks: unknown[], receipts: (unknown[] | undefined)[]): Promise<void> {
    const calls: RpcCall[] = [];
    const owners: number[] = [];
    blocks.forEach((block, i) => {
      if (receipts[i] !== undefined) return;
      for (const tx of (block as { transactions?: { hash?: unknown }[] }).transactions ?? []) {
        calls.push({ method: 'eth_getTransactionReceipt', params: [tx?.hash] });
        owners.push(i);
      }
      receipts[i] = [];
    });
    const outcomes = await this.client.batch(calls);
    outcomes.forEach((o, k) => {
      const receipt = resultOf(o, 'eth_getTransactionReceipt');
      if (receipt === null)
        throw new NodeDataError(
          'inconsistent',
          `the node has no receipt for a transaction of the block it just served`,
        );
      receipts[owners[k]!]!.push(receipt);
    });
  }

  private listOf(value: unknown, method: string, n: number): unknown[] {
    if (value === null)
      throw new NodeDataError('inconsistent', `${method} has nothing for block ${n}, whose block the node just served`);
    if (!Array.isArray(value)) throw new NodeDataError('malformed', `${method} for block ${n} is not an array`);
    return value;
  }
}
