import { bytesEqual } from '../../chain/hex.js';
import { formatTransaction } from '../../render/format.js';
import type { RpcMethod } from '../method.js';
import { checkArity, parseHash } from '../params.js';
import { renderTxAt } from './blockLookup.js';

/** eth_getTransactionByHash(hash): a canonical transaction, else a pending one (null positions), else null. */
export const eth_getTransactionByHash: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 1, 1, ['transaction hash']);
  const hash = parseHash(params[0], 0, 'transaction hash');
  const at = reader.txLocation(hash);
  if (at) return renderTxAt(reader, { number: at.number }, BigInt(at.index), rawJson, hash);
  const pending = reader.pending();
  const index = pending ? pending.transactions.findIndex((tx) => bytesEqual(tx.hash, hash)) : -1;
  return index >= 0 ? formatTransaction(pending!.transactions[index]!, null, index) : null;
};
