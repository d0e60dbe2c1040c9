/**
 * The companion methods clients call on connect: chain id, network version, head, client version, sync state.
 */
import { quantityToHex } from '../../chain/hex.js';
import { CLIENT_VERSION } from '../../config.js';
import { lagStatus } from '../../replica/lag.js';
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
 * eth_syncing(): false, or geth's syncing object. A service that follows no node answers from its
 * store, which is as synced as it is (its head says how far): false. A replica (serve --follow-rpc)
 * answers by /ready's rule (replica/lag.ts): false while its store is within --max-lag-blocks of the
 * node's head, else startingBlock (the store's head when it began following), currentBlock (its head)
 * and highestBlock (the node's, as last seen; the current block while the node is not yet known).
 */
export const eth_syncing: RpcMethod = (params, ctx) => {
  checkArity(params, 0, 0);
  if (ctx.sync === undefined) return false;
  const head = ctx.reader.head();
  const { nodeHead, behind } = lagStatus(head, ctx.sync);
  if (behind === undefined) return false;
  const current = head ?? 0;
  return {
    startingBlock: quantityToHex(ctx.sync.gauge.startingBlock() ?? 0),
    currentBlock: quantityToHex(current),
    highestBlock: quantityToHex(Math.max(nodeHead ?? current, current)),
  };
};
