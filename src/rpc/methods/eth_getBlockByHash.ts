import type { RpcMethod } from '../method.js';
import { checkArity, parseBool, parseHash } from '../params.js';
import { renderBundle, renderResolvedBlock } from './blockLookup.js';

/** eth_getBlockByHash(hash, fullTransactions): a canonical or reorganised-out block, or null. */
export const eth_getBlockByHash: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 2, 2, ['block hash', 'show transaction details flag']);
  const hash = parseHash(params[0], 0, 'block hash');
  const full = parseBool(params[1], 1, 'show transaction details flag');
  const number = reader.numberByHash(hash);
  if (number !== undefined) return renderResolvedBlock(reader, { number }, full, rawJson);
  const orphan = reader.orphan(hash);
  return orphan ? renderBundle(orphan, full, false) : null;
};
