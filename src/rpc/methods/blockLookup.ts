/**
 * Shared lookups of the block and transaction methods: a block (canonical, pending or orphaned)
 * rendered, and a transaction at a position rendered. Canonical ones render straight from their
 * stored records as RawJson when the caller splices JSON (MethodContext.rawJson), else as wire
 * objects (format.ts); pending and orphaned ones always as wire objects.
 */
import type { BlockBundle } from '../../chain/types.js';
import { writeBlockJson } from '../../render/blockJson.js';
import { formatBlock, formatTransaction } from '../../render/format.js';
import { JsonWriter } from '../../render/jsonWriter.js';
import { RenderedBlocks } from '../../render/renderedBlocks.js';
import { TxBlock, writeTxJson } from '../../render/txJson.js';
import type { BlockTxsReader } from '../../store/blockTxsRecord.js';
import type { StoreReader } from '../../store/reader.js';
import { HeaderOffsets, readHeaderOffsets, storedBlockHash } from '../../store/recordViews.js';
import type { ResolvedBlock } from '../blocks.js';
import { RawJson } from '../method.js';

/** The buffer every canonical block or transaction is rendered into (methods run one at a time). */
const out = new JsonWriter();
const txBlock = new TxBlock();
const headerOffsets = new HeaderOffsets();

/** Canonical blocks rendered lately on this thread. */
const rendered = new RenderedBlocks();

/**
 * Canonical block `number` as JSON text (rendered again only when not cached for its hash); null when it is not stored.
 */
function blockJson(reader: StoreReader, number: number, full: boolean): RawJson | null {
  const header = reader.headerRecord(number);
  if (header === undefined) return null;
  const hash = storedBlockHash(header);
  const cached = rendered.get(number, full, hash);
  if (cached !== undefined) return new RawJson([cached]);
  // Copied: rendering reads the transaction records into the buffer the header is a view of.
  const blockHash = Buffer.from(hash);
  out.reset();
  // Read at the first transaction: after writeBlockJson has copied the header and the hashes out of lmdb's read buffer.
  let records: BlockTxsReader | undefined;
  const record = (i: number) => (records ??= reader.txRecords(number))?.record(i);
  writeBlockJson(out, header, { hashes: () => reader.txHashesRecord(number), record }, full);
  const text = out.latin1();
  rendered.set(number, full, blockHash, text);
  return new RawJson([text]);
}

/**
 * Transaction `index` of canonical block `number` as JSON text; null when it is not stored. `knownHash` is its hash
 * when the caller found it by it (not read again from the block's hashes).
 */
function txJson(reader: StoreReader, number: number, index: number, knownHash?: Uint8Array): RawJson | null {
  const header = reader.headerRecord(number);
  if (header === undefined) {
    if (reader.txRecord(number, index) === undefined) return null;
    throw new Error(`transaction ${index} of block ${number} is stored without its header`);
  }
  txBlock.load(header, readHeaderOffsets(header, headerOffsets));
  const hash = knownHash ?? reader.txHash(number, index);
  const tx = hash && reader.txRecord(number, index);
  if (!tx) return null;
  out.reset();
  writeTxJson(out, tx, hash!, 0, txBlock, index);
  return new RawJson([out.latin1()]);
}

/** Renders a resolved block with hashes or full transactions (RawJson when `rawJson`); null when not found. */
export function renderResolvedBlock(
  reader: StoreReader,
  block: ResolvedBlock,
  full: boolean,
  rawJson = false,
): unknown {
  if (block === null) return null;
  if ('pending' in block) return renderBundle(block.pending, full, true);
  if (rawJson) return blockJson(reader, block.number, full);
  const header = reader.header(block.number);
  if (!header) return null;
  return formatBlock(
    header,
    full ? { full: reader.transactions(block.number) } : { hashes: reader.txHashes(block.number) },
    false,
  );
}

/** Renders a whole stored block (pending, or orphaned and served by hash). */
export function renderBundle(bundle: BlockBundle, full: boolean, pending: boolean): unknown {
  const txs = full ? { full: bundle.transactions } : { hashes: bundle.transactions.map((t) => t.hash) };
  return formatBlock(bundle.header, txs, pending);
}

/**
 * Renders transaction `index` of a resolved block (RawJson when `rawJson` and canonical); null when either is absent.
 * `knownHash`: its hash, when the caller located it by it (the store's hash index confirms the whole hash).
 */
export function renderTxAt(
  reader: StoreReader,
  block: ResolvedBlock,
  index: bigint,
  rawJson = false,
  knownHash?: Uint8Array,
): unknown {
  if (block === null || index > 0xffffffffn) return null;
  const i = Number(index);
  if ('pending' in block) {
    const tx = block.pending.transactions[i];
    return tx ? formatTransaction(tx, null, i) : null;
  }
  if (rawJson) return txJson(reader, block.number, i, knownHash);
  const tx = reader.transaction(block.number, i, knownHash);
  if (!tx) return null;
  const h = reader.header(block.number)!;
  return formatTransaction(
    tx,
    { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas },
    i,
  );
}

/** Renders transaction `index` of an orphaned block, at its old position. */
export function renderOrphanTx(bundle: BlockBundle, index: bigint): unknown {
  const tx = index <= 0xffffffffn ? bundle.transactions[Number(index)] : undefined;
  if (!tx) return null;
  const h = bundle.header;
  return formatTransaction(
    tx,
    { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas },
    Number(index),
  );
}
