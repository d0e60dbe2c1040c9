/**
 * A real client library, unchanged, against the real server: viem's public client, with and
 * without its JSON-RPC batching; and how viem and ethers report a refused API key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { JsonRpcProvider } from 'ethers';
import { BaseError, createPublicClient, http, type PublicClient, UnauthorizedProviderError } from 'viem';
import { bytesToHex } from '#src/chain/hex.js';
import type { BlockBundle } from '#src/chain/types.js';
import { generateChain } from '#src/synth/generator.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';

const BLOCKS = 60;
const DENSITY = 0.05;
const SEED = 'viem';

let dataset: TestDataset;
let svc: TestService;
let chain: BlockBundle[];

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, SEED);
  svc = await startTestService(dataset);
  chain = [...generateChain({ blocks: BLOCKS, seed: SEED, density: DENSITY, pending: true })];
});

after(async () => {
  await svc.close();
  dataset.remove();
});

for (const batch of [false, true]) {
  describe(`viem public client, batch ${batch ? 'on' : 'off'}`, () => {
    let client: PublicClient;
    before(() => {
      client = createPublicClient({
        transport: http(svc.endpoint, { batch: batch ? { batchSize: 50, wait: 0 } : false }),
      });
    });

    test('getChainId and getBlockNumber', async () => {
      const [chainId, head] = await Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })]);
      assert.equal(chainId, 1);
      assert.equal(head, BigInt(BLOCKS - 1));
    });

    test('getBlock by number, tag and hash', async () => {
      const b = chain[17]!;
      const [byNumber, byHash, latest, finalized, withTxs] = await Promise.all([
        client.getBlock({ blockNumber: 17n }),
        client.getBlock({ blockHash: bytesToHex(b.header.hash) as `0x${string}` }),
        client.getBlock({ blockTag: 'latest' }),
        client.getBlock({ blockTag: 'finalized' }),
        client.getBlock({ blockNumber: 17n, includeTransactions: true }),
      ]);
      assert.equal(byNumber.hash, bytesToHex(b.header.hash));
      assert.deepEqual(byHash, byNumber);
      assert.equal(latest.number, BigInt(BLOCKS - 1));
      assert.ok(finalized.number !== null && finalized.number <= latest.number!);
      assert.equal(withTxs.transactions.length, b.transactions.length);
      assert.equal(withTxs.transactions[0]!.hash, bytesToHex(b.transactions[0]!.hash));
      const pending = await client.getBlock({ blockTag: 'pending' });
      assert.equal(pending.hash, null);
      assert.equal(pending.number, null);
    });

    test('getTransaction every way', async () => {
      const b = chain[23]!;
      const t = b.transactions[b.transactions.length - 1]!;
      const hash = bytesToHex(t.hash) as `0x${string}`;
      const index = b.transactions.length - 1;
      const [byHash, byNumber, byBlockHash, byTag] = await Promise.all([
        client.getTransaction({ hash }),
        client.getTransaction({ blockNumber: 23n, index }),
        client.getTransaction({ blockHash: bytesToHex(b.header.hash) as `0x${string}`, index }),
        client.getTransaction({ blockTag: 'earliest', index: 0 }),
      ]);
      assert.equal(byHash.hash, hash);
      assert.deepEqual(byNumber, byHash);
      assert.deepEqual(byBlockHash, byHash);
      assert.equal(byHash.blockNumber, 23n);
      assert.equal(byHash.transactionIndex, index);
      assert.equal(byTag.hash, bytesToHex(chain[0]!.transactions[0]!.hash));
      const types = new Set<string>();
      for (const n of [0, 20, 40, BLOCKS - 1]) {
        for (const tx of (await client.getBlock({ blockNumber: BigInt(n), includeTransactions: true })).transactions)
          types.add(tx.type);
      }
      assert.ok(types.size >= 3, `several transaction types parse: ${[...types].join(', ')}`);
    });

    test('getLogs and getStorageAt', async () => {
      const log = chain[30]!.logs[0]!;
      const address = bytesToHex(log.address) as `0x${string}`;
      const logs = await client.getLogs({ address, fromBlock: 0n, toBlock: BigInt(BLOCKS - 1) });
      const expected = chain.flatMap((b) =>
        b.logs.filter((l) => bytesToHex(l.address) === address).map(() => b.header.number),
      );
      assert.deepEqual(
        logs.map((l) => Number(l.blockNumber)),
        expected,
      );
      const write = chain.flatMap((b) => b.storage.map((w) => ({ w, n: b.header.number })))[0]!;
      const value = await client.getStorageAt({
        address: bytesToHex(write.w.address) as `0x${string}`,
        slot: bytesToHex(write.w.slot) as `0x${string}`,
        blockNumber: BigInt(write.n),
      });
      const sameSlot = chain[write.n]!.storage.filter(
        (w) => bytesToHex(w.address) === bytesToHex(write.w.address) && bytesToHex(w.slot) === bytesToHex(write.w.slot),
      );
      assert.equal(value, bytesToHex(sameSlot[sameSlot.length - 1]!.value), 'the last write of the slot in that block');
      const latest = await client.getStorageAt({
        address: bytesToHex(write.w.address) as `0x${string}`,
        slot: bytesToHex(write.w.slot) as `0x${string}`,
      });
      assert.match(latest!, /^0x[0-9a-f]{64}$/);
    });
  });
}

test('a refused API key reads as an authorisation failure in viem and in ethers, with what to do', async () => {
  const wrong = `${svc.service.url}/v3/${'f'.repeat(64)}`;
  const client = createPublicClient({ transport: http(wrong, { retryCount: 0 }) });
  const error = await client.getBlockNumber({ cacheTime: 0 }).then(
    () => assert.fail('a wrong key was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BaseError);
  const unauthorized = error.walk((e) => e instanceof UnauthorizedProviderError);
  assert.ok(unauthorized instanceof UnauthorizedProviderError, `viem reports ${error.name}: ${error.shortMessage}`);
  assert.match(
    error.message,
    /invalid API key: this store has no such key \(create a key with `ethlogd keys create --data DIR`\)/,
  );
  const provider = new JsonRpcProvider(wrong, 1, { staticNetwork: true });
  try {
    const refused = await provider.getBlockNumber().then(
      () => assert.fail('a wrong key was accepted'),
      (e: unknown) => e as { code?: string; message: string },
    );
    assert.equal(refused.code, 'SERVER_ERROR');
    assert.match(refused.message, /401 Unauthorized/);
    assert.match(refused.message, /invalid API key/);
  } finally {
    provider.destroy();
  }
});
