/**
 * Growing a stored chain in a test, as `ingest --follow` would: new blocks on top of a given block,
 * parent-linked, each carrying the logs of an earlier block with fresh transaction hashes, so
 * filters and subscriptions have matches to report.
 */
import { randomBytes } from 'node:crypto';
import { logsBloom } from '#src/chain/bloom.js';
import type { BlockBundle } from '#src/chain/types.js';
import type { StoreReader } from '#src/store/reader.js';

/** `count` new blocks on top of block `parent` (the head by default), ready for StoreWriter.append. */
export function nextBlocks(reader: StoreReader, count: number, parent = reader.head()!): BlockBundle[] {
  const out: BlockBundle[] = [];
  let parentHash = reader.header(parent)!.hash;
  for (let i = 1; i <= count; i++) {
    let donor = parent - i;
    while (reader.logs(donor).length === 0) donor--;
    const transactions = reader.transactions(donor).map((tx) => ({ ...tx, hash: randomBytes(32) }));
    const logs = reader.logs(donor);
    const base = reader.header(parent)!;
    const header = {
      ...base,
      number: parent + i,
      hash: randomBytes(32),
      parentHash,
      logsBloom: logsBloom(logs),
      timestamp: base.timestamp + i * 12,
      txCount: transactions.length,
    };
    out.push({ header, transactions, receipts: reader.receipts(donor), logs, storage: [] });
    parentHash = header.hash;
  }
  return out;
}
