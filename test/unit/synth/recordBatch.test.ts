/**
 * recordBatch: unlinked blocks packed in one buffer, unpacked and linked in order, are the records
 * of the linked blocks (parent hash and hash in the header record, the hash keccak256 of the
 * header RLP); a pending block links the same way; a damaged header RLP is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlockBundle } from '#src/chain/types.js';
import { encodeBlockRecords } from '#src/store/blockRecords.js';
import { decodeBundle, encodeBundle } from '#src/store/codec.js';
import {
  BlockBuilder,
  type GeneratorOptions,
  generateChain,
  generatePending,
  genesisParentHash,
} from '#src/synth/generator.js';
import { BlockPacker, linkPending, linkRecords, packPending, unpackBlocks } from '#src/synth/recordBatch.js';

const OPTS: GeneratorOptions = { blocks: 30, seed: 'batch', density: 0.05 };
const linked = [...generateChain(OPTS)];

/** The blocks packed by a BlockPacker, one at a time. */
function packed(blocks: readonly BlockBundle[]): Uint8Array {
  const packer = new BlockPacker(blocks.length, OPTS.density);
  for (const block of blocks) packer.add(block);
  return packer.finish();
}

function unlinked(from: number, to: number) {
  const builder = new BlockBuilder(OPTS);
  const planner = builder.planner();
  planner.skipTo(from);
  const out = [];
  while (planner.nextNumber <= to) out.push(builder.build(planner.next()));
  return { out, planner, builder };
}

test("packed, unpacked and linked in order: the linked blocks' records", () => {
  const { out } = unlinked(0, 29);
  const unpacked = unpackBlocks(packed(out));
  assert.equal(unpacked.length, 30);
  let parent = genesisParentHash(OPTS.seed);
  unpacked.forEach((block, i) => {
    parent = linkRecords(block, parent);
    assert.deepEqual(parent, linked[i]!.header.hash);
    assert.deepEqual(block.records, encodeBlockRecords(linked[i]!));
    assert.equal(block.logCount, linked[i]!.logs.length);
  });
});

test('a pending block links to its parent as generatePending builds it', () => {
  const { planner, builder } = unlinked(30, 29);
  const bytes = packPending(builder.build(planner.peek()));
  const bundle = linkPending(bytes, linked[29]!.header.hash);
  assert.deepEqual(bundle, encodeBundle(generatePending(OPTS, linked[29]!.header)));
  assert.equal(decodeBundle(bundle).header.number, 30);
});

test('a header RLP without the parent hash first is refused', () => {
  const [block] = unpackBlocks(packed(unlinked(5, 5).out));
  block!.headerRlp[3] = 0x80;
  assert.throws(() => linkRecords(block!, new Uint8Array(32)), /parent hash first/);
});
