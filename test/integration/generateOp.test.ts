/**
 * `ethlogd generate --chain op`: an OP-stack-like chain (an L1-attributes deposit first in every
 * block, user deposits with mint, L1 fee fields on the other receipts), the same store with threads
 * as without; it passes `verify`, a server answers its blocks, transactions and receipts with the
 * deposits as op-geth renders them (a deposit's hash is keccak256 of its encoding), the blocks'
 * JSON from the records equals the reference renderer's, and `export` carries the kept fields.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { bytesToHex, hexToBytes } from '#src/chain/hex.js';
import { keccak256 } from '#src/chain/keccak.js';
import { encodeDeposit } from '#src/chain/opDeposit.js';
import { createLogger } from '#src/logger.js';
import { formatBlock } from '#src/render/format.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { batchCalls } from '../support/anvil.js';
import { runCli } from '../support/child.js';
import { diffStores } from '../support/storeDiff.js';

type Obj = Record<string, unknown>;
const BLOCKS = 40;
const hex = (n: number) => '0x' + n.toString(16);

let dir: string;
let service: RunningService;
let endpoint: string;

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args);
  assert.equal(r.code, 0, `ethlogd ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-genop-'));
  await cli([
    'generate',
    '--out',
    join(dir, 'op'),
    '--blocks',
    String(BLOCKS),
    '--density',
    '0.05',
    '--chain',
    'op',
    '--threads',
    '2',
  ]);
  const store = openStore(join(dir, 'op'));
  const key = createApiKey(store, 'op');
  await closeStore(store);
  service = await startService({
    dataDir: join(dir, 'op'),
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    threads: 1,
  });
  endpoint = `${service.url}/v3/${key}`;
});

after(async () => {
  await service?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function ours(method: string, params: unknown[]): Promise<unknown> {
  const [reply] = await batchCalls(endpoint, [{ method, params }]);
  if (reply!.error) throw new Error(`${method}: ${reply!.error.message}`);
  return reply!.result;
}

describe('generate --chain op', () => {
  test('the same store with threads as without; verify finds no problem; the store records its kind', async () => {
    await cli([
      'generate',
      '--out',
      join(dir, 'op0'),
      '--blocks',
      String(BLOCKS),
      '--density',
      '0.05',
      '--chain',
      'op',
      '--threads',
      '0',
    ]);
    assert.match(await cli(['verify', '--data', join(dir, 'op')]), /no problems/);
    const [a, b] = [openStore(join(dir, 'op0'), { readOnly: true }), openStore(join(dir, 'op'), { readOnly: true })];
    try {
      assert.deepEqual(diffStores(a, b), []);
      assert.equal(new StoreReader(a).chainKind(), 'op');
    } finally {
      await closeStore(a);
      await closeStore(b);
    }
    const refused = await runCli([
      'generate',
      '--out',
      join(dir, 'op'),
      '--blocks',
      String(BLOCKS + 5),
      '--density',
      '0.05',
    ]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /another chain \(--seed "ethlogd" --density 0.05 --chain op, not --seed "ethlogd" --density 0.05\)/,
    );
  });

  test(
    'every block opens with the L1-attributes deposit; user deposits mint; ' +
      'other receipts carry L1 fees; JSON from records equals the reference',
    async () => {
      const store = openStore(join(dir, 'op'), { readOnly: true });
      const reader = new StoreReader(store);
      let minted = 0;
      let feeReceipts = 0;
      try {
        for (let n = 0; n < BLOCKS; n++) {
          const block = (await ours('eth_getBlockByNumber', [hex(n), true])) as Obj;
          const reference = JSON.parse(
            JSON.stringify(formatBlock(reader.header(n)!, { full: reader.transactions(n) }, false)),
          ) as Obj;
          assert.deepEqual(block, reference, `block ${n}: the records' JSON is the reference renderer's`);
          const txs = block.transactions as Obj[];
          assert.equal(txs[0]!.type, '0x7e');
          assert.equal(txs[0]!.from, '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001');
          assert.equal(txs[0]!.to, '0x4200000000000000000000000000000000000015');
          assert.equal(txs[0]!.nonce, hex(n));
          for (const tx of txs.filter((t) => t.type === '0x7e')) {
            const encoded = encodeDeposit({
              sourceHash: hexToBytes(tx.sourceHash)!,
              from: hexToBytes(tx.from)!,
              to: hexToBytes(tx.to)!,
              mint: tx.mint === undefined ? undefined : BigInt(tx.mint as string),
              value: BigInt(tx.value as string),
              gas: BigInt(tx.gas as string),
              isSystemTx: tx.isSystemTx === true,
              input: hexToBytes(tx.input)!,
            });
            assert.equal(tx.hash, bytesToHex(keccak256(encoded)), 'a deposit hash is keccak256 of its encoding');
            if (tx.mint !== undefined) minted++;
          }
          const receipts = (await ours('eth_getBlockReceipts', [hex(n)])) as Obj[];
          receipts.forEach((r, i) => {
            if (txs[i]!.type === '0x7e') assert.equal(r.depositReceiptVersion, '0x1');
            else {
              assert.ok(
                typeof r.l1Fee === 'string' && typeof r.l1GasUsed === 'string',
                `block ${n} receipt ${i} has L1 fees`,
              );
              feeReceipts++;
            }
          });
          assert.equal(receipts.at(-1)!.cumulativeGasUsed, block.gasUsed, "the deposits' gas is in the block's");
          const tx = (await ours('eth_getTransactionByHash', [txs[0]!.hash])) as Obj;
          assert.deepEqual(tx, txs[0]);
        }
      } finally {
        await closeStore(store);
      }
      assert.ok(minted > 3, 'user deposits minting ETH');
      assert.ok(feeReceipts > 50);
    },
  );

  test("export carries the deposits and the receipts' L1 fields (extra_fields)", async () => {
    const out = join(dir, 'export');
    for (const kind of ['transactions', 'receipts'])
      await cli(['export', kind, '--data', join(dir, 'op'), '--out', out, '--from', '0', '--to', String(BLOCKS - 1)]);
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const file = (kind: string) => join(out, readdirSync(out).find((f) => f.includes(`__${kind}__`))!);
      const deposits = (
        await db.runAndReadAll(
          "SELECT transaction_type, extra_fields FROM read_parquet('" +
            `${file('transactions')}') WHERE transaction_type = 126`,
        )
      ).getRows();
      assert.equal(deposits.length >= BLOCKS, true);
      assert.ok(deposits.every((r) => typeof (JSON.parse(String(r[1])) as Obj).sourceHash === 'string'));
      const fees = (
        await db.runAndReadAll(
          `SELECT extra_fields FROM read_parquet('${file('receipts')}') WHERE transaction_type <> 126`,
        )
      ).getRows();
      assert.ok(fees.length > 50 && fees.every((r) => typeof (JSON.parse(String(r[0])) as Obj).l1Fee === 'string'));
      const plain = (
        await db.runAndReadAll(
          `SELECT count(*) FROM read_parquet('${file('transactions')}') WHERE extra_fields IS NULL`,
        )
      ).getRows();
      assert.ok(Number(plain[0]![0]) > 50, 'ordinary transactions have no extra fields');
    } finally {
      db.closeSync();
    }
  });
});
