import { parseFilter } from '../../logs/filter.js';
import { RawJson, type RpcMethod } from '../method.js';
import { checkArity } from '../params.js';

function wrap(fragments: string[]): RawJson {
  return new RawJson('[' + fragments.join(',') + ']');
}

/** eth_getLogs(filter): the matching logs in block and log-index order, under SPEC.md §8's limits. */
export const eth_getLogs: RpcMethod = (params, ctx) => {
  checkArity(params, 1, 1);
  const spec = parseFilter(params[0], ctx.limits.maxParams);
  const result = ctx.queryLogs(spec);
  return Array.isArray(result) ? wrap(result) : result.then(wrap);
};
