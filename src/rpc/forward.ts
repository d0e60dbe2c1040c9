/**
 * Forwarding what the store cannot answer (serve --upstream): the calls of a body whose methods are
 * on the forwarding list go to the upstream node together, their block tags pinned to this store's
 * markers as the thread answering them reads them (so an eth_call at latest reads the block the
 * same client's eth_blockNumber named), after the key's own budget for forwarded calls pays for
 * them. A call at a block above the head waits for the store to get there (as X-Ethlogd-Min-Head
 * does), else is refused. The node's errors pass through as they are; its failures become the
 * domain errors toRpcError maps (-32011, -32015).
 */
import type { RateLimiter } from '../limits/rateLimiter.js';
import type { StoreReader } from '../store/reader.js';
import { BlockBeyondHeadError, UpstreamTimeoutError, UpstreamUnavailableError } from '../upstream/errors.js';
import { hasBlockParam, pinBlockParams } from '../upstream/methods.js';
import type { Upstream, UpstreamAnswer, UpstreamCall } from '../upstream/types.js';
import { RpcError } from './errors.js';

/** What a JSON-RPC handler forwards, and how. */
export interface ForwardOptions {
  /** Sends the calls to the node (the client on the main thread, or a thread's way to it). */
  upstream: Upstream;
  /** The methods forwarded (upstream/methods.ts's forwardedMethods). */
  methods: ReadonlySet<string>;
  /** The per-key limit on forwarded calls, spent on top of the service's own; none when unset. */
  budget?: RateLimiter;
  /**
   * Resolves true once the store's head is at `floor`, false when it does not get there in time;
   * without it a call above the head is refused at once.
   */
  waitForHead?: (floor: number) => Promise<boolean>;
}

/** A forwarded call's outcome: its result, or the error it is answered with (an RpcError or a domain error). */
export type Forwarded = { result: unknown } | { error: unknown };

/** The store's error while it holds no block: no head to pin a tag to. */
function storeEmpty(): RpcError {
  return new RpcError(-32000, 'the store holds no blocks yet');
}

/** The outcome of an answer of the node. */
function outcomeOf(answer: UpstreamAnswer): Forwarded {
  if ('result' in answer) return { result: answer.result };
  if ('error' in answer) return { error: new RpcError(answer.error.code, answer.error.message, answer.error.data) };
  const { failure } = answer;
  return {
    error:
      failure.kind === 'timeout'
        ? new UpstreamTimeoutError(failure.timeoutMs ?? 0)
        : new UpstreamUnavailableError(failure.reason),
  };
}

/** Forwards calls for one JSON-RPC handler, pinning their blocks with `reader`'s markers. */
export class Forwarder {
  /** Forwards as `options` say. */
  constructor(
    private readonly options: ForwardOptions,
    private readonly reader: StoreReader,
  ) {}

  /** Whether calls of `method` are forwarded. */
  allows(method: string): boolean {
    return this.options.methods.has(method);
  }

  /**
   * Forwards `calls` for the API key `caller` (undefined: no key, no budget spent); outcomes in
   * call order, never a rejection.
   */
  async forward(calls: UpstreamCall[], caller: string | undefined): Promise<Forwarded[]> {
    const refused = caller === undefined ? null : (this.options.budget?.take(caller, calls.length) ?? null);
    if (refused !== null) return calls.map(() => ({ error: refused }));
    const outcomes = new Array<Forwarded | undefined>(calls.length);
    const ready: UpstreamCall[] = [];
    const readyAt: number[] = [];
    await Promise.all(
      calls.map(async (call, i) => {
        try {
          ready.push({ method: call.method, params: await this.pinned(call) });
          readyAt.push(i);
        } catch (error) {
          outcomes[i] = { error };
        }
      }),
    );
    if (ready.length > 0) {
      const answers = await this.options.upstream.send(ready);
      answers.forEach((answer, j) => (outcomes[readyAt[j]!] = outcomeOf(answer)));
    }
    return outcomes as Forwarded[];
  }

  /**
   * The params `call` goes to the node with: its block pinned to the store's markers, once the
   * store has the block it names.
   */
  private async pinned(call: UpstreamCall): Promise<unknown[]> {
    const meta = this.reader.meta();
    if (meta === undefined) {
      if (hasBlockParam(call.method)) throw storeEmpty();
      return call.params;
    }
    const { params, highest } = pinBlockParams(call.method, call.params, meta);
    if (highest === undefined || highest <= meta.head) return params;
    if (this.options.waitForHead !== undefined && (await this.options.waitForHead(highest))) return params;
    throw new BlockBeyondHeadError(highest, this.reader.head() ?? meta.head);
  }
}
