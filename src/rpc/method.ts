/**
 * What a JSON-RPC method is: a function of positional params and the service context.
 */
import type { LogLimits } from '../config.js';
import type { FilterService } from '../filters/registry.js';
import type { LogChunks } from '../logs/answer.js';
import type { FilterSpec } from '../logs/filter.js';
import type { ReplicaSync } from '../replica/lag.js';
import type { StoreReader } from '../store/reader.js';

/** A result that is already JSON (log fragments rendered elsewhere): its parts are spliced in as they are. */
export class RawJson {
  /**
   * Wraps JSON made of `parts`, concatenated in order (text or UTF-8 bytes); `release`, when given,
   * is called once the parts are written or copied (the memory they are in is lent: logs/answerBuffers.ts).
   */
  constructor(
    readonly parts: (string | Uint8Array)[],
    readonly release?: () => void,
  ) {}
}

/**
 * Runs an eth_getLogs query: the matching logs in order, as chunks of comma-separated JSON objects
 * (text or UTF-8 bytes); the answer is the chunks joined with commas inside brackets. Throws (or
 * rejects with) the log engine's errors (logs/errors.ts).
 */
export type LogQuery = (spec: FilterSpec, call?: LogCall) => LogChunks | Promise<LogChunks>;

/** Who runs a log query: the API key it is admitted and charged under, and the signal of its caller going away. */
export interface LogCall {
  caller?: string;
  signal?: AbortSignal;
}

/** What every method can reach. */
export interface MethodContext {
  reader: StoreReader;
  limits: LogLimits;
  queryLogs: LogQuery;
  /** The polling filters (the HTTP and WebSocket fronts); absent, the filter methods are not served. */
  filters?: FilterService;
  /** The node a replica follows (serve --follow-rpc): eth_syncing answers against it; absent, eth_syncing is false. */
  sync?: ReplicaSync;
  /**
   * Set by the JSON-RPC envelope, which splices RawJson into its answers: block and transaction
   * lookups then answer with JSON rendered straight from the stored records. Unset (other fronts),
   * they answer with wire objects.
   */
  rawJson?: boolean;
}

/**
 * A method: positional params in, result (or RawJson) out; throws an RpcError for bad input, or a
 * domain error (the log engine's, BlockNotFoundError) that toRpcError maps. `caller` is the API key
 * the call came with (what is kept per client, polling filters, is counted by it); `control.signal`
 * aborts when its client goes away (log queries stop; read only by the methods that use it).
 */
export type RpcMethod = (
  params: unknown[],
  ctx: MethodContext,
  caller?: string,
  control?: { readonly signal?: AbortSignal },
) => unknown;
