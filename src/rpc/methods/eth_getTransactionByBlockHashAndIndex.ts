import type { RpcMethod } from '../method.js';
import { checkArity, parseHash, parseQuantity } from '../params.js';
import { renderOrphanTx, renderTxAt } from './blockLookup.js';

/** eth_getTransactionByBlockHashAndIndex(hash, index): the transaction, or null. */
export const eth_getTransactionByBlockHashAndIndex: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 2, 2, ['block hash', 'transaction index position']);
  const hash = parseHash(params[0], 0, 'block hash');
  const index = parseQuantity(params[1], 1, 'transaction index position');
  const number = reader.numberByHash(hash);
  if (number !== undefined) return renderTxAt(reader, { number }, index, rawJson);
  const orphan = reader.orphan(hash);
  return orphan ? renderOrphanTx(orphan, index) : null;
};
