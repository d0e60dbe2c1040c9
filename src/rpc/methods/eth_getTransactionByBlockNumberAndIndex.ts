import { resolveBlock } from '../blocks.js';
import type { RpcMethod } from '../method.js';
import { checkArity, parseBlockNumber, parseQuantity } from '../params.js';
import { renderTxAt } from './blockLookup.js';

/** eth_getTransactionByBlockNumberAndIndex(block, index): the transaction, or null. */
export const eth_getTransactionByBlockNumberAndIndex: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 2, 2, ['block parameter', 'transaction index position']);
  const ref = parseBlockNumber(params[0], 0);
  const index = parseQuantity(params[1], 1, 'transaction index position');
  return renderTxAt(reader, resolveBlock(ref, reader), index, rawJson);
};
