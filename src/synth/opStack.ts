/**
 * What makes a generated block OP-stack-like (`generate --chain op`): deposits open it, the
 * L1-attributes deposit first (from the depositor account to the L1Block predeploy, as op-node
 * derives one per L2 block) and, in some blocks, a user deposit minting ETH; the other
 * transactions' receipts carry the L1 fee fields op-geth adds (Ecotone's: l1Fee, l1GasPrice,
 * l1GasUsed, l1BaseFeeScalar, l1BlobBaseFee, l1BlobBaseFeeScalar). Source hashes and L1 values are
 * deterministic pseudo-random words, as the state roots are.
 */
import { hexToBytes, quantityToHex } from '../chain/hex.js';
import { type Deposit, depositHash, depositMembers, encodeDeposit } from '../chain/opDeposit.js';
import { type Log, OP_DEPOSIT_TX_TYPE, type Receipt, type Transaction } from '../chain/types.js';
import type { Random } from './random.js';

/** The L1 attributes depositor account (op-node's L1InfoDepositerAddress). */
const DEPOSITOR = hexToBytes('0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001')!;
/** The L1Block predeploy the L1-attributes deposit calls. */
const L1_BLOCK = hexToBytes('0x4200000000000000000000000000000000000015')!;
/** setL1BlockValuesEcotone(): its selector, then 160 bytes of packed L1 values. */
const ECOTONE_SELECTOR = hexToBytes('0x440a5e20')!;
/** Gas limit and gas used of the L1-attributes deposit (op-node's RegolithSystemTxGas; its call uses about 45k). */
const L1_INFO_GAS = 1_000_000n;
const L1_INFO_GAS_USED = 45_000n;
/** Share of blocks with a user deposit (bridged ETH), its gas and the gas it uses. */
const USER_DEPOSIT_SHARE = 0.3;
const USER_DEPOSIT_GAS = 100_000n;
const USER_DEPOSIT_GAS_USED = 21_000n;
/** op-geth's deposit receipt version (Canyon on). */
const DEPOSIT_RECEIPT_VERSION = 1n;

/** A block's deposits, ready to open it: transactions, their encodings and receipts, and the gas they use. */
export interface BlockDeposits {
  transactions: Transaction[];
  encoded: Uint8Array[];
  receipts: Receipt[];
  gasUsed: bigint;
}

function deposited(
  d: Deposit,
  nonce: bigint,
  gasUsed: bigint,
): { tx: Transaction; encoded: Uint8Array; receipt: Receipt } {
  const encoded = encodeDeposit(d);
  const hash = depositHash(d);
  const tx: Transaction = {
    type: OP_DEPOSIT_TX_TYPE,
    hash,
    from: d.from,
    to: d.to,
    nonce,
    gas: d.gas,
    value: d.value,
    input: d.input,
    v: 0n,
    r: 0n,
    s: 0n,
    extra: depositMembers(d, hash, nonce, DEPOSIT_RECEIPT_VERSION),
  };
  const receipt: Receipt = {
    status: 1,
    gasUsed,
    effectiveGasPrice: 0n,
    contractAddress: null,
    extra:
      `"depositNonce":"${quantityToHex(nonce)}",` +
      `"depositReceiptVersion":"${quantityToHex(DEPOSIT_RECEIPT_VERSION)}"`,
  };
  return { tx, encoded, receipt };
}

/** The deposits opening block `number`; `recipient` is where a user deposit's ETH goes. */
export function blockDeposits(rng: Random, number: number, recipient: Uint8Array): BlockDeposits {
  const out: BlockDeposits = { transactions: [], encoded: [], receipts: [], gasUsed: 0n };
  const add = (d: Deposit, nonce: bigint, gasUsed: bigint) => {
    const built = deposited(d, nonce, gasUsed);
    out.transactions.push(built.tx);
    out.encoded.push(built.encoded);
    out.receipts.push(built.receipt);
    out.gasUsed += gasUsed;
  };
  const input = new Uint8Array(4 + 160);
  input.set(ECOTONE_SELECTOR);
  input.set(rng.bytes(160), 4);
  add(
    { sourceHash: rng.bytes(32), from: DEPOSITOR, to: L1_BLOCK, value: 0n, gas: L1_INFO_GAS, isSystemTx: false, input },
    BigInt(number),
    L1_INFO_GAS_USED,
  );
  if (rng.chance(USER_DEPOSIT_SHARE)) {
    const from = rng.bytes(20);
    const mint = rng.bigint(10n ** 15n, 10n ** 19n);
    add(
      {
        sourceHash: rng.bytes(32),
        from,
        to: recipient,
        mint,
        value: mint,
        gas: USER_DEPOSIT_GAS,
        isSystemTx: false,
        input: new Uint8Array(0),
      },
      0n,
      USER_DEPOSIT_GAS_USED,
    );
  }
  return out;
}

/** Opens a built block's lists with `deposits`: the other transactions' logs move down by as many indexes. */
export function openWithDeposits(
  deposits: BlockDeposits,
  transactions: Transaction[],
  encoded: Uint8Array[],
  receipts: Receipt[],
  logs: Log[],
): void {
  const n = deposits.transactions.length;
  transactions.unshift(...deposits.transactions);
  encoded.unshift(...deposits.encoded);
  receipts.unshift(...deposits.receipts);
  for (const log of logs) log.txIndex += n;
}

/** Adds op-geth's L1 fee fields (Ecotone) to the receipt of a transaction with `calldataBytes` bytes of encoding. */
export function addL1Fee(rng: Random, receipt: Receipt, calldataBytes: number): void {
  const l1GasPrice = rng.bigint(1_000_000_000n, 40_000_000_000n);
  const l1BlobBaseFee = rng.bigint(1n, 1_000_000n);
  const l1GasUsed = BigInt(calldataBytes * 16 + 1_600);
  const baseScalar = 1_368n;
  const blobScalar = 810_949n;
  const l1Fee = (l1GasUsed * (16n * baseScalar * l1GasPrice + blobScalar * l1BlobBaseFee)) / 16_000_000n;
  receipt.extra =
    `"l1BaseFeeScalar":"${quantityToHex(baseScalar)}","l1BlobBaseFee":"${quantityToHex(l1BlobBaseFee)}",` +
    `"l1BlobBaseFeeScalar":"${quantityToHex(blobScalar)}","l1Fee":"${quantityToHex(l1Fee)}",` +
    `"l1GasPrice":"${quantityToHex(l1GasPrice)}","l1GasUsed":"${quantityToHex(l1GasUsed)}"`;
}
