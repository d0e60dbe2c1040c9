import { BlockNotFoundError } from '../../chain/errors.js';
import { bytesToHex } from '../../chain/hex.js';
import type { BlockId } from '../../chain/types.js';
import { resolveBlock } from '../blocks.js';
import type { RpcMethod } from '../method.js';
import { checkArity, parseAddress, parseBlockNumberOrHash, parseStorageKey } from '../params.js';

const LATEST: BlockId = { tag: 'latest' };

/**
 * eth_getStorageAt(address, position, block = latest): the 32-byte word at that slot after that
 * block. The pending block's state is the head's (pending blocks carry no storage writes here).
 */
export const eth_getStorageAt: RpcMethod = (params, { reader }) => {
  checkArity(params, 2, 3, ['address', 'storage position', 'block parameter']);
  const address = parseAddress(params[0], 0);
  const slot = parseStorageKey(params[1], 1);
  const ref = params[2] === undefined || params[2] === null ? LATEST : parseBlockNumberOrHash(params[2], 2);
  const block = resolveBlock(ref, reader);
  if (block === null) throw new BlockNotFoundError('hash' in ref);
  const number = 'pending' in block ? reader.meta()!.head : block.number;
  return bytesToHex(reader.storageAt(address, slot, number));
};
