/**
 * eth_getTransactionReceipt and eth_getBlockReceipts: a canonical transaction's receipt (null for
 * an unknown or pending transaction, as geth), and every receipt of a canonical block by number,
 * tag, hash or EIP-1898 object, or of the pending block (null positions); null when the block is
 * not stored. Reorganised-out blocks have no receipts here.
 */
import type { BlockBundle } from '../../chain/types.js';
import { bundleContext, canonicalContext } from '../../logs/blockLogs.js';
import { type LogContext, type ReceiptBlock, renderBlockReceipts } from '../../render/format.js';
import type { StoreReader } from '../../store/reader.js';
import { resolveBlock } from '../blocks.js';
import { RawJson, type RpcMethod } from '../method.js';
import { checkArity, parseBlockNumberOrHash, parseHash } from '../params.js';

/** Canonical block `number`'s receipts, logs and context; its transactions are read one by one, only those rendered. */
function canonical(reader: StoreReader, number: number): { block: ReceiptBlock; ctx: LogContext } {
  const block = {
    tx: (i: number) => reader.transaction(number, i)!,
    receipts: reader.receipts(number),
    logs: reader.logs(number),
  };
  return { block, ctx: canonicalContext(reader, number) };
}

/** The pending block's receipts, logs and context (null positions). */
function pending(bundle: BlockBundle): { block: ReceiptBlock; ctx: LogContext } {
  return {
    block: { tx: (i) => bundle.transactions[i]!, receipts: bundle.receipts, logs: bundle.logs },
    ctx: bundleContext(bundle, 'pending'),
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
  if (at === undefined) return null;
  const { block, ctx } = canonical(reader, at.number);
  return answer(renderBlockReceipts(block, ctx, at.index, at.index + 1)[0]!, rawJson);
};

/**
 * eth_getBlockReceipts(block): the receipts of a block by number, tag, hash or EIP-1898 object, in order; null when it
 * is not stored.
 */
export const eth_getBlockReceipts: RpcMethod = (params, { reader, rawJson }) => {
  checkArity(params, 1, 1, ['block parameter']);
  const resolved = resolveBlock(parseBlockNumberOrHash(params[0], 0), reader);
  if (resolved === null) return null;
  const { block, ctx } = 'pending' in resolved ? pending(resolved.pending) : canonical(reader, resolved.number);
  return answer('[' + renderBlockReceipts(block, ctx).join(',') + ']', rawJson);
};
