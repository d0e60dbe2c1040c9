/**
 * Why a lookup that cannot answer null fails: the store holds no block by the name it was given.
 * No transport's codes or wording here: rpc/errors.ts (toRpcError) and grpc/errors.ts map it.
 */

/** The store holds no block by the number, tag or hash a lookup named (eth_getStorageAt's block). */
export class BlockNotFoundError extends Error {
  /** `byHash`: whether the block was named by its hash. */
  constructor(readonly byHash: boolean) {
    super(byHash ? 'no block with that hash' : 'no block with that number');
  }
}
