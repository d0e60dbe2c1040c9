import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ByteReader, ByteWriter, wordsEnd, wordsShorter } from '#src/store/bytes.js';
import { Rng } from './fixtures.js';

const MAX_U256 = (1n << 256n) - 1n;

test('u8 round trip', () => {
  const w = new ByteWriter();
  for (let i = 0; i < 256; i++) w.u8(i);
  const bytes = w.finish();
  assert.equal(bytes.length, 256);
  const r = new ByteReader(bytes);
  for (let i = 0; i < 256; i++) assert.equal(r.u8(), i);
  assert.equal(r.done(), true);
});

test('varint round trip and LEB128 encoding', () => {
  const values = [
    0,
    1,
    127,
    128,
    255,
    300,
    16383,
    16384,
    2 ** 31,
    2 ** 32 - 1,
    2 ** 32,
    2 ** 32 + 1,
    2 ** 49,
    2 ** 53 - 1,
  ];
  const w = new ByteWriter();
  for (const v of values) w.varint(v);
  const r = new ByteReader(w.finish());
  for (const v of values) assert.equal(r.varint(), v);
  assert.equal(r.done(), true);

  const one = (v: number) => new ByteWriter().varint(v).finish().toString('hex');
  assert.equal(one(0), '00');
  assert.equal(one(127), '7f');
  assert.equal(one(128), '8001');
  assert.equal(one(300), 'ac02');
  assert.equal(one(2 ** 32), '8080808010');
  assert.equal(one(2 ** 53 - 1), 'ffffffffffffff0f');
});

test('bytes (length-prefixed) round trip', () => {
  const rng = new Rng(10);
  const items = [new Uint8Array(0), Uint8Array.of(0), rng.bytes(127), rng.bytes(128), rng.bytes(5000)];
  const w = new ByteWriter();
  for (const b of items) w.bytes(b);
  const out = w.finish();
  assert.equal(
    out.length,
    items.reduce((n, b) => n + b.length + (b.length < 128 ? 1 : 2), 0),
  );
  const r = new ByteReader(out);
  for (const b of items) assert.deepEqual(r.bytes(), b);
  assert.equal(r.done(), true);
});

test('fixed round trip (no prefix) and copies on read', () => {
  const rng = new Rng(11);
  const a = rng.bytes(20);
  const b = rng.bytes(32);
  const out = new ByteWriter().fixed(a).fixed(new Uint8Array(0)).fixed(b).finish();
  assert.equal(out.length, 52);
  const r = new ByteReader(out);
  const ra = r.fixed(20);
  assert.deepEqual(ra, a);
  assert.deepEqual(r.fixed(0), new Uint8Array(0));
  assert.deepEqual(r.fixed(32), b);
  assert.equal(r.done(), true);
  out[0] = out[0]! ^ 0xff;
  assert.deepEqual(ra, a, 'fixed() must return a copy, not a view of the source');
});

test('bigint round trip and minimal encoding', () => {
  const values = [0n, 1n, 127n, 128n, 255n, 256n, 65535n, 65536n, 1n << 64n, (1n << 255n) + 12345n, MAX_U256];
  const w = new ByteWriter();
  for (const v of values) w.bigint(v);
  const r = new ByteReader(w.finish());
  for (const v of values) assert.equal(r.bigint(), v);
  assert.equal(r.done(), true);

  const one = (v: bigint) => new ByteWriter().bigint(v).finish().toString('hex');
  assert.equal(one(0n), '00');
  assert.equal(one(1n), '0101');
  assert.equal(one(255n), '01ff');
  assert.equal(one(256n), '020100');
  assert.equal(one(MAX_U256), '20' + 'ff'.repeat(32));
});

test(
  'bigint writes the length-prefixed minimal big-endian bytes, ' +
    'on either side of 2^53 (numbers below it, hex text above)',
  () => {
    const reference = (v: bigint) => {
      if (v === 0n) return '00';
      const hex = v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0');
      return (hex.length / 2).toString(16).padStart(2, '0') + hex;
    };
    const one = (v: bigint) => new ByteWriter(0).bigint(v).finish().toString('hex');
    const edges = [
      1n,
      255n,
      256n,
      (1n << 48n) - 1n,
      1n << 48n,
      (1n << 53n) - 2n,
      (1n << 53n) - 1n,
      1n << 53n,
      (1n << 53n) + 1n,
      (1n << 64n) - 1n,
    ];
    for (const [v, hex] of edges.map((v) => [v, reference(v)] as const)) assert.equal(one(v), hex, `${v}`);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: MAX_U256 }), (v) => one(v) === reference(v)));
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 54n }),
        (v) => new ByteReader(new ByteWriter(1).bigint(v).finish()).bigint() === v,
      ),
    );
  },
);

test('range writes a slice as fixed writes its subarray', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(), fc.nat(), (bytes, a, b) => {
      const start = a % (bytes.length + 1);
      const end = start + (b % (bytes.length - start + 1));
      const viaRange = new ByteWriter(0).u8(7).range(bytes, start, end).u8(9).finish();
      const viaFixed = new ByteWriter(0).u8(7).fixed(bytes.subarray(start, end)).u8(9).finish();
      return viaRange.equals(viaFixed);
    }),
  );
});

test('bigint rejects negatives', () => {
  assert.throws(() => new ByteWriter().bigint(-1n), RangeError);
});

test('mixed primitives round trip', () => {
  const rng = new Rng(12);
  const w = new ByteWriter();
  const data = rng.bytes(77);
  w.u8(7)
    .varint(2 ** 40)
    .bytes(data)
    .bigint(MAX_U256)
    .fixed(Uint8Array.of(1, 2, 3))
    .varint(0)
    .bigint(0n)
    .u8(255);
  const r = new ByteReader(w.finish());
  assert.equal(r.u8(), 7);
  assert.equal(r.varint(), 2 ** 40);
  assert.deepEqual(r.bytes(), data);
  assert.equal(r.bigint(), MAX_U256);
  assert.deepEqual(r.fixed(3), Uint8Array.of(1, 2, 3));
  assert.equal(r.done(), false);
  assert.equal(r.varint(), 0);
  assert.equal(r.bigint(), 0n);
  assert.equal(r.u8(), 255);
  assert.equal(r.done(), true);
});

test('growth past the initial capacity keeps earlier bytes', () => {
  const rng = new Rng(13);
  for (const capacity of [0, 1, 2, 7, 16]) {
    const w = new ByteWriter(capacity);
    const chunks = Array.from({ length: 50 }, (_, i) => rng.bytes(i * 3));
    const ints = Array.from({ length: 50 }, () => rng.int(2 ** 31) * 1024);
    const bigs = Array.from({ length: 50 }, () => rng.bigint(32));
    for (let i = 0; i < 50; i++) w.u8(i).varint(ints[i]!).bytes(chunks[i]!).bigint(bigs[i]!);
    w.fixed(rng.bytes(10_000));
    const out = w.finish();
    const r = new ByteReader(out);
    for (let i = 0; i < 50; i++) {
      assert.equal(r.u8(), i);
      assert.equal(r.varint(), ints[i]);
      assert.deepEqual(r.bytes(), chunks[i]);
      assert.equal(r.bigint(), bigs[i]);
    }
    r.skip(10_000);
    assert.equal(r.done(), true);
  }
});

test('a writer created with capacity 0 grows (no endless doubling of 0)', () => {
  const w = new ByteWriter(0);
  w.u8(1)
    .varint(2 ** 53 - 1)
    .bigint(MAX_U256)
    .bytes(new Uint8Array(100));
  const r = new ByteReader(w.finish());
  assert.equal(r.u8(), 1);
  assert.equal(r.varint(), 2 ** 53 - 1);
  assert.equal(r.bigint(), MAX_U256);
  assert.deepEqual(r.bytes(), new Uint8Array(100));
  assert.equal(r.done(), true);
  assert.equal(new ByteWriter(0).finish().length, 0);
});

test('a bigint landing right at the capacity boundary grows correctly', () => {
  for (let pad = 0; pad < 40; pad++) {
    const w = new ByteWriter(32);
    for (let i = 0; i < pad; i++) w.u8(0xaa);
    w.bigint(MAX_U256).varint(2 ** 53 - 1);
    const r = new ByteReader(w.finish());
    r.skip(pad);
    assert.equal(r.bigint(), MAX_U256);
    assert.equal(r.varint(), 2 ** 53 - 1);
    assert.equal(r.done(), true);
  }
});

test('finish returns a buffer that owns its memory', () => {
  const w = new ByteWriter(8);
  w.u8(1).u8(2);
  const first = w.finish();
  w.u8(3);
  const second = w.finish();
  assert.deepEqual([...first], [1, 2]);
  assert.deepEqual([...second], [1, 2, 3]);
  first[0] = 9;
  assert.equal(w.finish()[0], 1);
});

test('done() tracks position; reader works on a view at an offset; skip advances', () => {
  assert.equal(new ByteReader(new Uint8Array(0)).done(), true);
  const inner = new ByteWriter().varint(300).bytes(Uint8Array.of(5, 6)).u8(9).finish();
  const outer = new Uint8Array(inner.length + 6);
  outer.fill(0xee);
  outer.set(inner, 3);
  const r = new ByteReader(outer.subarray(3, 3 + inner.length));
  assert.equal(r.done(), false);
  assert.equal(r.varint(), 300);
  assert.equal(r.pos, 2);
  r.skip(3);
  assert.equal(r.u8(), 9);
  assert.equal(r.done(), true);
});

/** Bytes shaped like ABI calldata: a head of 0-31 bytes, then words that are mostly zeros, some random. */
const abiLike = fc
  .tuple(
    fc.uint8Array({ maxLength: 31 }),
    fc.array(
      fc.oneof(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.integer({ min: 0, max: 32 }).map((n) => {
          const word = new Uint8Array(32);
          for (let i = 32 - n; i < 32; i++) word[i] = (i * 37 + n) % 256;
          return word;
        }),
      ),
      { maxLength: 12 },
    ),
  )
  .map(([head, words]) => Buffer.concat([head, ...words]));

test(
  'words round-trips any bytes in either form; wordsEnd finds the ' + 'end; wordsShorter says which form is shorter',
  () => {
    fc.assert(
      fc.property(fc.oneof(abiLike, fc.uint8Array({ maxLength: 300 })), fc.boolean(), (bytes, words) => {
        const w = new ByteWriter();
        w.u8(0xaa).words(bytes, words).u8(0xbb);
        const out = w.finish();
        const r = new ByteReader(out);
        assert.equal(r.u8(), 0xaa);
        assert.deepEqual(Buffer.from(r.words()), Buffer.from(bytes));
        assert.equal(r.u8(), 0xbb);
        assert.equal(r.done(), true);
        const start = 1 + (bytes.length * 2 + 1 < 128 ? 1 : 2);
        if (words) assert.equal(wordsEnd(out, start, bytes.length), out.length - 1);
        const size = (form: boolean) => new ByteWriter().words(bytes, form).finish().length;
        assert.equal(wordsShorter(bytes), size(true) < size(false), Buffer.from(bytes).toString('hex'));
      }),
    );
  },
);

test('words: a transfer call keeps its selector and strips each word', () => {
  const call = Buffer.from(`a9059cbb${'00'.repeat(12)}${'11'.repeat(20)}${'00'.repeat(31)}05`, 'hex');
  const out = new ByteWriter().words(call, true).finish();
  assert.equal(out.toString('hex'), `8901a9059cbb14${'11'.repeat(20)}0105`);
  assert.equal(wordsShorter(call), true);
  assert.equal(wordsShorter(Buffer.alloc(32, 1)), false);
});
