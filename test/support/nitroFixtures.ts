/**
 * A small Arbitrum (Nitro) chain as its node answers it, built from Nitro's marshalling (the
 * go-ethereum fork's internal/ethapi: RPCMarshalBlock with fillArbitrumNitroHeaderInfo's
 * l1BlockNumber, sendCount and sendRoot; newRPCTransaction's fields per Arbitrum type; the receipt
 * map with gasUsedForL1 and l1BlockNumber): every Arbitrum transaction type (0x64 deposit, 0x65
 * unsigned, 0x66 contract, 0x68 retry, 0x69 submit-retryable, 0x6a internal, 0x78 legacy), an
 * ordinary EIP-1559 transaction, and a transaction of a type nobody models (0x99). Blocks link by
 * hash; receipts carry cumulative gas, logs and blooms consistent with their block.
 */
import { logsBloom } from '#src/chain/bloom.js';
import { bytesToHex, hexToBytes } from '#src/chain/hex.js';
import { keccak256 } from '#src/chain/keccak.js';
import type { FakeBlock } from './fakeChainNode.js';

type Obj = Record<string, unknown>;

/** Arbitrum One's chain id. */
export const NITRO_CHAIN_ID = 42161;

const CHAIN_ID = '0xa4b1';
const ARBOS = '0x00000000000000000000000000000000000a4b05';
const ARB_RETRYABLE_TX = '0x000000000000000000000000000000000000006e';
const SEQUENCER = '0xa4b000000000000000000073657175656e636572';
const BASE_FEE = 10_000_000n;

const hex = (n: number | bigint) => '0x' + n.toString(16);
const word = (label: string) => bytesToHex(keccak256(new TextEncoder().encode(label)));
const address = (label: string) => '0x' + word(label).slice(26);
const ZERO32 = '0x' + '00'.repeat(32);

/** A transaction's own fields (no position) and its receipt's (gas used, status, logs' address/topics/data, extras). */
interface Spec {
  tx: Obj;
  gasUsed: bigint;
  status?: string;
  logs?: { address: string; topics: string[]; data: string }[];
  receipt?: Obj;
}

/** The ArbitrumInternalTx (0x6a) opening every Nitro block: ArbOS's startBlock call. */
function internal(n: number): Spec {
  return {
    tx: {
      from: ARBOS,
      gas: '0x0',
      gasPrice: '0x0',
      hash: word(`internal ${n}`),
      input: '0x6bf6a42d' + '00'.repeat(31) + hex(n).slice(2).padStart(2, '0'),
      nonce: '0x0',
      to: ARBOS,
      value: '0x0',
      type: '0x6a',
      chainId: CHAIN_ID,
      v: '0x0',
      r: '0x0',
      s: '0x0',
    },
    gasUsed: 0n,
    receipt: { gasUsedForL1: '0x0' },
  };
}

function blockSpecs(): Spec[][] {
  const user = address('user');
  const aliased = address('l1 alias');
  const token = address('token');
  const transfer = word('Transfer(address,address,uint256)');
  const pad = (a: string) => '0x' + a.slice(2).padStart(64, '0');
  return [
    [],
    [
      internal(1),
      {
        tx: {
          from: aliased,
          gas: '0x0',
          gasPrice: '0x0',
          hash: word('deposit'),
          input: '0x',
          nonce: '0x0',
          to: user,
          value: hex(5n * 10n ** 17n),
          type: '0x64',
          chainId: CHAIN_ID,
          v: '0x0',
          r: '0x0',
          s: '0x0',
          requestId: word('request 1'),
        },
        gasUsed: 0n,
        receipt: { gasUsedForL1: '0x0' },
      },
      {
        tx: {
          from: aliased,
          gas: hex(250_000),
          gasPrice: hex(BASE_FEE),
          maxFeePerGas: hex(BASE_FEE * 3n),
          hash: word('submit retryable'),
          input: '0xc9f95d32' + '00'.repeat(96),
          nonce: '0x0',
          to: ARB_RETRYABLE_TX,
          value: '0x0',
          type: '0x69',
          chainId: CHAIN_ID,
          v: '0x0',
          r: '0x0',
          s: '0x0',
          requestId: word('request 2'),
          refundTo: user,
          l1BaseFee: hex(30_000_000_000n),
          depositValue: hex(10n ** 16n),
          retryTo: token,
          retryValue: '0x0',
          retryData: '0xa9059cbb' + '00'.repeat(64),
          beneficiary: user,
          maxSubmissionFee: hex(1_000_000_000_000n),
        },
        gasUsed: 21_000n,
        receipt: { gasUsedForL1: '0x0' },
        logs: [
          { address: ARB_RETRYABLE_TX, topics: [word('TicketCreated(bytes32)'), word('submit retryable')], data: '0x' },
        ],
      },
      {
        tx: {
          from: aliased,
          gas: hex(200_000),
          gasPrice: hex(BASE_FEE),
          maxFeePerGas: hex(BASE_FEE * 3n),
          hash: word('retry'),
          input: '0xa9059cbb' + '00'.repeat(64),
          nonce: '0x0',
          to: token,
          value: '0x0',
          type: '0x68',
          chainId: CHAIN_ID,
          v: '0x0',
          r: '0x0',
          s: '0x0',
          ticketId: word('submit retryable'),
          refundTo: user,
          maxRefund: hex(10n ** 16n),
          submissionFeeRefund: hex(5_000_000_000n),
        },
        gasUsed: 51_234n,
        receipt: { gasUsedForL1: '0x0' },
        logs: [{ address: token, topics: [transfer, pad(aliased), pad(user)], data: pad('0x2a') }],
      },
      {
        tx: {
          from: user,
          gas: hex(80_000),
          gasPrice: hex(BASE_FEE),
          maxFeePerGas: hex(BASE_FEE * 2n),
          maxPriorityFeePerGas: '0x0',
          hash: word('eip-1559'),
          input: '0xa9059cbb' + '00'.repeat(64),
          nonce: '0x3',
          to: token,
          transactionIndex: undefined,
          value: '0x0',
          type: '0x2',
          accessList: [],
          chainId: CHAIN_ID,
          v: '0x1',
          r: hex(BigInt(word('r'))),
          s: hex(BigInt(word('s')) >> 4n),
          yParity: '0x1',
        },
        gasUsed: 60_000n,
        receipt: { gasUsedForL1: hex(1_234) },
        logs: [{ address: token, topics: [transfer, pad(user), pad(aliased)], data: pad('0x07') }],
      },
    ],
    [
      internal(2),
      {
        tx: {
          from: aliased,
          gas: hex(100_000),
          gasPrice: hex(BASE_FEE),
          maxFeePerGas: hex(BASE_FEE * 2n),
          hash: word('unsigned'),
          input: '0x',
          nonce: '0x7',
          to: user,
          value: hex(1_000),
          type: '0x65',
          chainId: CHAIN_ID,
          v: '0x0',
          r: '0x0',
          s: '0x0',
        },
        gasUsed: 21_000n,
        receipt: { gasUsedForL1: '0x0' },
      },
      {
        tx: {
          from: aliased,
          gas: hex(100_000),
          gasPrice: hex(BASE_FEE),
          maxFeePerGas: hex(BASE_FEE * 2n),
          hash: word('contract'),
          input: '0x01',
          nonce: '0x0',
          to: token,
          value: '0x0',
          type: '0x66',
          chainId: CHAIN_ID,
          v: '0x0',
          r: '0x0',
          s: '0x0',
          requestId: word('request 3'),
        },
        gasUsed: 30_000n,
        status: '0x0',
        receipt: { gasUsedForL1: '0x0' },
      },
      {
        tx: {
          from: user,
          gas: hex(600_000),
          gasPrice: hex(BASE_FEE),
          hash: word('legacy'),
          input: '0x60806040',
          nonce: '0x1',
          to: null,
          value: '0x0',
          type: '0x78',
          chainId: CHAIN_ID,
          v: hex(NITRO_CHAIN_ID * 2 + 35),
          r: hex(BigInt(word('legacy r'))),
          s: hex(BigInt(word('legacy s')) >> 4n),
          effectiveGasPrice: hex(BASE_FEE),
          l1BlockNumber: hex(15_000_000),
        },
        gasUsed: 120_000n,
        receipt: { gasUsedForL1: hex(77), contractAddress: address('created') },
      },
      {
        tx: {
          from: user,
          gas: hex(50_000),
          gasPrice: hex(BASE_FEE),
          hash: word('unknown'),
          input: '0xdeadbeef',
          nonce: '0x4',
          to: token,
          value: '0x1',
          type: '0x99',
          chainId: CHAIN_ID,
          futureField: { nested: [1, 'two', null, true] },
          v: '0x0',
          r: '0x0',
          s: '0x0',
          note: 'd\u00e9p\u00f4t \u2713',
        },
        gasUsed: 25_000n,
        receipt: { gasUsedForL1: '0x5', futureReceiptField: '0xabc' },
        logs: [{ address: user, topics: [], data: '0x' }],
      },
    ],
    [internal(3)],
  ];
}

/** The chain: block n at index n, each with its receipts. */
export function nitroChain(): FakeBlock[] {
  const out: FakeBlock[] = [];
  let parentHash = ZERO32;
  blockSpecs().forEach((specs, n) => {
    const hash = word(`block ${n}`);
    const number = hex(n);
    const timestamp = hex(1_700_000_000 + n);
    let cumulative = 0n;
    let logIndex = 0;
    const blockLogs: { address: Uint8Array; topics: Uint8Array[] }[] = [];
    const transactions: Obj[] = [];
    const receipts: Obj[] = [];
    specs.forEach((spec, i) => {
      const position = { blockHash: hash, blockNumber: number, blockTimestamp: timestamp, transactionIndex: hex(i) };
      const tx: Obj = {};
      for (const [k, v] of Object.entries({
        blockHash: hash,
        blockNumber: number,
        blockTimestamp: timestamp,
        ...spec.tx,
      }))
        if (v !== undefined) tx[k] = v;
      tx.transactionIndex = hex(i);
      transactions.push(tx);
      cumulative += spec.gasUsed;
      const logs = (spec.logs ?? []).map((l) => ({
        ...l,
        blockNumber: number,
        transactionHash: spec.tx.hash,
        transactionIndex: hex(i),
        blockHash: hash,
        blockTimestamp: timestamp,
        logIndex: hex(logIndex++),
        removed: false,
      }));
      const decoded = logs.map((l) => ({
        address: hexToBytes(l.address)!,
        topics: l.topics.map((t) => hexToBytes(t)!),
      }));
      blockLogs.push(...decoded);
      const receipt: Obj = {
        blockHash: hash,
        blockNumber: number,
        contractAddress: null,
        cumulativeGasUsed: hex(cumulative),
        effectiveGasPrice: spec.tx.gasPrice,
        from: spec.tx.from,
        gasUsed: hex(spec.gasUsed),
        l1BlockNumber: hex(19_000_000 + n),
        logs,
        logsBloom: bytesToHex(logsBloom(decoded)),
        status: spec.status ?? '0x1',
        to: spec.tx.to,
        transactionHash: spec.tx.hash,
        transactionIndex: position.transactionIndex,
        type: spec.tx.type,
        ...spec.receipt,
      };
      const sorted: Obj = {};
      for (const k of Object.keys(receipt).sort()) sorted[k] = receipt[k];
      receipts.push(sorted);
    });
    const block: Obj = {
      baseFeePerGas: hex(BASE_FEE),
      difficulty: '0x1',
      extraData: word(`send root ${n}`),
      gasLimit: '0x4000000000000',
      gasUsed: hex(cumulative),
      hash,
      l1BlockNumber: hex(19_000_000 + n),
      logsBloom: bytesToHex(logsBloom(blockLogs)),
      miner: SEQUENCER,
      mixHash: '0x' + (n * 3).toString(16).padStart(16, '0') + '0000000000f00000' + '00'.repeat(8) + '000000000000001f',
      nonce: hex(n).slice(2).padStart(16, '0').replace(/^/, '0x'),
      number,
      parentHash,
      receiptsRoot: word(`receipts ${n}`),
      sendCount: hex(n * 3),
      sendRoot: word(`send root ${n}`),
      sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
      size: hex(600 + 100 * specs.length),
      stateRoot: word(`state ${n}`),
      timestamp,
      totalDifficulty: hex(n + 1),
      transactions,
      transactionsRoot: word(`transactions ${n}`),
      uncles: [],
    };
    out.push({ block, receipts });
    parentHash = hash;
  });
  return out;
}
