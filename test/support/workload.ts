/**
 * A realistic chain on anvil for the ingest tests: the fixture contracts deployed (creation
 * transactions, and children created from a transaction by the Factory), then blocks of mixed
 * transactions — types 0, 1 and 2 from the dev accounts, a blob (type 3) and a set-code (type 4)
 * transaction signed here every few blocks — calling functions that emit events with 0 to 4
 * topics, anonymous events and large data, write mappings and plain slots, clear them, and revert.
 * Deterministic for a seed (apart from anvil's timestamps).
 */
import { type Abi, encodeFunctionData, keccak256, sha256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, hexToBytes } from '#src/chain/hex.js';
import { mappingSlot, mappingSlotAt, slotWord } from '#src/chain/storageSlot.js';
import { type Anvil, RAW_SIGNER_KEY } from './anvil.js';
import { contracts } from './contracts.js';

type Hex = `0x${string}`;

/** A seeded PRNG (mulberry32). */
class Rng {
  constructor(private state: number) {}

  int(n: number): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const GWEI = 1_000_000_000n;
const hex = (n: number | bigint): Hex => `0x${n.toString(16)}`;
const ZERO_BLOB = ('0x' + '00'.repeat(131072)) as Hex;
/**
 * The KZG commitment (and proof) of the all-zero blob: the compressed point at infinity, so no trusted setup is needed.
 */
const INFINITY = ('0xc0' + '00'.repeat(47)) as Hex;

/** The deployed contracts and the transaction mix over them. */
export class Workload {
  /**
   * Contracts that emit and write storage: Emitters (created by transactions and by the Factory) and the set-code
   * account.
   */
  readonly emitters: Hex[] = [];
  /** Addresses passed as `to` (balance keys). */
  readonly recipients: Hex[];
  private readonly rng: Rng;
  private readonly nonces = new Map<string, number>();
  private readonly raw = privateKeyToAccount(RAW_SIGNER_KEY);
  private readonly emitterAbi: Abi;
  private readonly chainId: number;
  private factory: Hex = '0x';
  private blockCount = 0;

  private constructor(
    readonly anvil: Anvil,
    seed: number,
    chainId: number,
  ) {
    this.rng = new Rng(seed);
    this.emitterAbi = contracts().Emitter!.abi;
    this.recipients = anvil.accounts.slice(0, 5);
    this.chainId = chainId;
  }

  /** The senders eth_sendTransaction signs for (the raw signer is kept apart). */
  private get senders(): Hex[] {
    return this.anvil.accounts.slice(0, 8);
  }

  /** Deploys the contracts on `anvil` (mining the blocks) and returns the workload over them. */
  static async deploy(anvil: Anvil, seed = 1): Promise<Workload> {
    const w = new Workload(anvil, seed, Number(await anvil.rpc<string>('eth_chainId', [])));
    await w.syncNonces();
    const { Emitter, Factory } = contracts();
    const deployer = anvil.accounts[0]!;
    const txs = [Emitter, Emitter, Emitter, Factory].map((c) =>
      w.request(deployer, { data: c!.bytecode, gas: hex(3_000_000) }),
    );
    const hashes = await anvil.sendAll(txs);
    await anvil.mine();
    const receipts = await anvil.rpcAll<{ contractAddress: Hex }>(
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
    );
    receipts.slice(0, 3).forEach((r) => w.emitters.push(r.contractAddress));
    w.factory = receipts[3]!.contractAddress;
    return w;
  }

  /** Reads every sender's next nonce from the chain (after a reorganisation dropped transactions). */
  async syncNonces(): Promise<void> {
    const who = [...this.senders, this.raw.address.toLowerCase() as Hex];
    const counts = await this.anvil.rpcAll<string>(
      who.map((a) => ({ method: 'eth_getTransactionCount', params: [a, 'latest'] })),
    );
    who.forEach((a, i) => this.nonces.set(a, Number(counts[i])));
  }

  private nextNonce(from: string): number {
    const n = this.nonces.get(from.toLowerCase())!;
    this.nonces.set(from.toLowerCase(), n + 1);
    return n;
  }

  /** A transaction request of a random type (0, 1 or 2) from `from` with an explicit nonce. */
  private request(from: Hex, fields: Record<string, unknown>): Record<string, unknown> {
    const tx: Record<string, unknown> = { from, nonce: hex(this.nextNonce(from)), ...fields };
    const type = this.rng.int(3);
    if (type === 0) Object.assign(tx, { type: '0x0', gasPrice: hex(3n * GWEI) });
    else if (type === 1) {
      const slot = bytesToHex(slotWord(1n));
      Object.assign(tx, {
        type: '0x1',
        gasPrice: hex(3n * GWEI),
        accessList: [{ address: this.rng.pick(this.emitters.length ? this.emitters : [from]), storageKeys: [slot] }],
      });
    } else
      Object.assign(tx, {
        type: '0x2',
        maxFeePerGas: hex(10n * GWEI),
        maxPriorityFeePerGas: hex(GWEI + BigInt(this.rng.int(1000))),
      });
    return tx;
  }

  private call(functionName: string, args: unknown[]): Hex {
    return encodeFunctionData({ abi: this.emitterAbi, functionName, args });
  }

  /**
   * One random action as a transaction request (without a nonce when `forReorg`: anvil assigns it on the new branch).
   */
  action(forReorg = false): Record<string, unknown> {
    const from = this.rng.pick(this.senders);
    const emitter = this.rng.pick(this.emitters);
    const to = this.rng.pick(this.recipients);
    const k = this.rng.int(100);
    const gas = hex(2_000_000);
    let fields: Record<string, unknown>;
    if (k < 55)
      fields = {
        to: emitter,
        gas,
        data: this.call('act', [to, BigInt(this.rng.int(1_000_000)), BigInt(1 + this.rng.int(6))]),
      };
    else if (k < 63) fields = { to: emitter, gas: hex(300_000), data: this.call('fail', [BigInt(this.rng.int(1000))]) };
    else if (k < 67) fields = { to: emitter, gas, data: this.call('clear', [to]) };
    else if (k < 77)
      fields = {
        to: emitter,
        gas,
        data: this.call('raw', [bytesToHex(new Uint8Array(this.rng.int(3000)).fill(0xab))]),
      };
    else if (k < 82)
      fields = {
        to: this.factory,
        gas: hex(3_000_000),
        data: encodeFunctionData({ abi: contracts().Factory!.abi, functionName: 'make', args: [] }),
      };
    else if (k < 92) fields = { to, gas: hex(50_000), value: hex(BigInt(1 + this.rng.int(1_000_000))) };
    else fields = { gas: hex(3_000_000), data: contracts().Emitter!.bytecode };
    const tx = this.request(from, fields);
    if (forReorg) delete tx.nonce;
    return tx;
  }

  /**
   * A blob transaction (type 3, one all-zero blob) and a set-code transaction (type 4) delegating the raw signer to an
   * Emitter and calling act on itself.
   */
  private async specialTransactions(): Promise<Hex[]> {
    const account = this.raw;
    const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const versionedHash = ('0x01' + sha256(INFINITY).slice(4)) as Hex;
    const blob = await account.signTransaction({
      type: 'eip4844',
      chainId: this.chainId,
      nonce: this.nextNonce(account.address),
      to: this.rng.pick(this.recipients),
      gas: 50_000n,
      ...fees,
      maxFeePerBlobGas: 10n * GWEI,
      blobVersionedHashes: [versionedHash],
      sidecars: [{ blob: ZERO_BLOB, commitment: INFINITY, proof: INFINITY }],
    });
    const nonce = this.nextNonce(account.address);
    const authorization = await account.signAuthorization({
      chainId: this.chainId,
      address: this.emitters[0]!,
      nonce: nonce + 1,
    });
    const setCode = await account.signTransaction({
      type: 'eip7702',
      chainId: this.chainId,
      nonce,
      to: account.address,
      gas: 1_000_000n,
      ...fees,
      authorizationList: [authorization],
      data: this.call('act', [this.rng.pick(this.recipients), BigInt(this.rng.int(1000)), 3n]),
    });
    this.nextNonce(account.address);
    return this.anvil.rpcAll<Hex>([blob, setCode].map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })));
  }

  /**
   * Mines `blocks` blocks of `min`..`max` random transactions; every 10th block also carries a blob and a set-code
   * transaction, every 13th is empty.
   */
  async mine(blocks: number, { min = 2, max = 6, special = true } = {}): Promise<void> {
    for (let b = 0; b < blocks; b++) {
      const n = this.blockCount++;
      if (n % 13 !== 12) {
        const txs = Array.from({ length: min + this.rng.int(max - min + 1) }, () => this.action());
        await this.anvil.sendAll(txs);
        if (special && n % 10 === 5) await this.specialTransactions();
      }
      await this.anvil.mine();
      const pool = await this.anvil.rpc<{ pending: string; queued: string }>('txpool_status', []);
      if (Number(pool.pending) + Number(pool.queued) > 0)
        throw new Error(`anvil left transactions unmined: ${JSON.stringify(pool)}`);
    }
  }

  /** Adds the Factory's children (from its Created logs) to the emitters, and the set-code account once it has code. */
  async discover(): Promise<void> {
    const logs = await this.anvil.rpc<{ topics: Hex[] }[]>('eth_getLogs', [
      { fromBlock: '0x0', toBlock: 'latest', address: this.factory },
    ]);
    for (const log of logs) {
      const child = ('0x' + log.topics[1]!.slice(26)) as Hex;
      if (!this.emitters.includes(child)) this.emitters.push(child);
    }
    const self = this.raw.address.toLowerCase() as Hex;
    if (!this.emitters.includes(self) && (await this.anvil.rpc<string>('eth_getCode', [self, 'latest'])) !== '0x')
      this.emitters.push(self);
  }

  /** The Factory's address. */
  get factoryAddress(): Hex {
    return this.factory;
  }

  /** Every storage position the contracts write: counter, last, each recipient's balance and nested entries. */
  slots(): { address: Hex; slot: Hex }[] {
    const out: { address: Hex; slot: Hex }[] = [];
    for (const address of this.emitters) {
      out.push({ address, slot: bytesToHex(slotWord(1n)) as Hex }, { address, slot: bytesToHex(slotWord(2n)) as Hex });
      for (const r of [...this.recipients, ...this.senders]) {
        const key = hexToBytes(r)!;
        out.push({ address, slot: bytesToHex(mappingSlot(key, 0n)) as Hex });
        for (let k = 0n; k < 4n; k++)
          out.push({ address, slot: bytesToHex(mappingSlotAt(key, mappingSlot(slotWord(k), 3n))) as Hex });
      }
    }
    return out;
  }

  /** Topic values the contracts emit: event signatures and indexed values (for eth_getLogs filters). */
  topics(): Hex[] {
    const signatures = [
      'One(uint256)',
      'Two(address,uint256)',
      'Three(address,address,uint256)',
      'Four(address,uint256,bytes32,bytes)',
      'Large(bytes)',
      'Created(address)',
    ];
    const padded = [...this.recipients, ...this.senders].map((a) => ('0x' + a.slice(2).padStart(64, '0')) as Hex);
    const small = [0n, 1n, 2n, 3n, 4n].map((n) => bytesToHex(slotWord(n)) as Hex);
    return [...signatures.map((s) => keccak256(new TextEncoder().encode(s))), ...padded, ...small];
  }
}
