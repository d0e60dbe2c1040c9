/**
 * normalize.ts: generated blocks (every fork, every transaction type) rendered as a geth node
 * answers them and normalised back are the same bundles; every check refuses what it should (logs
 * outside their block or position, a wrong logsBloom, receipts of another block, malformed fields,
 * a type past a byte); types not modelled and other chains' members are kept as given; storage
 * writes follow prestateTracer's diffMode (post sets, pre-only clears, later transactions win).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { NodeDataError } from '#src/ingest/errors.js';
import { type NodeBlock, normalizeBlock } from '#src/ingest/normalize.js';
import { formatBlock, renderBlockReceipts } from '#src/render/format.js';
import { generateChain } from '#src/synth/generator.js';

type Obj = Record<string, unknown>;

/**
 * Enough blocks for every transaction type: blobs are planned in about 1.5% of transactions from Cancun (block 16) on.
 */
const chain: BlockBundle[] = [...generateChain({ blocks: 48, seed: 'normalize', density: 0.02 })];

/** Block `b` as a geth node answers eth_getBlockByNumber(n, true) and eth_getBlockReceipts(n). */
function asNode(b: BlockBundle): NodeBlock {
  const block = formatBlock(b.header, { full: b.transactions }, false);
  const blockHash = bytesToHex(b.header.hash);
  const blockNumber = quantityToHex(b.header.number);
  const ctx = {
    blockHash,
    blockNumber,
    blockTimestamp: quantityToHex(b.header.timestamp),
    txHash: (i: number) => bytesToHex(b.transactions[i]!.hash),
    removed: false,
    pending: false,
  };
  const receipts = renderBlockReceipts({ ...b, tx: (i) => b.transactions[i]! }, ctx).map(
    (text) => JSON.parse(text) as Obj,
  );
  return { block, receipts };
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function refused(code: string, pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof NodeDataError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };
}

const withLogs = chain.find((b) => b.logs.length > 2 && b.transactions.length > 1)!;

describe('normalizeBlock', () => {
  test(
    'a node answer of every generated block normalises back to ' + 'the same bundle (every fork and transaction type)',
    () => {
      const types = new Set<number>();
      for (const b of chain) {
        const bundle = normalizeBlock(asNode(b), b.header.number);
        assert.deepEqual(bundle, { ...b, storage: [] });
        b.transactions.forEach((t) => types.add(t.type));
      }
      assert.deepEqual([...types].sort(), [0, 1, 2, 3, 4]);
    },
  );

  test('a node without totalDifficulty (geth since 1.14) stores 0; missing mixHash and nonce are zeros', () => {
    const raw = asNode(chain[5]!);
    const block = raw.block as Obj;
    delete block.totalDifficulty;
    delete block.mixHash;
    delete block.nonce;
    const h = normalizeBlock(raw, chain[5]!.header.number).header;
    assert.equal(h.totalDifficulty, 0n);
    assert.deepEqual(h.mixHash, new Uint8Array(32));
    assert.deepEqual(h.nonce, new Uint8Array(8));
  });

  test('quantities with leading zeros, as some clients write them, are accepted', () => {
    const raw = asNode(chain[3]!);
    (raw.block as Obj).gasLimit = '0x00' + ((raw.block as Obj).gasLimit as string).slice(2);
    assert.equal(normalizeBlock(raw, chain[3]!.header.number).header.gasLimit, chain[3]!.header.gasLimit);
  });

  test('a log whose block hash, number, transaction or index is not its own is refused', () => {
    const n = withLogs.header.number;
    const edits: ((log: Obj) => void)[] = [
      (log) => (log.blockHash = '0x' + '11'.repeat(32)),
      (log) => (log.blockNumber = quantityToHex(n + 1)),
      (log) => (log.logIndex = '0x63'),
      (log) => (log.transactionHash = '0x' + '22'.repeat(32)),
    ];
    for (const edit of edits) {
      const raw = clone(asNode(withLogs));
      const receipt = raw.receipts.find((r) => ((r as Obj).logs as Obj[]).length > 0) as Obj;
      edit((receipt.logs as Obj[])[0]!);
      assert.throws(() => normalizeBlock(raw, n), refused('log-position', new RegExp(`block ${n} receipt \\d+ log 0`)));
    }
  });

  test('a logsBloom that is not the OR of the logs is refused', () => {
    const raw = asNode(withLogs);
    const bloom = (raw.block as Obj).logsBloom as string;
    (raw.block as Obj).logsBloom = bloom.slice(0, -2) + (bloom.endsWith('ff') ? '00' : 'ff');
    assert.throws(
      () => normalizeBlock(raw, withLogs.header.number),
      refused('bloom-mismatch', /recomputed from its \d+ logs/),
    );
  });

  test('answers about different blocks are inconsistent (the head moved between calls)', () => {
    const n = withLogs.header.number;
    const fewer = asNode(withLogs);
    fewer.receipts.pop();
    assert.throws(() => normalizeBlock(fewer, n), refused('inconsistent', /receipts for/));
    const other = asNode(withLogs);
    (other.receipts[0] as Obj).blockHash = '0x' + '33'.repeat(32);
    assert.throws(() => normalizeBlock(other, n), refused('inconsistent', /another transaction or block/));
    assert.throws(() => normalizeBlock(asNode(withLogs), n + 1), refused('inconsistent', /answered block/));
    const moved = asNode(withLogs);
    ((moved.block as Obj).transactions as Obj[])[0]!.transactionIndex = '0x5';
    assert.throws(() => normalizeBlock(moved, n), refused('inconsistent', /another block or index/));
  });

  test(
    'receipts: a pre-Byzantium root is kept, a missing effectiveGasPrice is ' +
      'computed; a wrong cumulative gas or a missing status is refused',
    () => {
      const n = withLogs.header.number;
      const root = asNode(withLogs);
      const first = root.receipts[0] as Obj;
      delete first.status;
      first.root = '0x' + '5a'.repeat(32);
      delete first.effectiveGasPrice;
      const back = normalizeBlock(root, n).receipts[0]!;
      assert.deepEqual(back.root, new Uint8Array(32).fill(0x5a));
      assert.equal(back.status, undefined);
      assert.equal(
        back.effectiveGasPrice,
        withLogs.receipts[0]!.effectiveGasPrice,
        'computed from the transaction and the base fee',
      );

      const cumulative = asNode(withLogs);
      (cumulative.receipts[1] as Obj).cumulativeGasUsed = '0x1';
      assert.throws(() => normalizeBlock(cumulative, n), refused('inconsistent', /receipt 1: cumulativeGasUsed 0x1/));
      const noStatus = asNode(withLogs);
      delete (noStatus.receipts[0] as Obj).status;
      assert.throws(() => normalizeBlock(noStatus, n), refused('malformed', /receipt 0: status is missing/));
      const badStatus = asNode(withLogs);
      (badStatus.receipts[0] as Obj).status = '0x2';
      assert.throws(() => normalizeBlock(badStatus, n), refused('malformed', /receipt 0: status is neither/));
    },
  );

  test('malformed fields are named; foreign transaction types are refused', () => {
    const raw = asNode(withLogs);
    (raw.block as Obj).gasLimit = 'lots';
    assert.throws(
      () => normalizeBlock(raw, withLogs.header.number),
      refused('malformed', /gasLimit is not a hex quantity/),
    );
    const short = asNode(withLogs);
    ((short.block as Obj).transactions as Obj[])[1]!.from = '0x1234';
    assert.throws(
      () => normalizeBlock(short, withLogs.header.number),
      refused('malformed', /transaction 1: from is not 20 bytes/),
    );
    const huge = asNode(withLogs);
    ((huge.block as Obj).transactions as Obj[])[0]!.type = '0x100';
    assert.throws(
      () => normalizeBlock(huge, withLogs.header.number),
      refused('unsupported', /type 0x100 is above 0xff/),
    );
  });

  test('a type not modelled is kept as given (positions aside); extra block and receipt members are kept', () => {
    const raw = asNode(withLogs);
    const tx = ((raw.block as Obj).transactions as Obj[])[1]!;
    Object.assign(tx, {
      type: '0x7e',
      sourceHash: '0x' + '11'.repeat(32),
      mint: '0x5',
      isSystemTx: true,
      r: '0x' + '00'.repeat(32),
    });
    delete tx.yParity;
    (raw.block as Obj).sendRoot = '0x' + '22'.repeat(32);
    Object.assign(raw.receipts[1] as Obj, { type: '0x7E', depositNonce: '0x3', blockTimestamp: 5 });
    Object.assign(raw.receipts[0] as Obj, { l1Fee: '0x10', l1GasUsed: '0x20', blockTimestamp: 5 });
    const bundle = normalizeBlock(raw, withLogs.header.number);
    const kept = bundle.transactions[1]!;
    assert.equal(kept.type, 0x7e);
    assert.deepEqual(
      JSON.parse('{' + kept.extra! + '}'),
      Object.fromEntries(
        Object.entries(tx).filter(
          ([k]) => !['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex'].includes(k),
        ),
      ),
    );
    assert.equal(bundle.header.extra, `"sendRoot":"0x${'22'.repeat(32)}"`);
    assert.equal(
      bundle.receipts[0]!.extra,
      '"l1Fee":"0x10","l1GasUsed":"0x20"',
      'a modelled receipt keeps the members it does not model; blockTimestamp is dropped',
    );
    assert.equal(
      bundle.receipts[1]!.extra,
      '"type":"0x7E","depositNonce":"0x3"',
      "a kept type's receipt also keeps members whose value differs",
    );
    assert.equal(bundle.receipts[2]!.extra, undefined);
    const text = asNode(withLogs);
    Object.assign(((text.block as Obj).transactions as Obj[])[0]!, { type: '0x99', note: 'd\u00e9j\u00e0' });
    assert.match(
      normalizeBlock(text, withLogs.header.number).transactions[0]!.extra!,
      /"note":"d\\u00e9j\\u00e0"/,
      'kept text is ASCII',
    );
  });
});

describe('storage writes from prestateTracer diffs', () => {
  const block = chain.find((b) => b.transactions.length >= 3)!;
  const [a, b, c] = ['0x' + 'aa'.repeat(20), '0x' + 'bb'.repeat(20), '0x' + 'cc'.repeat(20)];
  const slot = (n: number) => '0x' + n.toString(16).padStart(64, '0');
  const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');
  const trace = (i: number, pre: Obj, post: Obj) => ({
    txHash: bytesToHex(block.transactions[i]!.hash),
    result: { pre, post },
  });
  const traces = (list: Obj[]) => {
    const all: Obj[] = block.transactions.map((_, i) => trace(i, {}, {}));
    list.forEach((t, i) => (all[i] = t));
    return all;
  };

  test('post sets, pre-only clears (also for a deleted account), and a later transaction wins', () => {
    const raw = {
      ...asNode(block),
      traces: traces([
        trace(
          0,
          { [a]: { balance: '0x1', storage: { [slot(1)]: word(5) } } },
          { [a]: { storage: { [slot(1)]: word(6), [slot(2)]: word(7) } } },
        ),
        trace(
          1,
          { [a]: { storage: { [slot(2)]: word(7) } }, [b]: { storage: { [slot(3)]: word(9) } } },
          { [a]: { nonce: 2 } },
        ),
        trace(2, {}, { [c]: { storage: { [slot(4)]: '0x01' } }, [a]: { storage: { [slot(1)]: word(8) } } }),
      ]),
    };
    const writes = normalizeBlock(raw, block.header.number).storage.map((w) => [
      bytesToHex(w.address),
      bytesToHex(w.slot),
      bytesToHex(w.value),
    ]);
    assert.deepEqual(
      writes.sort(),
      [
        [a, slot(1), word(8)],
        [a, slot(2), word(0)],
        [b, slot(3), word(0)],
        [c, slot(4), word(1)],
      ].sort(),
    );
  });

  test('a trace of another transaction, a failed trace, or a missing one are refused', () => {
    const n = block.header.number;
    const wrong = {
      ...asNode(block),
      traces: traces([{ txHash: '0x' + '44'.repeat(32), result: { pre: {}, post: {} } }]),
    };
    assert.throws(() => normalizeBlock(wrong, n), refused('inconsistent', /traces another transaction/));
    const failed = { ...asNode(block), traces: traces([{ error: 'execution timeout' }]) };
    assert.throws(() => normalizeBlock(failed, n), refused('malformed', /could not trace it: execution timeout/));
    const missing = { ...asNode(block), traces: traces([]).slice(1) };
    assert.throws(() => normalizeBlock(missing, n), refused('inconsistent', /traces for/));
  });
});
