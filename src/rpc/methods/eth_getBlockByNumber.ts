import { resolveBlock } from '../blocks.js';
import type { RpcMethod } from '../method.js';
import { checkArity, parseBlockNumber, parseBool } from '../params.js';
import { renderResolvedBlock } from './blockLookup.js';

/** eth_getBlockByNumber(block, fullTransactions): the block, or null. */
export const eth_getBlockByNumber: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 2, 2, ['block parameter', 'show transaction details flag']);
  const ref = parseBlockNumber(params[0], 0);
  const full = parseBool(params[1], 1, 'show transaction details flag');
  return renderResolvedBlock(reader, resolveBlock(ref, reader), full, rawJson);
};
