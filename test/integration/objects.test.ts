/**
 * The exact shape of every object the service returns, through the real server: transactions of
 * every type (0 without and with an EIP-155 chain id, 1, 2, 3, 4) in every fork era the generator
 * makes (London, Shanghai, Cancun, Prague), blocks per fork, logs, and the pending block, its
 * transactions and logs. Keys are checked as an exact, ordered list (geth's RPCTransaction field
 * order, Go's sorted map keys for blocks, types.Log's order for logs); values by format and against
 * an independent re-encoding with viem: the block hash is keccak256 of the header RLP rebuilt from
 * the wire fields, a transaction hash is keccak256 of its envelope rebuilt from its wire fields, and
 * `size` is the length of the block RLP rebuilt from the wire.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Hex, keccak256, toRlp } from 'viem';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { forkOf, FORK_SCHEDULE as schedule } from '#src/synth/forks.js';
import { describeDataset, generateChain, generatePending } from '#src/synth/generator.js';
import {
  makeDataset,
  type RpcResponse,
  startTestService,
  type TestDataset,
  type TestService,
} from '../support/harness.js';

/** Large enough that every fork era holds every transaction type it allows (checked below). */
const OPTS = { blocks: 100, density: 0.1, seed: 'objects', pending: true };
const hex = quantityToHex;

type Obj = Record<string, unknown>;
type Fork = 'london' | 'shanghai' | 'cancun' | 'prague';
const FORKS: Fork[] = ['london', 'shanghai', 'cancun', 'prague'];
/** A transaction's kind: its type, and for type 0 whether it carries an EIP-155 chain id. */
type TxKind = '0-unprotected' | '0-eip155' | '1' | '2' | '3' | '4';

let dataset: TestDataset;
let svc: TestService;
let chain: BlockBundle[];
let pendingBundle: BlockBundle;
/** Every block as served with full transactions, and with hashes only, by number. */
let full: Obj[];
let hashesOnly: Obj[];
let pendingFull: Obj;
let pendingHashes: Obj;

async function batch(calls: [string, unknown[]][]): Promise<unknown[]> {
  const { json } = await svc.post(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })));
  return (json as RpcResponse[]).map((r, i) => {
    assert.equal(r.id, i);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    return r.result;
  });
}

before(async () => {
  dataset = await makeDataset(OPTS.blocks, OPTS.density, OPTS.seed);
  svc = await startTestService(dataset);
  chain = [...generateChain(OPTS)];
  pendingBundle = generatePending(OPTS, chain.at(-1)!.header);
  full = (await batch(chain.map((b) => ['eth_getBlockByNumber', [hex(b.header.number), true]]))) as Obj[];
  hashesOnly = (await batch(chain.map((b) => ['eth_getBlockByNumber', [hex(b.header.number), false]]))) as Obj[];
  [pendingFull, pendingHashes] = (await batch([
    ['eth_getBlockByNumber', ['pending', true]],
    ['eth_getBlockByNumber', ['pending', false]],
  ])) as [Obj, Obj];
});

after(async () => {
  await svc.close();
  dataset.remove();
});

// ---------------------------------------------------------------------------------------------
// Formats.
// ---------------------------------------------------------------------------------------------

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const DATA = /^0x([0-9a-f]{2})*$/;
const bytesOf = (n: number) => new RegExp(`^0x[0-9a-f]{${2 * n}}$`);
const HASH = bytesOf(32);
const ADDRESS = bytesOf(20);

function assertQuantity(v: unknown, what: string): void {
  assert.equal(typeof v, 'string', what);
  assert.match(v as string, QUANTITY, what);
}
function assertBytes(v: unknown, re: RegExp, what: string): void {
  assert.equal(typeof v, 'string', what);
  assert.match(v as string, re, what);
}

// ---------------------------------------------------------------------------------------------
// The expected keys.
// ---------------------------------------------------------------------------------------------

/** geth's RPCTransaction fields in struct order (encoding/json writes struct fields in this order). */
const TX_FIELD_ORDER = [
  'blockHash',
  'blockNumber',
  'blockTimestamp',
  'from',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'maxFeePerBlobGas',
  'hash',
  'input',
  'nonce',
  'to',
  'transactionIndex',
  'value',
  'type',
  'accessList',
  'chainId',
  'blobVersionedHashes',
  'authorizationList',
  'v',
  'r',
  's',
  'yParity',
];

/** The keys geth returns for a transaction of `kind`, in its order. */
function txKeys(kind: TxKind): string[] {
  const type = Number(kind[0]);
  const present = new Set([
    'blockHash',
    'blockNumber',
    'blockTimestamp',
    'from',
    'gas',
    'gasPrice',
    'hash',
    'input',
    'nonce',
    'to',
    'transactionIndex',
    'value',
    'type',
    'v',
    'r',
    's',
  ]);
  if (kind === '0-eip155' || type >= 1) present.add('chainId');
  if (type >= 1) present.add('accessList').add('yParity');
  if (type >= 2) present.add('maxFeePerGas').add('maxPriorityFeePerGas');
  if (type === 3) present.add('maxFeePerBlobGas').add('blobVersionedHashes');
  if (type === 4) present.add('authorizationList');
  return TX_FIELD_ORDER.filter((k) => present.has(k));
}

/** The block fields of docs/api.md §4.1 (totalDifficulty included). */
const SPEC_BLOCK_KEYS = [
  'difficulty',
  'extraData',
  'gasLimit',
  'gasUsed',
  'hash',
  'logsBloom',
  'miner',
  'mixHash',
  'nonce',
  'number',
  'parentHash',
  'receiptsRoot',
  'sha3Uncles',
  'size',
  'stateRoot',
  'timestamp',
  'totalDifficulty',
  'transactions',
  'transactionsRoot',
  'uncles',
];
const FORK_BLOCK_KEYS: Record<Fork, string[]> = {
  london: ['baseFeePerGas'],
  shanghai: ['baseFeePerGas', 'withdrawals', 'withdrawalsRoot'],
  cancun: ['baseFeePerGas', 'withdrawals', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot'],
  prague: [
    'baseFeePerGas',
    'withdrawals',
    'withdrawalsRoot',
    'blobGasUsed',
    'excessBlobGas',
    'parentBeaconBlockRoot',
    'requestsHash',
  ],
};
/** A block's keys in Go's map order: sorted byte-wise. */
const blockKeys = (fork: Fork) => [...SPEC_BLOCK_KEYS, ...FORK_BLOCK_KEYS[fork]].sort();

/** geth's types.Log fields in order (gen_log_json.go), blockTimestamp included. */
const LOG_KEYS = [
  'address',
  'topics',
  'data',
  'blockNumber',
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'blockTimestamp',
  'logIndex',
  'removed',
];

/** The fork of a block, read from its wire header fields. */
function forkOfBlock(block: Obj): Fork {
  if ('requestsHash' in block) return 'prague';
  if ('parentBeaconBlockRoot' in block) return 'cancun';
  if ('withdrawalsRoot' in block) return 'shanghai';
  return 'london';
}

function kindOf(tx: Obj): TxKind {
  const type = Number(tx.type as string);
  if (type === 0) return 'chainId' in tx ? '0-eip155' : '0-unprotected';
  return String(type) as TxKind;
}

// ---------------------------------------------------------------------------------------------
// Independent re-encoding from the wire fields (viem's RLP and keccak).
// ---------------------------------------------------------------------------------------------

/** A wire quantity as an RLP integer: minimal big-endian bytes, empty for zero. */
function q(v: unknown): Hex {
  const digits = (v as string).slice(2);
  if (digits === '0') return '0x';
  return `0x${digits.length % 2 ? '0' : ''}${digits}`;
}
const d = (v: unknown) => v as Hex;

type RlpTree = Hex | RlpTree[];

function accessListRlp(list: unknown): RlpTree {
  return (list as Obj[]).map((e) => [d(e.address), (e.storageKeys as Hex[]).map(d)]);
}

/**
 * A transaction's consensus encoding rebuilt from its wire object: the RLP list (legacy) or the typed envelope bytes.
 */
function txEncoding(tx: Obj): { item: RlpTree; envelope: Hex } {
  const to = tx.to === null ? '0x' : d(tx.to);
  const sig: RlpTree[] = [q(tx.v), q(tx.r), q(tx.s)];
  const type = Number(tx.type as string);
  let fields: RlpTree[];
  switch (type) {
    case 0: {
      const list: RlpTree[] = [q(tx.nonce), q(tx.gasPrice), q(tx.gas), to, q(tx.value), d(tx.input), ...sig];
      const encoded = toRlp(list as Hex[]);
      return { item: list, envelope: encoded };
    }
    case 1:
      fields = [
        q(tx.chainId),
        q(tx.nonce),
        q(tx.gasPrice),
        q(tx.gas),
        to,
        q(tx.value),
        d(tx.input),
        accessListRlp(tx.accessList),
        ...sig,
      ];
      break;
    case 2:
      fields = [
        q(tx.chainId),
        q(tx.nonce),
        q(tx.maxPriorityFeePerGas),
        q(tx.maxFeePerGas),
        q(tx.gas),
        to,
        q(tx.value),
        d(tx.input),
        accessListRlp(tx.accessList),
        ...sig,
      ];
      break;
    case 3:
      fields = [
        q(tx.chainId),
        q(tx.nonce),
        q(tx.maxPriorityFeePerGas),
        q(tx.maxFeePerGas),
        q(tx.gas),
        to,
        q(tx.value),
        d(tx.input),
        accessListRlp(tx.accessList),
        q(tx.maxFeePerBlobGas),
        (tx.blobVersionedHashes as Hex[]).map(d),
        ...sig,
      ];
      break;
    case 4:
      fields = [
        q(tx.chainId),
        q(tx.nonce),
        q(tx.maxPriorityFeePerGas),
        q(tx.maxFeePerGas),
        q(tx.gas),
        to,
        q(tx.value),
        d(tx.input),
        accessListRlp(tx.accessList),
        (tx.authorizationList as Obj[]).map((a) => [
          q(a.chainId),
          d(a.address),
          q(a.nonce),
          q(a.yParity),
          q(a.r),
          q(a.s),
        ]),
        ...sig,
      ];
      break;
    default:
      throw new Error(`unknown transaction type ${String(tx.type)}`);
  }
  const envelope = `0x0${type}${toRlp(fields as Hex[]).slice(2)}` as Hex;
  return { item: envelope, envelope };
}

/** The header RLP items rebuilt from a wire block (`fill` supplies what a pending block leaves null). */
function headerItems(b: Obj, fill: Partial<Record<'number' | 'nonce' | 'logsBloom', Hex>> = {}): RlpTree[] {
  const items: RlpTree[] = [
    d(b.parentHash),
    d(b.sha3Uncles),
    d(b.miner),
    d(b.stateRoot),
    d(b.transactionsRoot),
    d(b.receiptsRoot),
    fill.logsBloom ?? d(b.logsBloom),
    q(b.difficulty),
    fill.number ?? q(b.number),
    q(b.gasLimit),
    q(b.gasUsed),
    q(b.timestamp),
    d(b.extraData),
    d(b.mixHash),
    fill.nonce ?? d(b.nonce),
  ];
  if ('baseFeePerGas' in b) items.push(q(b.baseFeePerGas));
  if ('withdrawalsRoot' in b) items.push(d(b.withdrawalsRoot));
  if ('blobGasUsed' in b) items.push(q(b.blobGasUsed), q(b.excessBlobGas));
  if ('parentBeaconBlockRoot' in b) items.push(d(b.parentBeaconBlockRoot));
  if ('requestsHash' in b) items.push(d(b.requestsHash));
  return items;
}

/** The byte length of rlp([header, transactions, uncles, withdrawals?]) rebuilt from a full wire block. */
function blockRlpLength(b: Obj, fill: Parameters<typeof headerItems>[1] = {}): number {
  const body: RlpTree[] = [
    headerItems(b, fill),
    (b.transactions as Obj[]).map((tx) => txEncoding(tx).item),
    (b.uncles as Hex[]).map(d),
  ];
  if ('withdrawals' in b)
    body.push((b.withdrawals as Obj[]).map((w) => [q(w.index), q(w.validatorIndex), d(w.address), q(w.amount)]));
  return (toRlp(body as Hex[]).length - 2) / 2;
}

// ---------------------------------------------------------------------------------------------
// Checks shared by canonical and pending objects.
// ---------------------------------------------------------------------------------------------

interface TxContext {
  /** The including block (wire), or null for a pending transaction. */
  block: Obj | null;
  /** Its position in that block. */
  index: number;
}

/**
 * Checks one transaction object: exact keys in order, formats, positions, gas price, signature fields, and its hash.
 */
function checkTransaction(tx: Obj, ctx: TxContext, what: string): void {
  const kind = kindOf(tx);
  const type = Number(kind[0]);
  assert.deepEqual(Object.keys(tx), txKeys(kind), `${what}: keys of a ${kind} transaction`);

  // Position fields: the block's, or null when pending (docs/api.md §4).
  if (ctx.block) {
    assert.equal(tx.blockHash, ctx.block.hash, what);
    assert.equal(tx.blockNumber, ctx.block.number, what);
    assert.equal(tx.blockTimestamp, ctx.block.timestamp, what);
    assert.equal(tx.transactionIndex, hex(ctx.index), what);
  } else {
    for (const k of ['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex'])
      assert.equal(tx[k], null, `${what}: pending ${k}`);
  }

  // Formats.
  for (const k of [
    'gas',
    'gasPrice',
    'nonce',
    'value',
    'type',
    'v',
    'r',
    's',
    'chainId',
    'maxFeePerGas',
    'maxPriorityFeePerGas',
    'maxFeePerBlobGas',
    'yParity',
  ]) {
    if (k in tx) assertQuantity(tx[k], `${what}: ${k}`);
  }
  assertBytes(tx.hash, HASH, `${what}: hash`);
  assertBytes(tx.from, ADDRESS, `${what}: from`);
  assertBytes(tx.input, DATA, `${what}: input`);
  if (tx.to !== null) assertBytes(tx.to, ADDRESS, `${what}: to`);
  if (type >= 3) assert.notEqual(tx.to, null, `${what}: a type ${type} transaction has a recipient`);
  assert.equal(tx.type, hex(type));
  if ('chainId' in tx) assert.equal(tx.chainId, '0x1', `${what}: chain id`);
  if ('accessList' in tx) {
    assert.ok(Array.isArray(tx.accessList), what);
    for (const e of tx.accessList as Obj[]) {
      assert.deepEqual(Object.keys(e), ['address', 'storageKeys'], what);
      assertBytes(e.address, ADDRESS, `${what}: access list address`);
      for (const k of e.storageKeys as unknown[]) assertBytes(k, HASH, `${what}: storage key`);
    }
  }
  if (type === 3) {
    const hashes = tx.blobVersionedHashes as unknown[];
    assert.ok(hashes.length >= 1 && hashes.length <= 9, `${what}: blob count`);
    for (const h of hashes) assertBytes(h, /^0x01[0-9a-f]{62}$/, `${what}: versioned hash (version 0x01)`);
  }
  if (type === 4) {
    const list = tx.authorizationList as Obj[];
    assert.ok(list.length >= 1, what);
    for (const a of list) {
      assert.deepEqual(
        Object.keys(a),
        ['chainId', 'address', 'nonce', 'yParity', 'r', 's'],
        `${what}: authorization keys`,
      );
      for (const k of ['chainId', 'nonce', 'yParity', 'r', 's']) assertQuantity(a[k], `${what}: authorization ${k}`);
      assertBytes(a.address, ADDRESS, `${what}: authorization address`);
      assert.ok(a.yParity === '0x0' || a.yParity === '0x1', what);
    }
  }

  // Signature: yParity equals v for typed transactions; legacy v is 27/28 or chainId·2 + 35/36.
  const v = BigInt(tx.v as string);
  if (type >= 1) {
    assert.equal(tx.yParity, tx.v, `${what}: yParity = v`);
    assert.ok(v === 0n || v === 1n, what);
  } else if (kind === '0-eip155') {
    assert.ok(v === 37n || v === 38n, `${what}: EIP-155 v for chain 1 is 37 or 38, got ${v}`);
  } else {
    assert.ok(v === 27n || v === 28n, `${what}: unprotected v is 27 or 28, got ${v}`);
  }

  // Gas price: the effective price in a block, the fee cap when pending (geth's RPCTransaction).
  if (type >= 2) {
    const feeCap = BigInt(tx.maxFeePerGas as string);
    const tip = BigInt(tx.maxPriorityFeePerGas as string);
    if (ctx.block) {
      const baseFee = BigInt(ctx.block.baseFeePerGas as string);
      const effective = tip + baseFee < feeCap ? tip + baseFee : feeCap;
      assert.equal(tx.gasPrice, hex(effective), `${what}: effective gas price`);
    } else {
      assert.equal(tx.gasPrice, tx.maxFeePerGas, `${what}: a pending transaction's gasPrice is its fee cap`);
    }
  }

  // Every signed field, checked at once: the envelope rebuilt from the wire hashes to `hash`.
  assert.equal(
    keccak256(txEncoding(tx).envelope),
    tx.hash,
    `${what}: keccak256(envelope rebuilt from the wire) = hash`,
  );
}

/** Checks a block's non-transaction fields: formats, and the uncles and withdrawals shapes. */
function checkBlockFields(b: Obj, pending: boolean, what: string): void {
  const quantities = [
    'difficulty',
    'gasLimit',
    'gasUsed',
    'size',
    'timestamp',
    'totalDifficulty',
    'baseFeePerGas',
    'blobGasUsed',
    'excessBlobGas',
  ];
  for (const k of quantities) if (k in b) assertQuantity(b[k], `${what}: ${k}`);
  for (const k of [
    'parentHash',
    'mixHash',
    'receiptsRoot',
    'sha3Uncles',
    'stateRoot',
    'transactionsRoot',
    'withdrawalsRoot',
    'parentBeaconBlockRoot',
    'requestsHash',
  ]) {
    if (k in b) assertBytes(b[k], HASH, `${what}: ${k}`);
  }
  assertBytes(b.miner, ADDRESS, `${what}: miner`);
  assertBytes(b.extraData, DATA, `${what}: extraData`);
  if (pending) {
    for (const k of ['hash', 'logsBloom', 'nonce', 'number']) assert.equal(b[k], null, `${what}: pending ${k}`);
  } else {
    assertBytes(b.hash, HASH, `${what}: hash`);
    assertQuantity(b.number, `${what}: number`);
    assertBytes(b.nonce, bytesOf(8), `${what}: nonce`);
    assertBytes(b.logsBloom, bytesOf(256), `${what}: logsBloom`);
  }
  assert.deepEqual(b.uncles, [], `${what}: no uncles after the merge`);
  assert.equal(b.sha3Uncles, keccak256(toRlp([])), `${what}: sha3Uncles = keccak256(rlp([]))`);
  if ('withdrawals' in b) {
    for (const w of b.withdrawals as Obj[]) {
      assert.deepEqual(Object.keys(w), ['index', 'validatorIndex', 'address', 'amount'], `${what}: withdrawal keys`);
      assertQuantity(w.index, what);
      assertQuantity(w.validatorIndex, what);
      assertQuantity(w.amount, what);
      assertBytes(w.address, ADDRESS, what);
    }
  }
}

/** Checks one log object: exact keys in order, formats, and its position fields (null when pending). */
function checkLog(log: Obj, at: { block: Obj; txHashes: string[] } | null, what: string): void {
  assert.deepEqual(Object.keys(log), LOG_KEYS, `${what}: log keys`);
  assertBytes(log.address, ADDRESS, `${what}: address`);
  assertBytes(log.data, DATA, `${what}: data`);
  const topics = log.topics as unknown[];
  assert.ok(Array.isArray(topics) && topics.length <= 4, what);
  for (const t of topics) assertBytes(t, HASH, `${what}: topic`);
  assert.equal(log.removed, false, what);
  if (at) {
    assert.equal(log.blockHash, at.block.hash, what);
    assert.equal(log.blockNumber, at.block.number, what);
    assert.equal(log.blockTimestamp, at.block.timestamp, what);
    assertQuantity(log.logIndex, `${what}: logIndex`);
    assertQuantity(log.transactionIndex, `${what}: transactionIndex`);
    assert.equal(log.transactionHash, at.txHashes[Number(log.transactionIndex as string)], `${what}: transactionHash`);
  } else {
    for (const k of ['blockHash', 'blockNumber', 'blockTimestamp', 'logIndex', 'transactionIndex', 'transactionHash']) {
      assert.equal(log[k], null, `${what}: pending ${k}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------------------------

describe('coverage of the dataset', () => {
  test(
    'the header fields name the same fork eras as the generator ' +
      'schedule, and every era holds every type it allows',
    () => {
      const seen = new Map<Fork, Set<TxKind>>(FORKS.map((f) => [f, new Set()]));
      for (const b of full) {
        const fork = forkOfBlock(b);
        assert.equal(FORKS.indexOf(fork), forkOf(Number(b.number as string)), `block ${String(b.number)}`);
        for (const tx of b.transactions as Obj[]) seen.get(fork)!.add(kindOf(tx));
      }
      const base: TxKind[] = ['0-unprotected', '0-eip155', '1', '2'];
      const expected: Record<Fork, TxKind[]> = {
        london: base,
        shanghai: base,
        cancun: [...base, '3'],
        prague: [...base, '3', '4'],
      };
      for (const fork of FORKS) assert.deepEqual([...seen.get(fork)!].sort(), [...expected[fork]].sort(), fork);
      assert.ok(
        (full as Obj[]).some((b) => (b.transactions as Obj[]).some((t) => t.to === null)),
        'some contract creations',
      );
    },
  );
});

describe('block objects', () => {
  test('exact keys per fork, in sorted (Go map) order, for full and hashes-only blocks', () => {
    for (const [i, b] of full.entries()) {
      const fork = forkOfBlock(b);
      assert.equal(forkOf(i), FORKS.indexOf(fork));
      assert.deepEqual(Object.keys(b), blockKeys(fork), `block ${i} (${fork})`);
      assert.deepEqual(Object.keys(hashesOnly[i]!), blockKeys(fork), `block ${i} (${fork}), hashes only`);
    }
  });

  test('formats, and the values the generator made', () => {
    for (const [i, b] of full.entries()) {
      checkBlockFields(b, false, `block ${i}`);
      const h = chain[i]!.header;
      assert.equal(b.number, hex(i));
      assert.equal(b.hash, bytesToHex(h.hash));
      assert.equal(
        b.parentHash,
        i === 0 ? bytesToHex(h.parentHash) : full[i - 1]!.hash,
        `block ${i} links to its parent`,
      );
      assert.equal(b.logsBloom, bytesToHex(h.logsBloom));
      assert.equal(b.timestamp, hex(h.timestamp));
      assert.equal(b.totalDifficulty, hex(h.totalDifficulty));
      if (h.withdrawals) {
        assert.deepEqual(
          b.withdrawals,
          h.withdrawals.map((w) => ({
            index: hex(w.index),
            validatorIndex: hex(w.validatorIndex),
            address: bytesToHex(w.address),
            amount: hex(w.amount),
          })),
        );
      }
    }
  });

  test('hash = keccak256(rlp(header)) rebuilt from the wire fields of every fork', () => {
    for (const [i, b] of full.entries()) {
      assert.equal(keccak256(toRlp(headerItems(b) as Hex[])), b.hash, `block ${i} (${forkOfBlock(b)})`);
    }
  });

  test('size = the byte length of rlp([header, transactions, uncles, withdrawals?]) rebuilt from the wire', () => {
    for (const [i, b] of full.entries()) {
      assert.equal(b.size, hex(blockRlpLength(b)), `block ${i} (${forkOfBlock(b)})`);
    }
    const p = pendingBundle.header;
    const fill = {
      number: q(hex(p.number)),
      nonce: bytesToHex(p.nonce) as Hex,
      logsBloom: bytesToHex(p.logsBloom) as Hex,
    };
    assert.equal(pendingFull.size, hex(blockRlpLength(pendingFull, fill)), 'the pending block');
  });

  test('hashes only vs full transactions: the same block, transactions as their hashes', () => {
    const pairs: [Obj, Obj, string][] = full.map((b, i) => [b, hashesOnly[i]!, `block ${i}`]);
    pairs.push([pendingFull, pendingHashes, 'pending']);
    for (const [f, h, what] of pairs) {
      const txs = f.transactions as Obj[];
      assert.deepEqual(
        h.transactions,
        txs.map((t) => t.hash),
        what,
      );
      for (const t of h.transactions as unknown[]) assertBytes(t, HASH, what);
      assert.deepEqual({ ...h, transactions: null }, { ...f, transactions: null }, what);
    }
    assert.ok(full.every((b, i) => (b.transactions as Obj[]).length === chain[i]!.transactions.length));
  });

  test('the pending block: Prague keys, null hash, logsBloom, nonce and number, its transactions pending', () => {
    assert.deepEqual(Object.keys(pendingFull), blockKeys('prague'));
    assert.deepEqual(Object.keys(pendingHashes), blockKeys('prague'));
    checkBlockFields(pendingFull, true, 'pending block');
    assert.equal(pendingFull.parentHash, full.at(-1)!.hash);
    assert.equal(pendingFull.timestamp, hex(pendingBundle.header.timestamp));
    const txs = pendingFull.transactions as Obj[];
    assert.equal(txs.length, pendingBundle.transactions.length);
    assert.ok(txs.length > 0);
    txs.forEach((tx, i) => {
      checkTransaction(tx, { block: null, index: i }, `pending tx ${i}`);
      assert.equal(tx.hash, bytesToHex(pendingBundle.transactions[i]!.hash));
    });
  });
});

describe('transaction objects', () => {
  test('every transaction of every block: exact keys per type, formats, positions, gas price, hash', () => {
    let checked = 0;
    for (const [i, b] of full.entries()) {
      (b.transactions as Obj[]).forEach((tx, j) => {
        checkTransaction(tx, { block: b, index: j }, `block ${i} tx ${j} (${forkOfBlock(b)})`);
        const t = chain[i]!.transactions[j]!;
        assert.equal(tx.hash, bytesToHex(t.hash));
        assert.equal(tx.from, bytesToHex(t.from), 'from is not in the envelope: checked against the generator');
        checked++;
      });
    }
    assert.ok(checked > 1000, `${checked} transactions`);
  });

  test(
    'each (fork, type) pair the same through every lookup: ' +
      'by hash, by block number and index, by block hash and index',
    async () => {
      const firsts = new Map<string, { block: Obj; index: number; tx: Obj }>();
      for (const b of full) {
        (b.transactions as Obj[]).forEach((tx, index) => {
          const key = `${forkOfBlock(b)} ${kindOf(tx)}`;
          if (!firsts.has(key)) firsts.set(key, { block: b, index, tx });
        });
      }
      assert.equal(firsts.size, 4 + 4 + 5 + 6, [...firsts.keys()].join(', '));
      const entries = [...firsts.entries()];
      const calls: [string, unknown[]][] = entries.flatMap(([, { block, index, tx }]): [string, unknown[]][] => [
        ['eth_getTransactionByHash', [tx.hash]],
        ['eth_getTransactionByBlockNumberAndIndex', [block.number, hex(index)]],
        ['eth_getTransactionByBlockHashAndIndex', [block.hash, hex(index)]],
      ]);
      const results = (await batch(calls)) as Obj[];
      entries.forEach(([key, { tx }], k) => {
        for (let m = 0; m < 3; m++) {
          const got = results[3 * k + m]!;
          assert.deepEqual(Object.keys(got), txKeys(kindOf(tx)), `${key} via ${calls[3 * k + m]![0]}`);
          assert.deepEqual(got, tx, `${key} via ${calls[3 * k + m]![0]}`);
        }
      });
    },
  );

  test('pending transactions by hash and by (pending, index): null positions, fee cap as gasPrice', async () => {
    const txs = pendingFull.transactions as Obj[];
    const calls: [string, unknown[]][] = txs.flatMap((tx, i): [string, unknown[]][] => [
      ['eth_getTransactionByHash', [tx.hash]],
      ['eth_getTransactionByBlockNumberAndIndex', ['pending', hex(i)]],
    ]);
    const results = (await batch(calls)) as Obj[];
    txs.forEach((tx, i) => {
      assert.deepEqual(results[2 * i], tx, `pending tx ${i} by hash`);
      assert.deepEqual(results[2 * i + 1], tx, `pending tx ${i} by index`);
    });
    const kinds = new Set(txs.map(kindOf));
    assert.ok(kinds.has('2'), 'pending 1559 transactions exist');
  });
});

describe('log objects', () => {
  test('exact keys, formats and positions in blocks of every fork', async () => {
    const picks = FORKS.flatMap((f) => {
      const blocks = full.filter((b) => forkOfBlock(b) === f);
      return [blocks[0]!, blocks.at(-1)!];
    });
    const results = (await batch(picks.map((b) => ['eth_getLogs', [{ blockHash: b.hash }]]))) as Obj[][];
    picks.forEach((b, k) => {
      const n = Number(b.number as string);
      const logs = results[k]!;
      assert.equal(logs.length, chain[n]!.logs.length, `block ${n}`);
      assert.ok(logs.length > 0);
      const txHashes = (b.transactions as Obj[]).map((t) => t.hash as string);
      logs.forEach((log, i) => {
        checkLog(log, { block: b, txHashes }, `block ${n} log ${i}`);
        assert.equal(log.logIndex, hex(i), 'logIndex counts across the block');
        const g = chain[n]!.logs[i]!;
        assert.equal(log.address, bytesToHex(g.address));
        assert.deepEqual(log.topics, g.topics.map(bytesToHex));
        assert.equal(log.data, bytesToHex(g.data));
      });
    });
  });

  test('a range across every fork boundary: the same objects as by block hash', async () => {
    const from = schedule.shanghai - 1;
    const to = schedule.prague;
    const address = bytesToHex(describeDataset(OPTS).hotToken);
    const logs = (await svc.result('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address }])) as Obj[];
    const expected = chain
      .slice(from, to + 1)
      .reduce((n, b) => n + b.logs.filter((l) => bytesToHex(l.address) === address).length, 0);
    assert.equal(logs.length, expected);
    assert.ok(logs.length > 0);
    for (const log of logs) {
      const b = full[Number(log.blockNumber as string)]!;
      checkLog(
        log,
        { block: b, txHashes: (b.transactions as Obj[]).map((t) => t.hash as string) },
        `log of block ${String(log.blockNumber)}`,
      );
    }
  });

  test('pending logs: the same keys, null position fields (docs/api.md §4.3)', async () => {
    const logs = (await svc.result('eth_getLogs', [{ fromBlock: 'latest', toBlock: 'pending' }])) as Obj[];
    const headLogs = chain.at(-1)!.logs.length;
    assert.equal(logs.length, headLogs + pendingBundle.logs.length);
    assert.ok(pendingBundle.logs.length > 0);
    logs.slice(headLogs).forEach((log, i) => {
      checkLog(log, null, `pending log ${i}`);
      assert.equal(log.address, bytesToHex(pendingBundle.logs[i]!.address));
    });
  });
});
