/**
 * Differential test of the fast JSON path (src/render, MethodContext.rawJson) against the
 * reference (format.ts + JSON.stringify) on a generated chain that covers every fork era and
 * transaction type: every block with hashes and with full transactions, by number and by hash, and
 * every transaction by hash and by block number / hash and index, byte for byte; then the same
 * after a reorganisation (replaced canonical blocks render fast, orphaned ones and the pending block
 * as before), and through the JSON-RPC envelope.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle, Transaction } from '#src/chain/types.js';
import { DEFAULT_LOG_LIMITS } from '#src/config.js';
import { formatBlock, formatTransaction } from '#src/render/format.js';
import { createRpcHandler } from '#src/rpc/dispatcher.js';
import { type MethodContext, RawJson } from '#src/rpc/method.js';
import { METHODS } from '#src/rpc/methods/index.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { generateStore } from '#src/synth/generateStore.js';

const OPTS = { blocks: 300, density: 0.1, seed: 'render', pending: true, progress: false };

let dir: string;
let store: Store;
let reader: StoreReader;
let fast: MethodContext;
let reference: MethodContext;

/** The JSON text of a method's answer in `ctx`: RawJson spliced, anything else stringified. */
function answer(ctx: MethodContext, method: string, params: unknown[]): string {
  const result = METHODS.get(method)!(params, ctx);
  if (result instanceof RawJson) return result.parts.join('');
  return JSON.stringify(result === undefined ? null : result);
}

/** Asserts that the fast and the reference answers agree byte for byte; returns the answer. */
function same(method: string, params: unknown[]): string {
  const text = answer(fast, method, params);
  assert.equal(text, answer(reference, method, params), `${method} ${JSON.stringify(params)}`);
  return text;
}

/** The kinds of transaction the chain must cover. */
function kind(tx: Transaction): string {
  return tx.type === 0 ? (tx.chainId === undefined ? '0-unprotected' : '0-eip155') : String(tx.type);
}

/** Checks every block and transaction of the stored canonical chain; returns the kinds and header shapes seen. */
function checkCanonical(): { kinds: Set<string>; forks: Set<string> } {
  const kinds = new Set<string>();
  const forks = new Set<string>();
  const meta = reader.meta()!;
  for (let n = meta.earliest; n <= meta.head; n++) {
    const header = reader.header(n)!;
    const txs = reader.transactions(n);
    const number = quantityToHex(n);
    const hash = bytesToHex(header.hash);
    forks.add(
      ['baseFeePerGas', 'withdrawals', 'blobGasUsed', 'parentBeaconBlockRoot', 'requestsHash']
        .filter((k) => k in header)
        .join(','),
    );
    for (const full of [false, true]) {
      const text = same('eth_getBlockByNumber', [number, full]);
      const expected = JSON.stringify(
        formatBlock(header, full ? { full: txs } : { hashes: txs.map((t) => t.hash) }, false),
      );
      assert.equal(text, expected);
      assert.equal(same('eth_getBlockByHash', [hash, full]), expected);
    }
    const at = { hash: header.hash, number: n, timestamp: header.timestamp, baseFeePerGas: header.baseFeePerGas };
    txs.forEach((tx, i) => {
      kinds.add(kind(tx));
      const expected = JSON.stringify(formatTransaction(tx, at, i));
      assert.equal(same('eth_getTransactionByHash', [bytesToHex(tx.hash)]), expected);
      assert.equal(same('eth_getTransactionByBlockNumberAndIndex', [number, quantityToHex(i)]), expected);
      assert.equal(same('eth_getTransactionByBlockHashAndIndex', [hash, quantityToHex(i)]), expected);
    });
    assert.equal(same('eth_getTransactionByBlockNumberAndIndex', [number, quantityToHex(txs.length)]), 'null');
    assert.equal(same('eth_getTransactionByBlockHashAndIndex', [hash, quantityToHex(txs.length)]), 'null');
  }
  for (const tag of ['latest', 'earliest', 'safe', 'finalized', 'pending']) {
    for (const full of [false, true]) same('eth_getBlockByNumber', [tag, full]);
    same('eth_getTransactionByBlockNumberAndIndex', [tag, '0x0']);
  }
  assert.equal(same('eth_getBlockByNumber', [quantityToHex(meta.head + 1), true]), 'null');
  assert.equal(same('eth_getBlockByHash', ['0x' + '11'.repeat(32), true]), 'null');
  assert.equal(same('eth_getTransactionByHash', ['0x' + '22'.repeat(32)]), 'null');
  return { kinds, forks };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-render-'));
  await generateStore(dir, OPTS);
  store = openStore(dir);
  reader = new StoreReader(store);
  reference = { reader, limits: DEFAULT_LOG_LIMITS, queryLogs: () => [] };
  fast = { ...reference, rawJson: true };
});

after(async () => {
  await closeStore(store);
  rmSync(dir, { recursive: true, force: true });
});

test('every block (both flags) and every transaction of a generated chain renders as the reference does', () => {
  const { kinds, forks } = checkCanonical();
  assert.deepEqual([...kinds].sort(), ['0-eip155', '0-unprotected', '1', '2', '3', '4']);
  assert.deepEqual([...forks].sort(), [
    'baseFeePerGas',
    'baseFeePerGas,withdrawals',
    'baseFeePerGas,withdrawals,blobGasUsed,parentBeaconBlockRoot',
    'baseFeePerGas,withdrawals,blobGasUsed,parentBeaconBlockRoot,requestsHash',
  ]);
});

test('pending transactions and the pending block keep the reference rendering', () => {
  const pending = reader.pending()!;
  assert.ok(pending.transactions.length > 0);
  for (const full of [false, true])
    assert.equal(
      same('eth_getBlockByNumber', ['pending', full]),
      JSON.stringify(
        formatBlock(
          pending.header,
          full ? { full: pending.transactions } : { hashes: pending.transactions.map((t) => t.hash) },
          true,
        ),
      ),
    );
  pending.transactions.forEach((tx, i) => {
    assert.equal(
      same('eth_getTransactionByHash', [bytesToHex(tx.hash)]),
      JSON.stringify(formatTransaction(tx, null, i)),
    );
    same('eth_getTransactionByBlockNumberAndIndex', ['pending', quantityToHex(i)]);
  });
});

test('after a reorganisation: replaced blocks render fast, orphaned blocks and their transactions as before', () => {
  const head = reader.meta()!.head;
  const orphaned: BlockBundle[] = [head - 1, head].map((n) => ({
    header: reader.header(n)!,
    transactions: reader.transactions(n),
    receipts: reader.receipts(n),
    logs: reader.logs(n),
    storage: [],
  }));
  const [old] = orphaned;
  const replacement: BlockBundle = {
    header: { ...old!.header, hash: new Uint8Array(32).fill(0xab), timestamp: old!.header.timestamp + 1, txCount: 2 },
    transactions: [old!.transactions[0]!, { ...old!.transactions[1]!, hash: new Uint8Array(32).fill(0xcd) }],
    receipts: old!.receipts.slice(0, 2),
    logs: [],
    storage: [],
  };
  new StoreWriter(store).append({ rollbackTo: head - 2, blocks: [replacement] });
  checkCanonical();
  for (const bundle of orphaned) {
    const hash = bytesToHex(bundle.header.hash);
    for (const full of [false, true]) same('eth_getBlockByHash', [hash, full]);
    bundle.transactions.forEach((tx, i) => {
      same('eth_getTransactionByBlockHashAndIndex', [hash, quantityToHex(i)]);
      same('eth_getTransactionByHash', [bytesToHex(tx.hash)]);
    });
  }
  assert.equal(same('eth_getTransactionByHash', [bytesToHex(old!.transactions[1]!.hash)]), 'null');
});

test('through the JSON-RPC envelope the answer is the reference result spliced in', () => {
  const handler = createRpcHandler(reference, (message, error) => assert.fail(`${message}: ${String(error)}`));
  const head = reader.meta()!.head;
  for (let n = head - 20; n <= head; n++) {
    const header = reader.header(n)!;
    const txs = reader.transactions(n);
    for (const full of [false, true]) {
      const body = Buffer.from(
        JSON.stringify({ jsonrpc: '2.0', id: n, method: 'eth_getBlockByNumber', params: [quantityToHex(n), full] }),
      );
      const result = JSON.stringify(
        formatBlock(header, full ? { full: txs } : { hashes: txs.map((t) => t.hash) }, false),
      );
      assert.equal(String(handler.handle(body)), `{"jsonrpc":"2.0","id":${n},"result":${result}}`);
    }
    const batch = txs.map((tx, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_getTransactionByHash',
      params: [bytesToHex(tx.hash)],
    }));
    if (batch.length === 0) continue;
    const at = { hash: header.hash, number: n, timestamp: header.timestamp, baseFeePerGas: header.baseFeePerGas };
    const expected =
      '[' +
      txs
        .map((tx, i) => `{"jsonrpc":"2.0","id":${i},"result":${JSON.stringify(formatTransaction(tx, at, i))}}`)
        .join(',') +
      ']';
    assert.equal(String(handler.handle(Buffer.from(JSON.stringify(batch)))), expected);
  }
});
