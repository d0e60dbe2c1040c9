import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { bytesToHex } from '#src/chain/hex.js';
import { mappingSlot } from '#src/chain/storageSlot.js';
import type { BlockBundle } from '#src/chain/types.js';
import { blockRecordsBytes, encodeBlockRecords } from '#src/store/blockRecords.js';
import { FREEZE_BLOCKS, freezesWholeUnits } from '#src/store/freezer.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { StoreWriter } from '#src/store/writer.js';
import { TRANSFER_TOPIC } from '#src/synth/events.js';
import { freezeAlignedLength, generateStore, generateWriteMap } from '#src/synth/generateStore.js';
import { CHAIN_VERSION, generateChain, generatePending, markers } from '#src/synth/generator.js';
import { GenerateRefusedError, storedProvenance } from '#src/synth/provenance.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-generate-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const OPTS = { blocks: 150, seed: 'store', density: 0.05 };
const chain: BlockBundle[] = [...generateChain(OPTS)];
const hex = bytesToHex;

test('generateStore writes the chain, markers and pending block, read back through StoreReader', async () => {
  const dir = tempDir();
  const result = await generateStore(dir, { ...OPTS, batchBlocks: 16, progress: false });
  assert.equal(result.blocks, 150);
  assert.equal(
    result.txs,
    chain.reduce((n, b) => n + b.transactions.length, 0),
  );
  assert.equal(
    result.logs,
    chain.reduce((n, b) => n + b.logs.length, 0),
  );
  assert.ok(result.seconds >= 0);

  const store = openStore(dir, { readOnly: true });
  try {
    const reader = new StoreReader(store);
    assert.deepEqual(reader.meta(), { chainId: 1n, earliest: 0, head: 149, ...markers(149, 0) });
    const block = chain[77]!;
    const header = reader.header(77)!;
    assert.equal(hex(header.hash), hex(block.header.hash));
    assert.deepEqual(header.logsBloom, block.header.logsBloom);
    assert.equal(reader.numberByHash(block.header.hash), 77);

    const tx = block.transactions[3]!;
    assert.deepEqual(reader.txLocation(tx.hash), { number: 77, index: 3 });
    assert.equal(hex(reader.transaction(77, 3)!.hash), hex(tx.hash));
    assert.equal(reader.transaction(77, 3)!.nonce, tx.nonce);

    const logs = reader.logs(77);
    assert.equal(logs.length, block.logs.length);
    logs.forEach((log, i) => {
      assert.equal(hex(log.address), hex(block.logs[i]!.address));
      assert.deepEqual(log.topics.map(hex), block.logs[i]!.topics.map(hex));
      assert.equal(log.txIndex, block.logs[i]!.txIndex);
    });

    let checked = 0;
    for (const b of chain.slice(100)) {
      for (const log of b.logs) {
        if (log.topics.length !== 3 || hex(log.topics[0]!) !== hex(TRANSFER_TOPIC)) continue;
        const slot = mappingSlot(log.topics[2]!, 0n);
        const write = [...b.storage]
          .reverse()
          .find((w) => hex(w.address) === hex(log.address) && hex(w.slot) === hex(slot));
        if (!write) continue;
        assert.equal(hex(reader.storageAt(log.address, slot, b.header.number)), hex(write.value));
        checked++;
      }
    }
    assert.ok(checked > 0, 'a balance slot written by a Transfer reads back');

    const pending = reader.pending()!;
    assert.equal(pending.header.number, 150);
    assert.equal(hex(pending.header.hash), hex(generatePending(OPTS, chain[149]!.header).header.hash));
  } finally {
    await closeStore(store);
  }
});

test(
  'generateStore extends a store it made with the same options to ' +
    'a longer chain, with the pending block of the new head',
  async () => {
    const dir = tempDir();
    const first = await generateStore(dir, { ...OPTS, blocks: 40, progress: false });
    assert.deepEqual([first.blocks, first.earliest, first.head], [40, 0, 39]);
    const result = await generateStore(dir, { ...OPTS, progress: false });
    assert.deepEqual([result.blocks, result.earliest, result.head], [110, 0, 149]);
    assert.equal(
      result.logs,
      chain.slice(40).reduce((n, b) => n + b.logs.length, 0),
    );
    const again = await generateStore(dir, { ...OPTS, progress: false });
    assert.deepEqual([again.blocks, again.head, again.busiest], [0, 149, []]);

    const check = openStore(dir, { readOnly: true });
    try {
      const reader = new StoreReader(check);
      assert.equal(reader.meta()!.head, 149);
      for (const n of [39, 40, 41, 149]) assert.equal(hex(reader.header(n)!.hash), hex(chain[n]!.header.hash));
      assert.equal(hex(reader.pending()!.header.hash), hex(generatePending(OPTS, chain[149]!.header).header.hash));
      assert.deepEqual(storedProvenance(check), {
        chainVersion: CHAIN_VERSION,
        seed: OPTS.seed,
        density: OPTS.density,
      });
    } finally {
      await closeStore(check);
    }
  },
);

test(
  'generateStore refuses another seed or density, ' +
    'fewer blocks than stored, and a store it has no record of making',
  async () => {
    const dir = tempDir();
    await generateStore(dir, { ...OPTS, blocks: 40, progress: false });
    const refused = (pattern: RegExp) => (error: unknown) =>
      error instanceof GenerateRefusedError && pattern.test(error.message);
    await assert.rejects(
      generateStore(dir, { ...OPTS, seed: 'another', progress: false }),
      refused(
        /holds blocks 0–39 of another chain \(--seed "store" --density 0\.05, not --seed "another" --density 0\.05\)/,
      ),
    );
    await assert.rejects(
      generateStore(dir, { ...OPTS, density: 0.5, progress: false }),
      refused(/run generate with --seed "store" --density 0\.05/),
    );
    await assert.rejects(
      generateStore(dir, { ...OPTS, blocks: 39, progress: false }),
      refused(/already holds blocks 0–39 of this chain, more than the 39 asked for/),
    );

    const unrecorded = tempDir();
    const store = openStore(unrecorded);
    new StoreWriter(store).append({ blocks: chain.slice(0, 40), chainId: 1n });
    await closeStore(store);
    await assert.rejects(
      generateStore(unrecorded, { ...OPTS, progress: false }),
      refused(/holds blocks 0–39 with no record of generating them/),
    );

    const check = openStore(dir, { readOnly: true });
    try {
      assert.equal(new StoreReader(check).meta()!.head, 39, 'nothing was added');
    } finally {
      await closeStore(check);
    }
  },
);

test(
  'generateStore counts the busiest contracts of the ' + 'blocks it generated, with their commonest topic0s',
  async () => {
    const result = await generateStore(tempDir(), { ...OPTS, blocks: 60, progress: false });
    const counts = new Map<string, number>();
    const topics = new Map<string, number>();
    for (const b of chain.slice(0, 60))
      for (const log of b.logs) counts.set(hex(log.address), (counts.get(hex(log.address)) ?? 0) + 1);
    const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
    assert.deepEqual(
      result.busiest.map((c) => [hex(c.address), c.logs]),
      ranked,
    );
    for (const b of chain.slice(0, 60)) {
      for (const log of b.logs)
        if (hex(log.address) === ranked[0]![0] && log.topics[0])
          topics.set(hex(log.topics[0]), (topics.get(hex(log.topics[0])) ?? 0) + 1);
    }
    const rankedTopics = [...topics.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 2);
    assert.deepEqual(
      result.busiest[0]!.topics.map((t) => [hex(t.topic0), t.logs]),
      rankedTopics,
    );
  },
);

test('without a pending block the stored one is cleared, also when extending a store that had one', async () => {
  const dir = tempDir();
  const opts = { blocks: 10, seed: 'nopending', density: 0.05 };
  await generateStore(dir, { ...opts, pending: true });
  await generateStore(dir, { ...opts, blocks: 12, pending: false });
  const fresh = tempDir();
  await generateStore(fresh, { ...opts, pending: false });
  for (const d of [dir, fresh]) {
    const store = openStore(d, { readOnly: true });
    try {
      assert.equal(new StoreReader(store).pending(), undefined);
    } finally {
      await closeStore(store);
    }
  }
});

test(
  'a write transaction holds batchBlocks blocks (fewer when their records reach batchBytes), ' +
    'gathered from the smaller batches a source hands over; the store is the same whatever the size',
  async () => {
    const appendRecords = StoreWriter.prototype.appendRecords;
    const sizes: number[] = [];
    StoreWriter.prototype.appendRecords = function (this: StoreWriter, batch) {
      sizes.push(batch.blocks.length);
      return appendRecords.call(this, batch);
    };
    const hashes = async (batchBlocks: number | undefined, threads: number, batchBytes?: number) => {
      sizes.length = 0;
      const dir = tempDir();
      await generateStore(dir, { ...OPTS, batchBlocks, batchBytes, threads, progress: false });
      const store = openStore(dir, { readOnly: true });
      try {
        const reader = new StoreReader(store);
        return { sizes: [...sizes], hashes: chain.map((_, n) => hex(reader.header(n)!.hash)) };
      } finally {
        await closeStore(store);
      }
    };
    try {
      const want = chain.map((b) => hex(b.header.hash));
      for (const [batchBlocks, threads, expected] of [
        [100, 0, [100, 50]],
        [undefined, 0, [150]],
        [16, 0, [16, 16, 16, 16, 16, 16, 16, 16, 16, 6]],
        [100, 2, [100, 50]],
      ] as const) {
        const got = await hashes(batchBlocks, threads);
        assert.deepEqual(got.sizes, expected, `batchBlocks ${batchBlocks}, threads ${threads}`);
        assert.deepEqual(got.hashes, want, `batchBlocks ${batchBlocks}, threads ${threads}`);
      }
      // A byte budget cuts a transaction at the first block whose records reach it.
      const bytes = chain.map((b) => blockRecordsBytes(encodeBlockRecords(b)));
      const forty = bytes.slice(0, 40).reduce((a, b) => a + b, 0);
      for (const threads of [0, 2]) {
        const one = await hashes(100, threads, 1);
        assert.deepEqual(one.sizes, Array(150).fill(1), `batchBytes 1, threads ${threads}`);
        const got = await hashes(100, threads, forty);
        assert.equal(got.sizes[0], 40, `threads ${threads}`);
        let at = 0;
        for (const [i, size] of got.sizes.entries()) {
          const chunk = bytes.slice(at, at + size);
          const total = chunk.reduce((a, b) => a + b, 0);
          if (i < got.sizes.length - 1)
            assert.ok(
              size === 100 || (total >= forty && total - chunk.at(-1)! < forty),
              `transaction ${i}: ${size} blocks, ${total} bytes`,
            );
          at += size;
        }
        assert.equal(at, 150);
        assert.deepEqual(got.hashes, want);
      }
    } finally {
      StoreWriter.prototype.appendRecords = appendRecords;
    }
  },
);

test('generateWriteMap: the write map when a transaction is expected to hold 32 MiB of records or more', () => {
  const MIB = 1024 * 1024;
  const cases: [number, number, number, boolean][] = [
    [1, 1024, 256 * MIB, true],
    [1, 256, 256 * MIB, true],
    [0.2, 1024, 256 * MIB, true],
    [0.1, 1024, 256 * MIB, false],
    [0.02, 1024, 256 * MIB, false],
    [0.05, 16, 256 * MIB, false],
    [0, 1024, 256 * MIB, false],
    [1, 1024, 16 * MIB, false],
    [2, 1024, 32 * MIB, true],
  ];
  for (const [density, blocks, bytes, expected] of cases)
    assert.equal(
      generateWriteMap(density, blocks, bytes),
      expected,
      `density ${density}, ${blocks} blocks, ${bytes / MIB} MiB`,
    );
});

test('a write transaction ends where its finalized blocks fill whole frozen units, when such an end is near', () => {
  const U = FREEZE_BLOCKS;
  // generate finalizes 64 blocks behind the head: a transaction ending at block k·U + 63 freezes all it may.
  assert.equal(freezeAlignedLength(0, 1024, 0), 3 * U + 64);
  assert.equal(freezeAlignedLength(3 * U + 64, 1024, 0), 1024);
  assert.equal(freezeAlignedLength(3 * U + 64, 1000, 0), 3 * U);
  // No such end within the transaction: it keeps its length.
  assert.equal(freezeAlignedLength(0, 100, 0), 100);
  assert.equal(freezeAlignedLength(U, 20, 0), 20);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 1, max: 3000 }),
      fc.integer({ min: 0, max: 2000 }),
      (from, length, back) => {
        const earliest = Math.max(0, from - back);
        const aligned = (n: number) => freezesWholeUnits(from + n - 1, markers(from + n - 1, earliest).finalized);
        const got = freezeAlignedLength(from, length, earliest);
        const candidates = Array.from({ length: Math.min(length, U) }, (_, i) => length - i).filter(aligned);
        assert.equal(got, candidates[0] ?? length);
      },
    ),
  );
});
