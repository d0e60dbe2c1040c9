/**
 * The fast renderers (src/render) against the reference (format.ts + JSON.stringify), byte for
 * byte, on hand-built records with edge values: zero and 2^256−1 quantities, empty input, contract
 * creations, empty and non-empty access lists (one with a multi-byte key count), blob hashes,
 * authorization lists, effective gas prices below, at and above the fee cap (and a sum that carries
 * past 32 bytes), blocks without a base fee, every header fork field alone and together.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AccessListEntry, BlockHeader, Transaction } from '#src/chain/types.js';
import { writeBlockJson } from '#src/render/blockJson.js';
import { type BlockPosition, formatBlock, formatTransaction } from '#src/render/format.js';
import { JsonWriter } from '#src/render/jsonWriter.js';
import { TxBlock, writeTxJson } from '#src/render/txJson.js';
import { encodeHeader, encodeTx } from '#src/store/codec.js';
import { HeaderOffsets, readHeaderOffsets, readTxOffsets, TxOffsets } from '#src/store/recordViews.js';
import { makeHeader, Rng } from '../store/fixtures.js';

const MAX_U256 = (1n << 256n) - 1n;

const rng = new Rng(7);

function header(extra: Partial<BlockHeader> = {}): BlockHeader {
  return { ...makeHeader(rng, 21_000_000, rng.bytes(32), 0), ...extra };
}

function position(h: BlockHeader): BlockPosition {
  return { hash: h.hash, number: h.number, timestamp: h.timestamp, baseFeePerGas: h.baseFeePerGas };
}

function fastTx(tx: Transaction, h: BlockHeader, index: number): string {
  const record = encodeHeader(h);
  const block = new TxBlock().load(record, readHeaderOffsets(record, new HeaderOffsets()));
  const w = new JsonWriter(16);
  writeTxJson(w, encodeTx(tx), tx.hash, 0, block, index);
  return w.latin1();
}

function fastBlock(h: BlockHeader, txs: Transaction[], full: boolean): string {
  const records = txs.map((tx) => encodeTx(tx));
  const w = new JsonWriter(16);
  const hashes = txs.length === 0 ? undefined : Buffer.concat(txs.map((tx) => tx.hash));
  writeBlockJson(w, encodeHeader(h), { hashes: () => hashes, record: (i) => records[i] }, full);
  return w.latin1();
}

function assertTx(tx: Transaction, h: BlockHeader, index = 0): void {
  assert.equal(fastTx(tx, h, index), JSON.stringify(formatTransaction(tx, position(h), index)));
}

function assertBlock(h: BlockHeader, txs: Transaction[]): void {
  assert.equal(fastBlock(h, txs, true), JSON.stringify(formatBlock(h, { full: txs }, false)));
  assert.equal(fastBlock(h, txs, false), JSON.stringify(formatBlock(h, { hashes: txs.map((t) => t.hash) }, false)));
}

function legacy(extra: Partial<Transaction> = {}): Transaction {
  return {
    type: 0,
    hash: rng.bytes(32),
    from: rng.bytes(20),
    to: rng.bytes(20),
    nonce: 5n,
    gas: 21_000n,
    value: 10n ** 18n,
    input: rng.bytes(4),
    v: 37n,
    r: rng.bigint(32),
    s: rng.bigint(32),
    chainId: 1n,
    gasPrice: 20_000_000_000n,
    ...extra,
  };
}

function dynamic(extra: Partial<Transaction> = {}): Transaction {
  const { gasPrice: _gasPrice, ...base } = legacy();
  return {
    ...base,
    type: 2,
    v: 1n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 2_000_000_000n,
    accessList: [],
    ...extra,
  };
}

function accessList(entries: number, keys: number): AccessListEntry[] {
  return Array.from({ length: entries }, () => ({
    address: rng.bytes(20),
    storageKeys: Array.from({ length: keys }, () => rng.bytes(32)),
  }));
}

test('legacy transactions: protected and not, zero and maximal quantities, creations, empty input', () => {
  const h = header({ baseFeePerGas: 7n });
  assertTx(legacy(), h, 0);
  assertTx(legacy({ chainId: undefined, v: 27n }), h, 3);
  assertTx(legacy({ to: null, input: new Uint8Array(0) }), h, 1);
  assertTx(
    legacy({ nonce: 0n, gas: 0n, value: 0n, gasPrice: 0n, v: 0n, r: 0n, s: 0n, chainId: 0n, input: new Uint8Array(0) }),
    h,
    0,
  );
  assertTx(
    legacy({
      nonce: (1n << 64n) - 1n,
      gas: (1n << 64n) - 1n,
      value: MAX_U256,
      gasPrice: MAX_U256,
      v: MAX_U256,
      r: MAX_U256,
      s: MAX_U256,
      chainId: MAX_U256,
    }),
    h,
    0xffffffff,
  );
  assertTx(legacy({ value: 1n, gasPrice: 0x10n, nonce: 0xfn, gas: 0x100n }), h, 16);
  assertTx(legacy({ input: rng.bytes(100_000) }), h, 2);
});

test('inputs stored in the word form render as their bytes: ABI calls, zero words, a head of 0 to 31 bytes', () => {
  const h = header();
  const word = (zeros: number) => Buffer.concat([Buffer.alloc(zeros), rng.bytes(32 - zeros)]);
  const inputs = [
    Buffer.concat([Buffer.from('a9059cbb', 'hex'), word(12), word(31)]),
    Buffer.concat([word(0), word(32), word(28)]),
    Buffer.concat([rng.bytes(31), word(20), word(32)]),
    Buffer.alloc(64 * 32),
  ];
  for (const input of inputs) {
    const tx = legacy({ input });
    assert.ok(readTxOffsets(encodeTx(tx), new TxOffsets()).inputWords, input.toString('hex'));
    assertTx(tx, h, 5);
    assertBlock(h, [tx, legacy({ input: Buffer.from(input.subarray(1)) })]);
  }
});

test('access-list transactions: empty list, entries without keys, a key count past one varint byte', () => {
  const h = header({ baseFeePerGas: 7n });
  const typed = (list: AccessListEntry[]) => legacy({ type: 1, v: 0n, accessList: list });
  assertTx(typed([]), h);
  assertTx(typed(accessList(1, 0)), h);
  assertTx(typed(accessList(3, 2)), h);
  assertTx(typed(accessList(2, 130)), h);
  assertTx(typed([...accessList(1, 0), ...accessList(1, 1)]), h);
  assertTx(dynamic({ accessList: accessList(2, 3) }), h);
});

test('effective gas price: below, at and above the fee cap, zero and maximal fees, no base fee', () => {
  const cases: [bigint | undefined, bigint, bigint][] = [
    [7n, 30_000_000_000n, 2_000_000_000n],
    [28_000_000_000n, 30_000_000_000n, 2_000_000_000n],
    [29_000_000_000n, 30_000_000_000n, 2_000_000_000n],
    [0n, 0n, 0n],
    [0n, 5n, 0n],
    [0n, 5n, 9n],
    [255n, 256n, 1n],
    [255n, 1000n, 1n],
    [0xffn, 0xffffn, 0xff01n],
    [MAX_U256, MAX_U256, MAX_U256],
    [MAX_U256, MAX_U256, 0n],
    [1n, MAX_U256, MAX_U256 - 1n],
    [1n, MAX_U256, MAX_U256],
    [undefined, 30_000_000_000n, 2_000_000_000n],
    [undefined, 0n, 0n],
  ];
  for (const [baseFeePerGas, maxFeePerGas, maxPriorityFeePerGas] of cases) {
    const h = header(baseFeePerGas === undefined ? {} : { baseFeePerGas });
    assertTx(dynamic({ maxFeePerGas, maxPriorityFeePerGas }), h);
  }
});

test('blob transactions: hashes, no hashes, maximal blob fee', () => {
  const h = header({ baseFeePerGas: 1n, blobGasUsed: 131072n, excessBlobGas: 0n });
  const blob = (n: number, fee: bigint) =>
    dynamic({ type: 3, maxFeePerBlobGas: fee, blobVersionedHashes: Array.from({ length: n }, () => rng.bytes(32)) });
  assertTx(blob(1, 1n), h);
  assertTx(blob(6, 0n), h);
  assertTx(blob(0, MAX_U256), h);
  assertTx({ ...blob(2, 3n), accessList: accessList(1, 1) }, h);
});

test('set-code transactions: authorization lists with zero and maximal values, an empty list', () => {
  const h = header({ baseFeePerGas: 1n });
  const auth = (chainId: bigint, nonce: bigint, yParity: number, r: bigint, s: bigint) => ({
    chainId,
    address: rng.bytes(20),
    nonce,
    yParity,
    r,
    s,
  });
  assertTx(dynamic({ type: 4, authorizationList: [auth(1n, 0n, 0, 1n, 2n)] }), h);
  assertTx(
    dynamic({
      type: 4,
      authorizationList: [auth(0n, 0n, 1, 0n, 0n), auth(MAX_U256, (1n << 64n) - 1n, 255, MAX_U256, MAX_U256)],
    }),
    h,
  );
  assertTx(dynamic({ type: 4, authorizationList: [] }), h);
  assertTx(
    dynamic({ type: 4, to: null, accessList: accessList(2, 1), authorizationList: [auth(1n, 7n, 1, 3n, 4n)] }),
    h,
  );
});

test('block positions: number and timestamp at 0, past 32 bits and at the largest safe integer', () => {
  for (const n of [0, 1, 0xf, 0x10, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 0xabc, 2 ** 48 + 1, Number.MAX_SAFE_INTEGER]) {
    assertTx(legacy(), header({ number: n, timestamp: n }), n % 7);
    assertBlock(header({ number: n, timestamp: n, size: n }), [legacy()]);
  }
});

test('a transaction record without a gas price or fee cap fails as the reference does', () => {
  const { gasPrice: _gasPrice, ...broken } = legacy();
  assert.throws(() => JSON.stringify(formatTransaction(broken as Transaction, position(header()), 0)), TypeError);
  assert.throws(() => fastTx(broken as Transaction, header(), 0), TypeError);
});

test('blocks: no fork fields, each fork field alone, all of them, uncles, extra data, extreme quantities', () => {
  const txs = [
    legacy(),
    legacy({ to: null }),
    dynamic(),
    dynamic({ type: 3, maxFeePerBlobGas: 2n, blobVersionedHashes: [rng.bytes(32)] }),
  ];
  const withdrawals = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      index: BigInt(i) * 0x1_0000_0001n,
      validatorIndex: BigInt(i),
      address: rng.bytes(20),
      amount: i ? BigInt(i) * 10n ** 9n : 0n,
    }));
  const variants: Partial<BlockHeader>[] = [
    {},
    { baseFeePerGas: 0n },
    { baseFeePerGas: MAX_U256 },
    { withdrawalsRoot: rng.bytes(32), withdrawals: [] },
    { withdrawalsRoot: rng.bytes(32), withdrawals: withdrawals(16) },
    { blobGasUsed: 0n, excessBlobGas: 0n },
    { blobGasUsed: 786432n, excessBlobGas: (1n << 64n) - 1n },
    { parentBeaconBlockRoot: rng.bytes(32) },
    { requestsHash: rng.bytes(32) },
    {
      baseFeePerGas: 12n,
      withdrawalsRoot: rng.bytes(32),
      withdrawals: withdrawals(3),
      blobGasUsed: 1n,
      excessBlobGas: 2n,
      parentBeaconBlockRoot: rng.bytes(32),
      requestsHash: rng.bytes(32),
    },
    {
      uncles: [rng.bytes(32), rng.bytes(32)],
      extraData: new Uint8Array(0),
      difficulty: MAX_U256,
      totalDifficulty: MAX_U256,
    },
    {
      difficulty: 0n,
      totalDifficulty: 0n,
      gasLimit: 0n,
      gasUsed: 0n,
      size: 0,
      extraData: rng.bytes(97),
      nonce: new Uint8Array(8).fill(0xff),
    },
  ];
  for (const extra of variants) {
    const h = header(extra);
    assertBlock(h, txs);
    assertBlock(h, []);
  }
});

test('a reused block context reloads when any field it renders differs, even one alone', () => {
  const block = new TxBlock();
  const offsets = new HeaderOffsets();
  const base = header({ baseFeePerGas: 7n });
  const variants = [
    base,
    { ...base },
    { ...base, baseFeePerGas: 8n },
    { ...base, baseFeePerGas: 0x107n },
    { ...base, baseFeePerGas: undefined },
    { ...base, hash: Uint8Array.from(base.hash, (b, i) => (i === 31 ? b ^ 1 : b)) },
    { ...base, number: base.number + 1 },
    { ...base, timestamp: base.timestamp + 1 },
    base,
  ];
  const tx = dynamic({ maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 1n });
  for (const h of variants) {
    const record = encodeHeader(h);
    block.load(record, readHeaderOffsets(record, offsets));
    const w = new JsonWriter();
    writeTxJson(w, encodeTx(tx), tx.hash, 0, block, 1);
    assert.equal(w.latin1(), JSON.stringify(formatTransaction(tx, position(h), 1)));
  }
});

test('the writer grows from a tiny buffer and keeps what it wrote', () => {
  const h = header({ baseFeePerGas: 3n });
  const txs = Array.from({ length: 40 }, (_, i) =>
    i % 2 ? legacy({ input: rng.bytes(3000) }) : dynamic({ accessList: accessList(3, 3) }),
  );
  assertBlock(h, txs);
});
