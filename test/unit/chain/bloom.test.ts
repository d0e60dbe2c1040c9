import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bloomMayContain, logsBloom } from '#src/chain/bloom.js';
import { BloomCache } from '#src/chain/bloomCache.js';
import { bytesToHex, hexToBytes } from '#src/chain/hex.js';

interface FixtureBlock {
  blockNumber: number;
  transactionHash: string;
  logs: { address: string; topics: string[] }[];
  logsBloom: string;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../../../test/fixtures/real-blooms.json', import.meta.url), 'utf8'),
) as {
  source: string;
  blocks: FixtureBlock[];
};

const logsOf = (b: FixtureBlock) =>
  b.logs.map((l) => ({ address: hexToBytes(l.address, 20)!, topics: l.topics.map((t) => hexToBytes(t, 32)!) }));

test('the fixture names its source and holds real blooms with logs', () => {
  assert.match(fixture.source, /mainnet/);
  assert.ok(fixture.blocks.length >= 3);
  for (const b of fixture.blocks) assert.ok(b.logs.length > 0);
});

test('logsBloom of real mainnet logs equals the bloom the node reported', () => {
  for (const b of fixture.blocks) assert.equal(bytesToHex(logsBloom(logsOf(b))), b.logsBloom, b.transactionHash);
});

test('the reported bloom may contain every address and topic of its logs', () => {
  for (const b of fixture.blocks) {
    const bloom = hexToBytes(b.logsBloom, 256)!;
    for (const log of logsOf(b)) {
      assert.ok(bloomMayContain(bloom, log.address));
      for (const t of log.topics) assert.ok(bloomMayContain(bloom, t));
    }
  }
});

test('the OR of the receipts blooms is the bloom of all their logs', () => {
  const or = new Uint8Array(256);
  for (const b of fixture.blocks) hexToBytes(b.logsBloom, 256)!.forEach((byte, i) => (or[i]! |= byte));
  assert.deepEqual(logsBloom(fixture.blocks.flatMap(logsOf)), or);
});

test('BloomCache builds the same blooms, from equal bytes in other arrays too', () => {
  const cache = new BloomCache(4);
  for (const b of fixture.blocks) {
    assert.equal(bytesToHex(cache.logsBloom(logsOf(b))), b.logsBloom);
    assert.equal(bytesToHex(cache.logsBloom(logsOf(b))), b.logsBloom, 'second pass, cached by bytes');
  }
  const logs = logsOf(fixture.blocks[0]!);
  assert.equal(bytesToHex(cache.logsBloom(logs)), bytesToHex(cache.logsBloom(logs)), 'cached by identity');
});

test('an empty log list has an all-zero bloom', () => {
  assert.deepEqual(logsBloom([]), new Uint8Array(256));
  assert.deepEqual(new BloomCache().logsBloom([]), new Uint8Array(256));
});
