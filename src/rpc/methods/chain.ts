/**
 * The companion methods clients call on connect: chain id, network version, head, client version.
 */
import { quantityToHex } from '../../chain/hex.js';
import { CLIENT_VERSION } from '../../config.js';
import { RpcError } from '../errors.js';
import type { MethodContext, RpcMethod } from '../method.js';
import { checkArity } from '../params.js';

function meta(ctx: MethodContext) {
  const m = ctx.reader.meta();
  if (!m) throw new RpcError(-32000, 'the store holds no blocks yet');
  return m;
}

/** eth_chainId(): the chain id as a hex quantity. */
export const eth_chainId: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  return quantityToHex(meta(ctx).chainId);
};

/** net_version(): the chain id in decimal, as geth answers it. */
export const net_version: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  return meta(ctx).chainId.toString();
};

/** eth_blockNumber(): the head block number. */
export const eth_blockNumber: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  return quantityToHex(meta(ctx).head);
};

/** web3_clientVersion(): this service's name and version. */
export const web3_clientVersion: RpcMethod = (params) => {
  checkArity(params, 0, 0);
  return CLIENT_VERSION;
};
