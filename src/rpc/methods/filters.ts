/**
 * The polling-filter methods over the context's FilterService (filters/registry.ts): install,
 * poll, read a log filter's whole range, uninstall, with geth's parameters and errors.
 */
import type { FilterService } from '../../filters/registry.js';
import type { FilterSpec } from '../../logs/filter.js';
import { MethodNotFoundError } from '../errors.js';
import { parseFilter } from '../filterParams.js';
import { type MethodContext, RawJson, type RpcMethod } from '../method.js';
import { argError, checkArity } from '../params.js';
import { logsJson } from './eth_getLogs.js';

/** The context's filters, or geth's answer where none are kept (the gRPC front, the library). */
function filters(ctx: MethodContext, method: string): FilterService {
  if (ctx.filters === undefined) throw new MethodNotFoundError(method);
  return ctx.filters;
}

/** A filter id parameter: a string. */
function filterId(params: unknown[]): string {
  checkArity(params, 1, 1, ['filter id']);
  const id = params[0];
  if (typeof id !== 'string') throw argError(0, 'filter id', 'must be a string');
  return id;
}

/** A JSON array of `texts`. */
function jsonArray(texts: string[]): RawJson {
  return new RawJson(['[', texts.join(','), ']']);
}

/** eth_newFilter(filter): a log filter over the filter's address, topics and block range; its id. */
export const eth_newFilter: RpcMethod = (params, ctx, caller) => {
  checkArity(params, 1, 1, ['filter']);
  const spec = parseFilter(params[0], ctx.limits.maxParams);
  if (spec.blockHash !== undefined) throw argError(0, 'filter', 'a filter follows block ranges, not a block hash');
  return filters(ctx, 'eth_newFilter').newLogFilter(spec, caller);
};

/** eth_newBlockFilter(): a filter of new block hashes; its id. */
export const eth_newBlockFilter: RpcMethod = (params, ctx, caller) => {
  checkArity(params, 0, 0);
  return filters(ctx, 'eth_newBlockFilter').newBlockFilter(caller);
};

/**
 * eth_getFilterChanges(id): the logs (with removed ones after a reorganisation) or block hashes since the last poll.
 */
export const eth_getFilterChanges: RpcMethod = (params, ctx) => {
  const changes = filters(ctx, 'eth_getFilterChanges').changes(filterId(params));
  return Array.isArray(changes) ? jsonArray(changes) : changes.then(jsonArray);
};

/** eth_getFilterLogs(id): every log of a log filter's whole range, as eth_getLogs answers it. */
export const eth_getFilterLogs: RpcMethod = (params, ctx, caller, control) => {
  const criteria = filters(ctx, 'eth_getFilterLogs').criteria(filterId(params));
  const query = (spec: FilterSpec) => {
    const result = ctx.queryLogs(spec, { caller, signal: control?.signal });
    return Array.isArray(result) ? logsJson(result) : result.then(logsJson);
  };
  return criteria instanceof Promise ? criteria.then(query) : query(criteria);
};

/** eth_uninstallFilter(id): true when a filter was removed, false when there was none. */
export const eth_uninstallFilter: RpcMethod = (params, ctx) =>
  filters(ctx, 'eth_uninstallFilter').uninstall(filterId(params));
