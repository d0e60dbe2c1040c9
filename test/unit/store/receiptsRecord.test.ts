/**
 * The receipts record: any list of receipts (status or root, a created contract or not, blob gas or
 * not, gas and prices of any size, members kept as a node gave them or not) round-trips exactly; receipts that are
 * neither or both of status
 * and root, or half a blob receipt, are refused rather than stored ambiguously.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Receipt } from '#src/chain/types.js';
import { decodeReceipts, encodeReceipts } from '#src/store/receiptsRecord.js';

const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const amount = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

const receipt: fc.Arbitrary<Receipt> = fc
  .record({
    outcome: fc.oneof(fc.constantFrom(0 as const, 1 as const), bytes(32)),
    gasUsed: amount,
    effectiveGasPrice: amount,
    contractAddress: fc.option(bytes(20), { nil: null }),
    blob: fc.option(fc.tuple(amount, amount), { nil: undefined }),
    extra: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
  })
  .map(({ outcome, gasUsed, effectiveGasPrice, contractAddress, blob, extra }) => {
    const r: Receipt = { gasUsed, effectiveGasPrice, contractAddress };
    if (typeof outcome === 'number') r.status = outcome;
    else r.root = outcome;
    if (blob !== undefined) [r.blobGasUsed, r.blobGasPrice] = blob;
    if (extra !== undefined) r.extra = JSON.stringify(extra).slice(1, -1);
    return r;
  });

test('any receipts round-trip', () => {
  fc.assert(
    fc.property(fc.array(receipt, { maxLength: 40 }), (receipts) => {
      assert.deepEqual(decodeReceipts(encodeReceipts(receipts)), receipts);
    }),
    { numRuns: 500 },
  );
});

test('a receipt of a plain transfer takes a handful of bytes', () => {
  const record = encodeReceipts([
    { status: 1, gasUsed: 21000n, effectiveGasPrice: 12_000_000_000n, contractAddress: null },
  ]);
  assert.ok(record.length <= 12, `${record.length} bytes`);
});

test('ambiguous receipts are refused', () => {
  const base = { gasUsed: 1n, effectiveGasPrice: 1n, contractAddress: null };
  const bad: Receipt[] = [
    base,
    { ...base, status: 1, root: new Uint8Array(32) },
    { ...base, status: 1, blobGasUsed: 1n },
  ];
  for (const r of bad) assert.throws(() => encodeReceipts([r]), RangeError);
});
