import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlockBundle, BlockHeader, Transaction } from '#src/chain/types.js';
import {
  decodeBundle,
  decodeHashedTx,
  decodeHeader,
  decodeTx,
  encodeBundle,
  encodeHeader,
  encodeTx,
  TxForm,
} from '#src/store/codec.js';
import {
  HeaderOffsets,
  headerTimestamp,
  readHeaderOffsets,
  readTxOffsets,
  storedBlockHash,
  TX_FROM_OFFSET,
  TxOffsets,
} from '#src/store/recordViews.js';
import { filled, makeBundle, makeHeader, makeReceipt, makeTx, Rng } from './fixtures.js';

const MAX_U256 = (1n << 256n) - 1n;

function baseHeader(rng: Rng): BlockHeader {
  return makeHeader(rng, 19_000_000, rng.bytes(32), 3);
}

test('header round trip with no fork fields (frontier-style)', () => {
  const rng = new Rng(100);
  const h = baseHeader(rng);
  h.difficulty = 17_171_480_576n;
  h.nonce = Uint8Array.of(0, 0, 0, 0, 0, 0, 0x00, 0x42);
  h.uncles = [rng.bytes(32), rng.bytes(32)];
  const decoded = decodeHeader(encodeHeader(h));
  assert.deepStrictEqual(decoded, h);
  for (const k of [
    'baseFeePerGas',
    'withdrawalsRoot',
    'withdrawals',
    'blobGasUsed',
    'excessBlobGas',
    'parentBeaconBlockRoot',
    'requestsHash',
  ]) {
    assert.equal(k in decoded, false, `${k} should be absent`);
  }
});

test('header round trip with each fork field alone', () => {
  const rng = new Rng(101);
  const variants: Array<Partial<BlockHeader>> = [
    { baseFeePerGas: 7n },
    { baseFeePerGas: 0n },
    { withdrawalsRoot: rng.bytes(32), withdrawals: [] },
    {
      withdrawalsRoot: rng.bytes(32),
      withdrawals: [
        { index: 0n, validatorIndex: 0n, address: rng.bytes(20), amount: 0n },
        { index: 123456789n, validatorIndex: 987654n, address: rng.bytes(20), amount: 32_000_000_000n },
      ],
    },
    { blobGasUsed: 0n, excessBlobGas: 0n },
    { blobGasUsed: 786432n, excessBlobGas: 79_953_920n },
    { parentBeaconBlockRoot: rng.bytes(32) },
    { requestsHash: rng.bytes(32) },
  ];
  for (const extra of variants) {
    const h = { ...baseHeader(rng), ...extra };
    assert.deepStrictEqual(decodeHeader(encodeHeader(h)), h);
  }
});

test('header round trip with every fork field (Prague) and cumulative fork sets', () => {
  const rng = new Rng(102);
  const london = { ...baseHeader(rng), baseFeePerGas: 12_345_678_901n };
  const shanghai = {
    ...london,
    withdrawalsRoot: rng.bytes(32),
    withdrawals: Array.from({ length: 16 }, (_, i) => ({
      index: 40_000_000n + BigInt(i),
      validatorIndex: BigInt(rng.int(1_000_000)),
      address: rng.bytes(20),
      amount: BigInt(rng.int(2 ** 30)),
    })),
  };
  const cancun = { ...shanghai, blobGasUsed: 393216n, excessBlobGas: 0n, parentBeaconBlockRoot: rng.bytes(32) };
  const prague = { ...cancun, requestsHash: rng.bytes(32) };
  for (const h of [london, shanghai, cancun, prague]) assert.deepStrictEqual(decodeHeader(encodeHeader(h)), h);
});

test('header round trip with extreme values', () => {
  const rng = new Rng(103);
  const h: BlockHeader = {
    ...baseHeader(rng),
    number: Number.MAX_SAFE_INTEGER,
    difficulty: MAX_U256,
    totalDifficulty: MAX_U256,
    gasLimit: (1n << 64n) - 1n,
    gasUsed: 0n,
    timestamp: 2 ** 40,
    extraData: new Uint8Array(0),
    size: 0,
    txCount: 0,
    logsBloom: filled(256, 0xff),
    nonce: filled(8, 0xff),
    baseFeePerGas: MAX_U256,
  };
  assert.deepStrictEqual(decodeHeader(encodeHeader(h)), h);
  const zero = {
    ...h,
    number: 0,
    timestamp: 0,
    difficulty: 0n,
    totalDifficulty: 0n,
    gasLimit: 0n,
    extraData: filled(97, 0),
  };
  assert.deepStrictEqual(decodeHeader(encodeHeader(zero)), zero);
});

const accessList = (rng: Rng) => [
  { address: rng.bytes(20), storageKeys: [] },
  { address: rng.bytes(20), storageKeys: [rng.bytes(32), new Uint8Array(32), filled(32, 0xff)] },
];

function txBase(
  rng: Rng,
): Pick<Transaction, 'hash' | 'from' | 'to' | 'nonce' | 'gas' | 'value' | 'input' | 'v' | 'r' | 's'> {
  return {
    hash: rng.bytes(32),
    from: rng.bytes(20),
    to: rng.bytes(20),
    nonce: 42n,
    gas: 21000n,
    value: 10n ** 18n,
    input: rng.bytes(68),
    v: 1n,
    r: rng.bigint(32) | 1n,
    s: rng.bigint(32) | 1n,
  };
}

function sampleTxs(rng: Rng): Record<string, Transaction> {
  return {
    legacyPre155: { type: 0, ...txBase(rng), v: 27n, gasPrice: 20_000_000_000n },
    legacyEip155: { type: 0, ...txBase(rng), v: 37n, chainId: 1n, gasPrice: 1n },
    legacyCreation: {
      type: 0,
      ...txBase(rng),
      to: null,
      value: 0n,
      input: rng.bytes(3000),
      v: 38n,
      chainId: 1n,
      gasPrice: 0n,
    },
    accessList: { type: 1, ...txBase(rng), chainId: 1n, gasPrice: 30_000_000_000n, accessList: accessList(rng) },
    accessListEmpty: { type: 1, ...txBase(rng), to: null, v: 0n, chainId: 5n, gasPrice: 7n, accessList: [] },
    dynamicFee: {
      type: 2,
      ...txBase(rng),
      input: new Uint8Array(0),
      chainId: 1n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 0n,
      accessList: accessList(rng),
    },
    dynamicFeeCreation: {
      type: 2,
      ...txBase(rng),
      to: null,
      chainId: 11155111n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      accessList: [],
    },
    blob: {
      type: 3,
      ...txBase(rng),
      chainId: 1n,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 2_000_000_000n,
      accessList: accessList(rng),
      maxFeePerBlobGas: 1_000_000_000n,
      blobVersionedHashes: [Uint8Array.of(1, ...rng.bytes(31)), Uint8Array.of(1, ...rng.bytes(31))],
    },
    setCode: {
      type: 4,
      ...txBase(rng),
      chainId: 1n,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 2_000_000_000n,
      accessList: [],
      authorizationList: [
        { chainId: 0n, address: rng.bytes(20), nonce: 0n, yParity: 0, r: rng.bigint(32), s: rng.bigint(32) },
        { chainId: 1n, address: rng.bytes(20), nonce: 17n, yParity: 1, r: MAX_U256, s: 1n },
      ],
    },
  };
}

test('tx round trip for every type 0-4 with the fields each type carries', () => {
  const rng = new Rng(200);
  for (const [name, tx] of Object.entries(sampleTxs(rng))) {
    const decoded = decodeTx(encodeTx(tx), tx.hash);
    assert.deepStrictEqual(decoded, tx, name);
    for (const form of [TxForm.Hashed, TxForm.Bytes] as const)
      assert.deepStrictEqual(decodeHashedTx(encodeTx(tx, form), form), tx, `${name}, form ${form}`);
  }
});

test('tx decoding keeps absent optional fields absent and `to` null for creations', () => {
  const txs = sampleTxs(new Rng(201));
  const pre155 = decodeTx(encodeTx(txs.legacyPre155!), txs.legacyPre155!.hash);
  assert.equal('chainId' in pre155, false);
  assert.equal('accessList' in pre155, false);
  assert.equal('maxFeePerGas' in pre155, false);
  assert.equal(decodeTx(encodeTx(txs.legacyCreation!), txs.legacyCreation!.hash).to, null);
  assert.equal(decodeTx(encodeTx(txs.dynamicFeeCreation!), txs.dynamicFeeCreation!.hash).to, null);
  assert.equal('gasPrice' in decodeTx(encodeTx(txs.dynamicFee!), txs.dynamicFee!.hash), false);
  assert.deepStrictEqual(decodeTx(encodeTx(txs.accessListEmpty!), txs.accessListEmpty!.hash).accessList, []);
});

test('a stored tx record holds no hash; the hashed forms are 32 bytes longer and start with it', () => {
  const rng = new Rng(202);
  for (const tx of [...Object.values(sampleTxs(rng)), makeTx(rng)]) {
    const stored = encodeTx(tx);
    const hashed = encodeTx(tx, TxForm.Hashed);
    assert.deepStrictEqual(new Uint8Array(hashed.subarray(0, 32)), tx.hash);
    assert.deepStrictEqual(hashed.subarray(32), stored);
    assert.equal(stored[0], tx.type);
  }
});

test('tx with a large input round trips (writer growth)', () => {
  const rng = new Rng(203);
  const tx: Transaction = { ...makeTx(rng), input: rng.bytes(200_000) };
  assert.deepStrictEqual(decodeTx(encodeTx(tx), tx.hash), tx);
});

test('bundle round trip (storage writes are not kept)', () => {
  const rng = new Rng(300);
  const bundle = makeBundle(rng, 1234, rng.bytes(32), 5);
  assert.ok(bundle.logs.length > 0);
  assert.deepStrictEqual(decodeBundle(encodeBundle(bundle)), bundle);

  const txs = Object.values(sampleTxs(rng));
  const header: BlockHeader = {
    ...makeHeader(rng, 20_000_000, rng.bytes(32), txs.length),
    baseFeePerGas: 9n,
    withdrawalsRoot: rng.bytes(32),
    withdrawals: [{ index: 1n, validatorIndex: 2n, address: rng.bytes(20), amount: 3n }],
    blobGasUsed: 131072n,
    excessBlobGas: 5n,
    parentBeaconBlockRoot: rng.bytes(32),
    requestsHash: rng.bytes(32),
  };
  const full: BlockBundle = {
    header,
    transactions: txs,
    receipts: txs.map(() => makeReceipt(rng)),
    logs: [
      { address: rng.bytes(20), topics: [rng.bytes(32)], data: rng.bytes(64), txIndex: 0 },
      { address: rng.bytes(20), topics: [], data: new Uint8Array(0), txIndex: 8 },
    ],
    storage: [{ address: rng.bytes(20), slot: rng.bytes(32), value: rng.bytes(32) }],
  };
  assert.deepStrictEqual(decodeBundle(encodeBundle(full)), { ...full, storage: [] });

  const empty: BlockBundle = {
    header: makeHeader(rng, 0, new Uint8Array(32)),
    transactions: [],
    receipts: [],
    logs: [],
    storage: [],
  };
  assert.deepStrictEqual(decodeBundle(encodeBundle(empty)), empty);
});

/** The quantity whose length byte is at `raw[at]`, or undefined for an absent field (-1). */
function quantityAt(raw: Uint8Array, at: number): bigint | undefined {
  if (at < 0) return undefined;
  const length = raw[at]!;
  return length === 0 ? 0n : BigInt('0x' + Buffer.from(raw.subarray(at + 1, at + 1 + length)).toString('hex'));
}

/** The `length` bytes at `raw[at]`, or undefined for an absent field (-1). */
function bytesAt(raw: Uint8Array, at: number, length: number): Uint8Array | undefined {
  return at < 0 ? undefined : new Uint8Array(raw.subarray(at, at + length));
}

test('header offsets point at every field, for every fork set', () => {
  const rng = new Rng(400);
  const withdrawals = [
    { index: 1n, validatorIndex: 2n, address: rng.bytes(20), amount: 0n },
    { index: 2n ** 40n, validatorIndex: 300n, address: rng.bytes(20), amount: 32n * 10n ** 9n },
  ];
  const variants: BlockHeader[] = [
    {
      ...baseHeader(rng),
      uncles: [rng.bytes(32), rng.bytes(32)],
      number: 2 ** 40,
      timestamp: 300,
      extraData: rng.bytes(200),
    },
    { ...baseHeader(rng), baseFeePerGas: 7n },
    { ...baseHeader(rng), baseFeePerGas: 0n, withdrawalsRoot: rng.bytes(32), withdrawals },
    {
      ...baseHeader(rng),
      baseFeePerGas: MAX_U256,
      withdrawalsRoot: rng.bytes(32),
      withdrawals: [],
      blobGasUsed: 0n,
      excessBlobGas: 5n,
      parentBeaconBlockRoot: rng.bytes(32),
      requestsHash: rng.bytes(32),
    },
  ];
  const o = new HeaderOffsets();
  for (const h of variants) {
    const raw = encodeHeader(h);
    readHeaderOffsets(raw, o);
    assert.equal(o.number, h.number);
    for (const [field, length] of [
      ['hash', 32],
      ['parentHash', 32],
      ['sha3Uncles', 32],
      ['miner', 20],
      ['stateRoot', 32],
      ['transactionsRoot', 32],
      ['receiptsRoot', 32],
      ['logsBloom', 256],
      ['mixHash', 32],
      ['nonce', 8],
    ] as const) {
      assert.deepStrictEqual(bytesAt(raw, o[field], length), h[field], field);
    }
    for (const field of [
      'difficulty',
      'totalDifficulty',
      'gasLimit',
      'gasUsed',
      'baseFeePerGas',
      'blobGasUsed',
      'excessBlobGas',
    ] as const) {
      assert.equal(quantityAt(raw, o[field]), h[field], field);
    }
    assert.deepStrictEqual(bytesAt(raw, o.extraData, o.extraDataLength), h.extraData);
    assert.equal(o.timestamp, h.timestamp);
    assert.equal(o.size, h.size);
    assert.equal(o.txCount, h.txCount);
    assert.deepStrictEqual(
      Array.from({ length: o.uncleCount }, (_, i) => bytesAt(raw, o.uncles + 32 * i, 32)),
      h.uncles,
    );
    assert.deepStrictEqual(bytesAt(raw, o.withdrawalsRoot, 32), h.withdrawalsRoot);
    assert.equal(o.withdrawalCount, h.withdrawals?.length ?? 0);
    assert.equal(o.withdrawals < 0, h.withdrawals === undefined);
    assert.deepStrictEqual(bytesAt(raw, o.parentBeaconBlockRoot, 32), h.parentBeaconBlockRoot);
    assert.deepStrictEqual(bytesAt(raw, o.requestsHash, 32), h.requestsHash);
    assert.deepStrictEqual(new Uint8Array(storedBlockHash(raw)), h.hash, 'storedBlockHash');
    assert.equal(headerTimestamp(raw), h.timestamp, 'headerTimestamp');
  }
  const extreme = {
    ...baseHeader(rng),
    number: Number.MAX_SAFE_INTEGER,
    timestamp: 2 ** 40,
    difficulty: MAX_U256,
    totalDifficulty: MAX_U256,
    gasLimit: (1n << 64n) - 1n,
    gasUsed: 0n,
  };
  assert.deepStrictEqual(new Uint8Array(storedBlockHash(encodeHeader(extreme))), extreme.hash);
  assert.equal(headerTimestamp(encodeHeader(extreme)), 2 ** 40);
});

test('transaction offsets point at every field, for every type', () => {
  const o = new TxOffsets();
  for (const [name, tx] of Object.entries(sampleTxs(new Rng(401)))) {
    const raw = encodeTx(tx);
    readTxOffsets(raw, o);
    assert.equal(o.type, tx.type, name);
    assert.deepStrictEqual(bytesAt(raw, TX_FROM_OFFSET, 20), tx.from, name);
    assert.deepStrictEqual(o.to < 0 ? null : bytesAt(raw, o.to, 20), tx.to, name);
    assert.deepStrictEqual(bytesAt(raw, o.input, o.inputLength), tx.input, name);
    for (const field of [
      'nonce',
      'gas',
      'value',
      'v',
      'r',
      's',
      'chainId',
      'gasPrice',
      'maxFeePerGas',
      'maxPriorityFeePerGas',
      'maxFeePerBlobGas',
    ] as const) {
      assert.equal(quantityAt(raw, o[field]), tx[field], `${name} ${field}`);
    }
    assert.equal(o.accessList < 0, tx.accessList === undefined, name);
    assert.equal(o.accessListCount, tx.accessList?.length ?? 0, name);
    assert.equal(o.blobHashCount, tx.blobVersionedHashes?.length ?? 0, name);
    assert.deepStrictEqual(
      Array.from({ length: o.blobHashCount }, (_, i) => bytesAt(raw, o.blobHashes + 32 * i, 32)),
      tx.blobVersionedHashes ?? [],
      name,
    );
    assert.equal(o.authorizationCount, tx.authorizationList?.length ?? 0, name);
    assert.equal(o.authorizations < 0, tx.authorizationList === undefined, name);
  }
});

/** Members kept as a node gave them: text of any JSON object's members (non-ASCII included). */
const KEPT = '"sourceHash":"0x' + '11'.repeat(32) + '","mint":"0x5","note":"d\u00e9p\u00f4t \u2713","n":[1,{"a":null}]';

test(
  'kept members round-trip on headers, transactions of a type ' + 'not modelled (with every other field) and bundles',
  () => {
    const rng = new Rng(500);
    const header = {
      ...baseHeader(rng),
      extra: '"l1BlockNumber":"0x10","sendCount":"0x2","sendRoot":"0x' + 'ab'.repeat(32) + '"',
    };
    assert.deepStrictEqual(decodeHeader(encodeHeader(header)), header);
    for (const tx of Object.values(sampleTxs(rng))) {
      const kept: Transaction = { ...tx, type: 0x7e, extra: KEPT };
      assert.deepStrictEqual(decodeTx(encodeTx(kept), kept.hash), kept);
    }
    const empty: Transaction = { ...makeTx(rng), type: 0x99, extra: '' };
    assert.deepStrictEqual(decodeTx(encodeTx(empty), empty.hash), empty);
    assert.throws(() => encodeTx({ ...makeTx(rng), type: 0x100, extra: '' }), /does not fit the record's type byte/);
    const bundle = makeBundle(rng, 77, rng.bytes(32), 3);
    bundle.header.extra = header.extra;
    bundle.transactions[1] = { ...bundle.transactions[1]!, type: 0x64, extra: KEPT };
    bundle.receipts[1] = { ...bundle.receipts[1]!, extra: '"gasUsedForL1":"0x0","l1BlockNumber":"0x10"' };
    assert.deepStrictEqual(decodeBundle(encodeBundle(bundle)), bundle);
  },
);

test('offsets find kept members after every other field of a header and a transaction', () => {
  const rng = new Rng(501);
  const h = new HeaderOffsets();
  for (const extra of [undefined, '"sendRoot":"0x01"']) {
    const header = { ...baseHeader(rng), requestsHash: rng.bytes(32), parentBeaconBlockRoot: rng.bytes(32), extra };
    if (extra === undefined) delete header.extra;
    const raw = encodeHeader(header);
    readHeaderOffsets(raw, h);
    assert.deepStrictEqual(bytesAt(raw, h.requestsHash, 32), header.requestsHash);
    assert.equal(
      h.extra < 0 ? undefined : Buffer.from(raw.subarray(h.extra, h.extra + h.extraLength)).toString(),
      extra,
    );
  }
  const o = new TxOffsets();
  for (const [name, tx] of Object.entries(sampleTxs(rng))) {
    const raw = encodeTx({ ...tx, type: 0x99, extra: KEPT });
    readTxOffsets(raw, o);
    assert.equal(o.type, 0x99, name);
    assert.equal(o.authorizationCount, tx.authorizationList?.length ?? 0, name);
    assert.equal(Buffer.from(raw.subarray(o.extra, o.extra + o.extraLength)).toString(), KEPT, name);
    assert.equal(readTxOffsets(encodeTx(tx), o).extra, -1, name);
  }
});
