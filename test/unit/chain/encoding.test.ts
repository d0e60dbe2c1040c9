import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { blockSize, computeBlockHash, encodeHeaderRlp } from '#src/chain/headerEncoding.js';
import { bytesToHex, hexToBigInt, hexToBytes } from '#src/chain/hex.js';
import { rlpEncode, rlpEncodeAfter, rlpEncodedLength, rlpListFromEncoded, rlpUint } from '#src/chain/rlp.js';
import { encodeTransaction, transactionHash } from '#src/chain/txEncoding.js';
import type { BlockHeader, Transaction, TxType } from '#src/chain/types.js';

type Json = Record<string, string>;
const fixture = JSON.parse(
  readFileSync(new URL('../../../../test/fixtures/real-encodings.json', import.meta.url), 'utf8'),
) as {
  source: string;
  headers: Json[];
  transactions: (Json & { accessList?: unknown[] })[];
};

const b = (hex: string) => hexToBytes(hex)!;
const q = (hex: string) => hexToBigInt(hex)!;
const opt = <T>(hex: string | undefined, f: (h: string) => T): T | undefined =>
  hex === undefined ? undefined : f(hex);

function header(j: Json): BlockHeader {
  const h: BlockHeader = {
    number: Number(q(j.number!)),
    hash: b(j.hash!),
    parentHash: b(j.parentHash!),
    sha3Uncles: b(j.sha3Uncles!),
    miner: b(j.miner!),
    stateRoot: b(j.stateRoot!),
    transactionsRoot: b(j.transactionsRoot!),
    receiptsRoot: b(j.receiptsRoot!),
    logsBloom: b(j.logsBloom!),
    difficulty: q(j.difficulty!),
    totalDifficulty: 0n,
    gasLimit: q(j.gasLimit!),
    gasUsed: q(j.gasUsed!),
    timestamp: Number(q(j.timestamp!)),
    extraData: b(j.extraData!),
    mixHash: b(j.mixHash!),
    nonce: b(j.nonce!),
    uncles: [],
    size: 0,
    txCount: 0,
  };
  h.baseFeePerGas = opt(j.baseFeePerGas, q);
  h.withdrawalsRoot = opt(j.withdrawalsRoot, b);
  h.blobGasUsed = opt(j.blobGasUsed, q);
  h.excessBlobGas = opt(j.excessBlobGas, q);
  h.parentBeaconBlockRoot = opt(j.parentBeaconBlockRoot, b);
  h.requestsHash = opt(j.requestsHash, b);
  for (const k of Object.keys(h) as (keyof BlockHeader)[]) if (h[k] === undefined) delete h[k];
  return h;
}

function transaction(j: Json & { accessList?: unknown[] }): Transaction {
  const tx: Transaction = {
    type: Number(q(j.type!)) as TxType,
    hash: b(j.hash!),
    from: new Uint8Array(20),
    to: b(j.to!),
    nonce: q(j.nonce!),
    gas: q(j.gas!),
    value: q(j.value!),
    input: b(j.input!),
    v: q(j.v!),
    r: q(j.r!),
    s: q(j.s!),
    chainId: opt(j.chainId, q),
  };
  if (j.gasPrice) tx.gasPrice = q(j.gasPrice);
  if (j.maxFeePerGas) tx.maxFeePerGas = q(j.maxFeePerGas);
  if (j.maxPriorityFeePerGas) tx.maxPriorityFeePerGas = q(j.maxPriorityFeePerGas);
  if (j.accessList) tx.accessList = [];
  return tx;
}

test('the fixture names its source', () => {
  assert.match(fixture.source, /mainnet/);
});

test('computeBlockHash of real mainnet headers (merge block, Prague block) equals their hash', () => {
  for (const j of fixture.headers) assert.equal(bytesToHex(computeBlockHash(header(j))), j.hash);
});

test('transactionHash of real mainnet transactions (legacy EIP-155, type 2) equals their hash', () => {
  for (const j of fixture.transactions) assert.equal(bytesToHex(transactionHash(transaction(j))), j.hash);
});

test('typed envelopes start with the type byte; legacy encodings are RLP lists', () => {
  const [typed, legacy] = fixture.transactions.map(transaction);
  assert.equal(encodeTransaction(typed!)[0], 2);
  assert.ok(encodeTransaction(legacy!)[0]! >= 0xc0);
});

test('a transaction missing a field its type needs is refused', () => {
  const tx = transaction(fixture.transactions[0]!);
  delete tx.maxFeePerGas;
  assert.throws(() => encodeTransaction(tx), /maxFeePerGas/);
});

test('blockSize counts rlp([header, txs, uncles, withdrawals]) exactly', () => {
  const h = header(fixture.headers[1]!);
  const txs = fixture.transactions.map((j) => encodeTransaction(transaction(j)));
  const body = [
    encodeHeaderRlp(h),
    rlpListFromEncoded(txs.map((t) => (t[0]! >= 0xc0 ? t : rlpEncode(t)))),
    rlpEncode([]),
  ];
  assert.equal(blockSize(h, txs), rlpListFromEncoded(body).length);
  const withWithdrawals = {
    ...h,
    withdrawals: [{ index: 1n, validatorIndex: 2n, address: new Uint8Array(20), amount: 3n }],
  };
  const wd = rlpEncode([[rlpUint(1n), rlpUint(2n), new Uint8Array(20), rlpUint(3n)]]);
  assert.equal(blockSize(withWithdrawals, txs), rlpListFromEncoded([...body, wd]).length);
});

test('rlpUint is minimal big-endian and rlpEncodeAfter prefixes', () => {
  assert.equal(bytesToHex(rlpUint(0)), '0x');
  assert.equal(bytesToHex(rlpUint(0n)), '0x');
  assert.equal(bytesToHex(rlpUint(255)), '0xff');
  assert.equal(bytesToHex(rlpUint(256)), '0x0100');
  assert.equal(bytesToHex(rlpUint(2n ** 64n)), '0x010000000000000000');
  assert.equal(bytesToHex(rlpUint(Number.MAX_SAFE_INTEGER)), '0x1fffffffffffff');
  assert.throws(() => rlpUint(-1n), RangeError);
  assert.equal(bytesToHex(rlpEncodeAfter(Uint8Array.of(2), [])), '0x02c0');
  assert.equal(rlpEncodedLength([new Uint8Array(60)]), 64);
});

test(
  'rlpUint of a bigint is its minimal big-endian bytes, ' + 'a fresh array each time, up to 256 bits and past them',
  () => {
    const minimal = (v: bigint) =>
      v === 0n ? '0x' : '0x' + v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0');
    for (const v of [2n ** 53n, 2n ** 255n + 7n, 2n ** 256n - 1n, 2n ** 256n, 2n ** 300n + 1n])
      assert.equal(bytesToHex(rlpUint(v)), minimal(v));
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 264n }), (v) => bytesToHex(rlpUint(v)) === minimal(v)));
    const first = rlpUint(2n ** 255n);
    const second = rlpUint(2n ** 254n);
    assert.notEqual(first, second);
    assert.equal(bytesToHex(first), minimal(2n ** 255n), 'a later call leaves an earlier result as it was');
  },
);
