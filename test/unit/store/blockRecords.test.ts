/**
 * blockRecords: a block's records are exactly what the per-record codecs encode (header,
 * transactions and their hashes, receipts, logs, storage keys, values and prefixes), and
 * several blocks written into one buffer read back as views, each the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlockBundle } from '#src/chain/types.js';
import { type BlockRecords, encodeBlockRecords, readBlockRecords, writeBlockRecords } from '#src/store/blockRecords.js';
import { encodeBlockTxs } from '#src/store/blockTxsRecord.js';
import { ByteReader, ByteWriter } from '#src/store/bytes.js';
import { encodeHeader, encodeTx } from '#src/store/codec.js';
import { encodeStorageKey, STORAGE_PREFIX_BYTES } from '#src/store/keys.js';
import { encodeLogs } from '#src/store/logsRecord.js';
import { encodeReceipts } from '#src/store/receiptsRecord.js';
import { generateChain } from '#src/synth/generator.js';

/** Blocks with transactions, logs and storage writes, and empty ones (density 0). */
const chain: BlockBundle[] = [
  ...generateChain({ blocks: 40, seed: 'records', density: 0.02 }),
  ...generateChain({ blocks: 3, seed: 'records', density: 0 }),
];

/** The records of `block` as the per-record codecs encode them. */
function expected(block: BlockBundle): BlockRecords {
  const n = block.header.number;
  const strip = (v: Uint8Array) =>
    Buffer.from(v.subarray(v.findIndex((b) => b !== 0) === -1 ? v.length : v.findIndex((b) => b !== 0)));
  const keys = block.storage.map((w) => encodeStorageKey(w.address, w.slot, n));
  return {
    number: n,
    header: encodeHeader(block.header),
    txCount: block.transactions.length,
    txs: block.transactions.length > 0 ? encodeBlockTxs(block.transactions.map((tx) => encodeTx(tx))) : undefined,
    txHashes: block.transactions.length > 0 ? Buffer.concat(block.transactions.map((tx) => tx.hash)) : undefined,
    receipts: block.receipts.length > 0 ? encodeReceipts(block.receipts) : undefined,
    logs: block.logs.length > 0 ? encodeLogs(block.logs) : undefined,
    storageKeys: keys,
    storageValues: block.storage.map((w) => strip(w.value)),
    storageWrites: keys.length > 0 ? Buffer.concat(keys.map((k) => k.subarray(0, STORAGE_PREFIX_BYTES))) : undefined,
  };
}

test("a block's records are the per-record codecs' bytes", () => {
  const kinds = { empty: 0, logs: 0, storage: 0 };
  for (const block of chain) {
    assert.deepEqual(encodeBlockRecords(block), expected(block), `block ${block.header.number}`);
    if (block.transactions.length === 0) kinds.empty++;
    if (block.logs.length > 0) kinds.logs++;
    if (block.storage.length > 0) kinds.storage++;
  }
  assert.ok(kinds.empty > 0 && kinds.logs > 0 && kinds.storage > 0, `blocks of every kind: ${JSON.stringify(kinds)}`);
});

test('blocks written into one buffer read back in order as views into it', () => {
  const w = new ByteWriter(16);
  for (const block of chain) writeBlockRecords(w, block);
  const bytes = w.finish();
  const r = new ByteReader(bytes);
  for (const block of chain) {
    const records = readBlockRecords(r);
    assert.deepEqual(records, expected(block));
    assert.equal(records.header.buffer, bytes.buffer, 'a view, not a copy');
  }
  assert.ok(r.done());
});
