/**
 * What a JSON-RPC method is: a function of positional params and the service context.
 */
import type { LogLimits } from '../config.js';
import type { FilterSpec } from '../logs/filter.js';
import type { StoreReader } from '../store/reader.js';

/** A result that is already JSON text (log fragments rendered elsewhere), spliced in as is. */
export class RawJson {
  /** Wraps JSON `text`. */
  constructor(readonly text: string) {}
}

/** Runs an eth_getLogs query: JSON fragments of the matching logs, in order. */
export type LogQuery = (spec: FilterSpec) => string[] | Promise<string[]>;

/** What every method can reach. */
export interface MethodContext {
  reader: StoreReader;
  limits: LogLimits;
  queryLogs: LogQuery;
}

/** A method: positional params in, result (or RawJson) out; throws RpcError for bad input. */
export type RpcMethod = (params: unknown[], ctx: MethodContext) => unknown;
