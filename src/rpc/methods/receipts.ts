/**
 * eth_getTransactionReceipt and eth_getBlockReceipts: a canonical transaction's receipt (null for
 * an unknown or pending transaction, as geth), and every receipt of a canonical block by number,
 * tag, hash or EIP-1898 object, or of the pending block (null positions); null when the block is
 * not stored. Reorganised-out blocks have no receipts here.
 */
import { bytesToHex, quantityToHex } from '../../chain/hex.js';
import type { BlockBundle, BlockHeader } from '../../chain/types.js';
import { renderBlockReceipts, type LogContext, type ReceiptBlock as Parts } from '../../render/format.js';
import type { StoreReader } from '../../store/reader.js';
import { resolveBlock } from '../blocks.js';
import { RawJson, type RpcMethod } from '../method.js';
import { checkArity, parseBlockNumberOrHash, parseHash } from '../params.js';

/** A block's parts a receipt is rendered from, with its header and whether it is the pending block. */
interface ReceiptBlock extends Parts {
  header: BlockHeader;
  pending: boolean;
}

/** Canonical block `number` as receipts see it; undefined when it is not stored. */
function canonical(reader: StoreReader, number: number): ReceiptBlock | undefined {
  const header = reader.header(number);
  if (header === undefined) return undefined;
  return { header, transactions: reader.transactions(number), receipts: reader.receipts(number), logs: reader.logs(number), pending: false };
}

/** The pending block as receipts see it. */
function pendingBlock(bundle: BlockBundle): ReceiptBlock {
  return { header: bundle.header, transactions: bundle.transactions, receipts: bundle.receipts, logs: bundle.logs, pending: true };
}

/** The context the receipts of `block` render their logs and positions with. */
function contextOf(block: ReceiptBlock): LogContext {
  const { header, pending } = block;
  return {
    blockHash: pending ? null : bytesToHex(header.hash),
    blockNumber: pending ? null : quantityToHex(header.number),
    blockTimestamp: pending ? null : quantityToHex(header.timestamp),
    txHash: (i) => (pending ? null : bytesToHex(block.transactions[i]!.hash)),
    removed: false,
    pending,
  };
}

/** JSON text as the caller takes it: spliced (RawJson) over JSON-RPC, parsed into wire objects otherwise. */
function answer(text: string, rawJson: boolean | undefined): unknown {
  return rawJson ? new RawJson([text]) : JSON.parse(text);
}

/** eth_getTransactionReceipt(hash): the receipt of a canonical transaction, else null. */
export const eth_getTransactionReceipt: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 1, 1, ['transaction hash']);
  const at = reader.txLocation(parseHash(params[0], 0, 'transaction hash'));
  const block = at === undefined ? undefined : canonical(reader, at.number);
  if (at === undefined || block === undefined) return null;
  return answer(renderBlockReceipts(block, contextOf(block), at.index, at.index + 1)[0]!, rawJson);
};

/** eth_getBlockReceipts(block): the receipts of a block by number, tag, hash or EIP-1898 object, in order; null when it is not stored. */
export const eth_getBlockReceipts: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 1, 1, ['block parameter']);
  const resolved = resolveBlock(parseBlockNumberOrHash(params[0], 0), reader);
  if (resolved === null) return null;
  const block = 'pending' in resolved ? pendingBlock(resolved.pending) : canonical(reader, resolved.number);
  if (block === undefined) return null;
  return answer('[' + renderBlockReceipts(block, contextOf(block)).join(',') + ']', rawJson);
};
