/**
 * The companion methods clients call on connect: chain id, network version, head, client version, sync state.
 */
import { quantityToHex } from '../../chain/hex.js';
import { CLIENT_VERSION } from '../../config.js';
import { RpcError } from '../errors.js';
import type { MethodContext, RpcMethod } from '../method.js';
import { checkArity } from '../params.js';

/** The store's error while it holds no block (no chain id or head to answer with). */
function empty(): RpcError {
  return new RpcError(-32000, 'the store holds no blocks yet');
}

/** The chain id, once the store holds a block. */
function chainId(ctx: MethodContext): bigint {
  if (ctx.reader.head() === undefined) throw empty();
  return ctx.reader.chainId();
}

/** eth_chainId(): the chain id as a hex quantity. */
export const eth_chainId: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  return quantityToHex(chainId(ctx));
};

/** net_version(): the chain id in decimal, as geth answers it. */
export const net_version: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  return chainId(ctx).toString();
};

/** eth_blockNumber(): the head block number. */
export const eth_blockNumber: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  const head = ctx.reader.head();
  if (head === undefined) throw empty();
  return quantityToHex(head);
};

/** web3_clientVersion(): this service's name and version. */
export const web3_clientVersion: RpcMethod = (params) => {
  checkArity(params, 0, 0);
  return CLIENT_VERSION;
};

/**
 * eth_syncing(): false. The service answers from its store, which is as synced as it is: a store
 * still being filled by `ingest` answers for the blocks it holds, and its head says how far it is.
 */
export const eth_syncing: RpcMethod = (params) => {
  checkArity(params, 0, 0);
  return false;
};
