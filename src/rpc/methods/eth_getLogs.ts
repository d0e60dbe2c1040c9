import type { LogChunks } from '../../logs/answer.js';
import { giveBack } from '../../logs/answerBuffers.js';
import { parseFilter } from '../filterParams.js';
import { RawJson, type RpcMethod } from '../method.js';
import { checkArity } from '../params.js';

/** Log chunks as one JSON array, their lent memory given back once the answer is written or copied. */
export function logsJson(chunks: LogChunks): RawJson {
  const parts: (string | Uint8Array)[] = ['['];
  chunks.forEach((chunk, i) => {
    if (i > 0) parts.push(',');
    parts.push(chunk);
  });
  parts.push(']');
  return new RawJson(parts, () => giveBack(chunks));
}

/** eth_getLogs(filter): the matching logs in block and log-index order, under the limits of docs/api.md §6. */
export const eth_getLogs: RpcMethod = (params, ctx, caller, control) => {
  checkArity(params, 1, 1, ['filter']);
  const spec = parseFilter(params[0], ctx.limits.maxParams);
  const result = ctx.queryLogs(spec, { caller, signal: control?.signal });
  return Array.isArray(result) ? logsJson(result) : result.then(logsJson);
};
