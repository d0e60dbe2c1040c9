import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bloomMayContain, logsBloom } from '#src/chain/bloom.js';
import { blockSize, computeBlockHash } from '#src/chain/headerEncoding.js';
import { bytesEqual, bytesToHex } from '#src/chain/hex.js';
import { keccak256 } from '#src/chain/keccak.js';
import { mappingSlot } from '#src/chain/storageSlot.js';
import { encodeTransaction } from '#src/chain/txEncoding.js';
import type { BlockBundle } from '#src/chain/types.js';
import { writeBlockRecords } from '#src/store/blockRecords.js';
import { ByteWriter } from '#src/store/bytes.js';
import { encodeHeader, encodeTx } from '#src/store/codec.js';
import { encodeLogs } from '#src/store/logsRecord.js';
import { TRANSFER_TOPIC } from '#src/synth/events.js';
import { FORK_SCHEDULE as schedule } from '#src/synth/forks.js';
import {
  CHAIN_VERSION,
  ChainGenerator,
  describeDataset,
  EMPTY_REQUESTS_HASH,
  EMPTY_UNCLES_HASH,
  type GeneratorOptions,
  generateChain,
  generatePending,
  markers,
  rareAddress,
  TOTAL_DIFFICULTY,
} from '#src/synth/generator.js';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const hex = bytesToHex;

const OPTS: GeneratorOptions = { blocks: 200, seed: 'unit', density: 0.1 };
/**
 * The records digest (recordsDigest) of OPTS's chain, and of four mainnet-density blocks from the Prague era's first,
 * as CHAIN_VERSION 3 makes them and layout 6 stores them.
 */
const PINNED_UNIT_CHAIN = '0x9deb967b93228b37fe50e679ebb41a5af59693fa489cf52c7c27c41b4b03ea94';
const PINNED_MAINNET_BLOCKS = '0x878eece16aa5cb804cf73533b8d65b6d49deb1a0c063ad34278d764113427a0a';
const chain: BlockBundle[] = [...generateChain(OPTS)];

function fingerprint(blocks: BlockBundle[]): string[] {
  return blocks.map((b) =>
    [
      encodeHeader(b.header).toString('hex'),
      ...b.transactions.map((t) => encodeTx(t).toString('hex')),
      encodeLogs(b.logs).toString('hex'),
      ...b.storage.map((w) => hex(w.address) + hex(w.slot) + hex(w.value)),
    ].join('|'),
  );
}

test('the same options give byte-identical blocks; another seed another chain', () => {
  const small = { blocks: 40, seed: 'unit', density: 0.1 };
  const a = [...generateChain(small)];
  const b = [...generateChain(small)];
  assert.deepEqual(fingerprint(a), fingerprint(b));
  const c = [...generateChain({ ...small, seed: 'other' })];
  assert.notEqual(hex(a[0]!.header.hash), hex(c[0]!.header.hash));
  assert.notEqual(hex(a[5]!.transactions[0]!.hash), hex(c[5]!.transactions[0]!.hash));
});

test('blocks chain by parent hash, with real header hashes, sizes and transaction hashes', () => {
  chain.forEach((b, i) => {
    assert.equal(b.header.number, i);
    if (i > 0) assert.deepEqual(b.header.parentHash, chain[i - 1]!.header.hash);
    assert.deepEqual(b.header.hash, computeBlockHash(b.header));
    const encoded = b.transactions.map(encodeTransaction);
    assert.equal(b.header.size, blockSize(b.header, encoded));
    b.transactions.forEach((tx, j) => assert.deepEqual(tx.hash, keccak256(encoded[j]!)));
    assert.equal(b.header.txCount, b.transactions.length);
    assert.equal(b.header.timestamp, 1_700_000_000 + 12 * i);
  });
});

test('post-merge constants and a bounded gas market', () => {
  for (const { header: h, transactions } of chain) {
    assert.equal(h.difficulty, 0n);
    assert.equal(h.totalDifficulty, TOTAL_DIFFICULTY);
    assert.deepEqual(h.nonce, new Uint8Array(8));
    assert.deepEqual(h.sha3Uncles, EMPTY_UNCLES_HASH);
    assert.deepEqual(h.uncles, []);
    assert.equal(h.mixHash.length, 32);
    assert.ok(h.extraData.length <= 32);
    assert.ok(h.gasUsed <= h.gasLimit);
    assert.ok(h.gasLimit === 30_000_000n || h.gasLimit === 36_000_000n);
    assert.ok(h.baseFeePerGas! > 1_000_000_000n && h.baseFeePerGas! < 200_000_000_000n, `base fee ${h.baseFeePerGas}`);
    let gas = 0n;
    for (const tx of transactions) gas += tx.gas;
    assert.ok(gas >= h.gasUsed, 'the gas limits cover the gas used');
  }
});

test('fork fields appear exactly in their eras', () => {
  let withdrawalIndex = 0n;
  for (const { header: h } of chain) {
    const n = h.number;
    assert.notEqual(h.baseFeePerGas, undefined);
    assert.equal(h.withdrawals !== undefined, n >= schedule.shanghai, `withdrawals at ${n}`);
    assert.equal(h.withdrawalsRoot !== undefined, n >= schedule.shanghai);
    assert.equal(h.blobGasUsed !== undefined, n >= schedule.cancun, `blob gas at ${n}`);
    assert.equal(h.excessBlobGas !== undefined, n >= schedule.cancun);
    assert.equal(h.parentBeaconBlockRoot !== undefined, n >= schedule.cancun);
    assert.equal(h.requestsHash !== undefined, n >= schedule.prague, `requestsHash at ${n}`);
    if (h.requestsHash) assert.deepEqual(h.requestsHash, EMPTY_REQUESTS_HASH);
    if (h.withdrawals) {
      assert.equal(h.withdrawals.length, 16);
      for (const w of h.withdrawals) assert.equal(w.index, withdrawalIndex++);
    }
    if (h.blobGasUsed !== undefined) assert.equal(h.blobGasUsed % 131_072n, 0n);
  }
});

test('every transaction type appears, each with exactly its fields', () => {
  const seen = new Set<string>();
  for (const b of chain) {
    for (const tx of b.transactions) {
      const n = b.header.number;
      if (tx.type === 3) assert.ok(n >= schedule.cancun, 'blob transactions from Cancun on');
      if (tx.type === 4) assert.ok(n >= schedule.prague, 'set-code transactions from Prague on');
      assert.ok(tx.r > 0n && tx.r < SECP256K1_N && tx.s > 0n && tx.s <= SECP256K1_N / 2n);
      assert.equal(tx.gasPrice !== undefined, tx.type <= 1);
      assert.equal(tx.maxFeePerGas !== undefined, tx.type >= 2);
      assert.equal(tx.maxPriorityFeePerGas !== undefined, tx.type >= 2);
      assert.equal(tx.accessList !== undefined, tx.type >= 1);
      assert.equal(tx.maxFeePerBlobGas !== undefined, tx.type === 3);
      assert.equal(tx.blobVersionedHashes !== undefined, tx.type === 3);
      assert.equal(tx.authorizationList !== undefined, tx.type === 4);
      if (tx.type === 0 && tx.chainId === undefined) {
        assert.ok(tx.v === 27n || tx.v === 28n);
        seen.add('0-unprotected');
      } else if (tx.type === 0) {
        assert.ok(tx.v === tx.chainId! * 2n + 35n || tx.v === tx.chainId! * 2n + 36n);
        seen.add('0-eip155');
      } else {
        assert.ok(tx.v === 0n || tx.v === 1n, 'v is the y parity');
        assert.equal(tx.chainId, 1n);
        seen.add(String(tx.type));
      }
      if (tx.type >= 2)
        assert.ok(tx.maxFeePerGas! >= b.header.baseFeePerGas! && tx.maxPriorityFeePerGas! <= tx.maxFeePerGas!);
      if (tx.type <= 1) assert.ok(tx.gasPrice! >= b.header.baseFeePerGas!);
      if (tx.type === 3) {
        assert.ok(tx.to !== null && tx.blobVersionedHashes!.length >= 1);
        for (const h of tx.blobVersionedHashes!) assert.ok(h.length === 32 && h[0] === 1);
      }
      if (tx.type === 4) assert.ok(tx.to !== null && tx.authorizationList!.length >= 1);
      if (tx.accessList?.length) seen.add('access-list');
      if (tx.to === null) {
        assert.ok(tx.type <= 2 && tx.input.length > 100, 'creations carry init code');
        seen.add('create');
      }
    }
  }
  assert.deepEqual([...seen].sort(), ['0-eip155', '0-unprotected', '1', '2', '3', '4', 'access-list', 'create'].sort());
});

test('sender nonces start at 0 and increase by one', () => {
  const next = new Map<string, bigint>();
  for (const b of chain) {
    for (const tx of b.transactions) {
      const k = hex(tx.from);
      assert.equal(tx.nonce, next.get(k) ?? 0n);
      next.set(k, tx.nonce + 1n);
    }
  }
});

test("each header's logsBloom is the bloom of its logs", () => {
  for (const b of chain) {
    assert.deepEqual(b.header.logsBloom, logsBloom(b.logs));
    for (const log of b.logs) {
      assert.ok(bloomMayContain(b.header.logsBloom, log.address));
      for (const t of log.topics) assert.ok(bloomMayContain(b.header.logsBloom, t));
    }
  }
});

test('logs are tied to transactions in order, with real event topics and ABI words', () => {
  let transfers = 0;
  let anonymous = 0;
  let fourTopics = 0;
  let txsWithoutLogs = 0;
  for (const b of chain) {
    let last = 0;
    for (const log of b.logs) {
      assert.ok(log.txIndex >= last && log.txIndex < b.transactions.length);
      last = log.txIndex;
      assert.ok(log.topics.length <= 4);
      assert.equal(log.data.length % 32, 0);
      for (const t of log.topics) assert.equal(t.length, 32);
      if (log.topics.length > 0 && bytesEqual(log.topics[0]!, TRANSFER_TOPIC)) {
        transfers++;
        assert.deepEqual(log.topics[1]!.subarray(0, 12), new Uint8Array(12), 'indexed addresses are left-padded');
      }
      if (log.topics.length === 0) anonymous++;
      if (log.topics.length === 4) fourTopics++;
    }
    const withLogs = new Set(b.logs.map((l) => l.txIndex));
    txsWithoutLogs += b.transactions.length - withLogs.size;
  }
  const total = chain.reduce((n, b) => n + b.logs.length, 0);
  assert.ok(transfers / total > 0.3, `Transfer leads the mix (${transfers}/${total})`);
  assert.ok(anonymous > 0 && fourTopics > 0 && txsWithoutLogs > 0);
});

test('ERC-20 transfers write balances at keccak256(pad32(holder) ‖ pad32(0))', () => {
  const { weth } = describeDataset(OPTS);
  let checked = 0;
  for (const b of chain.slice(0, 60)) {
    const written = new Set(b.storage.map((w) => hex(w.address) + hex(w.slot)));
    for (const log of b.logs) {
      if (log.topics.length !== 3 || !bytesEqual(log.topics[0]!, TRANSFER_TOPIC) || bytesEqual(log.address, weth))
        continue;
      assert.ok(
        written.has(hex(log.address) + hex(mappingSlot(log.topics[2]!, 0n))),
        `balance of the recipient in block ${b.header.number}`,
      );
      checked++;
    }
  }
  assert.ok(checked > 50, `checked ${checked}`);
  for (const b of chain)
    for (const w of b.storage) assert.ok(w.address.length === 20 && w.slot.length === 32 && w.value.length === 32);
});

test('density scales transactions and logs (0.05: ~13 txs and ~25 logs per block)', () => {
  const blocks = [...generateChain({ blocks: 120, seed: 'density', density: 0.05 })];
  const txs = blocks.reduce((n, b) => n + b.transactions.length, 0) / blocks.length;
  const logs = blocks.reduce((n, b) => n + b.logs.length, 0) / blocks.length;
  assert.ok(txs > 11 && txs < 16, `txs per block ${txs}`);
  assert.ok(logs > 18 && logs < 33, `logs per block ${logs}`);
  const full = [...generateChain({ blocks: 12, seed: 'density', density: 1 })];
  const fullTxs = full.reduce((n, b) => n + b.transactions.length, 0) / full.length;
  const fullLogs = full.reduce((n, b) => n + b.logs.length, 0) / full.length;
  assert.ok(fullTxs > 225 && fullTxs < 305, `txs per block ${fullTxs}`);
  assert.ok(fullLogs > 420 && fullLogs < 580, `logs per block ${fullLogs}`);
});

test('contract popularity is skewed: the top 1% of contracts emit most logs', () => {
  const counts = new Map<string, number>();
  let total = 0;
  for (const b of generateChain({ blocks: 20, seed: 'zipf', density: 1 })) {
    for (const log of b.logs) {
      counts.set(hex(log.address), (counts.get(hex(log.address)) ?? 0) + 1);
      total++;
    }
  }
  const onePercent = Math.ceil(describeDataset({ blocks: 20, seed: 'zipf', density: 1 }).contracts / 100);
  const sorted = [...counts.values()].sort((a, b) => b - a);
  const top = sorted.slice(0, onePercent).reduce((a, b) => a + b, 0);
  assert.ok(top / total > 0.5, `the top ${onePercent} contracts emit ${top / total} of the logs`);
});

test('the rare address logs in about 1% of 2,000 blocks and nowhere else', () => {
  const opts = { blocks: 2000, seed: 'rare', density: 0.02 };
  const rare = hex(rareAddress(opts.seed));
  assert.equal(hex(describeDataset(opts).rareAddress), rare);
  let blocksWithRare = 0;
  for (const b of generateChain(opts)) {
    const n = b.logs.filter((l) => hex(l.address) === rare).length;
    assert.ok(n <= 1);
    if (n === 1) blocksWithRare++;
    for (const tx of b.transactions) assert.notEqual(tx.to && hex(tx.to), rare);
  }
  assert.ok(blocksWithRare >= 8 && blocksWithRare <= 40, `rare address in ${blocksWithRare} of 2000 blocks`);
});

test('generation resumes after any block and the pending block follows the head', () => {
  const opts = { blocks: 80, seed: 'resume', density: 0.1 };
  const full = [...generateChain(opts)];
  const resumed = new ChainGenerator(opts, full[49]!.header);
  assert.equal(resumed.nextNumber, 50);
  const rest: BlockBundle[] = [];
  for (let i = 50; i < 80; i++) rest.push(resumed.next());
  assert.deepEqual(fingerprint(rest), fingerprint(full.slice(50)));
  const pending = generatePending(opts, full[79]!.header);
  assert.equal(pending.header.number, 80);
  assert.deepEqual(pending.header.parentHash, full[79]!.header.hash);
  assert.ok(pending.transactions.length > 0);
  const longer = [...generateChain({ ...opts, blocks: 81 })];
  assert.equal(pending.transactions[0]!.nonce, longer[80]!.transactions[0]!.nonce, 'pending nonces continue the chain');
});

test('startNumber shifts the chain; markers are head − 32 and head − 64, clamped to earliest', () => {
  const shifted = [...generateChain({ blocks: 5, seed: 'start', density: 0.05, startNumber: 1000 })];
  assert.deepEqual(
    shifted.map((b) => b.header.number),
    [1000, 1001, 1002, 1003, 1004],
  );
  assert.deepEqual(markers(1000, 0), { safe: 968, finalized: 936 });
  assert.deepEqual(markers(1040, 1000), { safe: 1008, finalized: 1000 });
  assert.deepEqual(markers(5, 0), { safe: 0, finalized: 0 });
});

test('density 0 gives empty blocks with the empty-trie roots and a zero bloom', () => {
  for (const b of generateChain({ blocks: 4, seed: 'empty', density: 0 })) {
    assert.equal(b.transactions.length, 0);
    assert.equal(b.logs.length, 0);
    assert.equal(b.header.gasUsed, 0n);
    assert.deepEqual(b.header.logsBloom, new Uint8Array(256));
    assert.equal(hex(b.header.transactionsRoot), '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
  }
  assert.throws(() => new ChainGenerator({ blocks: 1, seed: 'x', density: -1 }), RangeError);
});

/** keccak256 of every stored record of `blocks`, in order (store/blockRecords.ts): what a store of them holds. */
function recordsDigest(blocks: Iterable<BlockBundle>): string {
  const w = new ByteWriter();
  for (const b of blocks) writeBlockRecords(w, b);
  return hex(keccak256(w.written()));
}

test(
  'the chain is pinned: its records hash as recorded (other bytes from the same ' +
    `options need a new CHAIN_VERSION, now ${CHAIN_VERSION}, or SCHEMA_VERSION)`,
  () => {
    // Every fork era at a tenth of mainnet's density, and the first mainnet-density blocks of the Prague era.
    assert.equal(recordsDigest(chain), PINNED_UNIT_CHAIN);
    const mainnet = generateChain({ blocks: 4, seed: 'pinned', density: 1, startNumber: schedule.prague });
    assert.equal(recordsDigest(mainnet), PINNED_MAINNET_BLOCKS);
  },
);
