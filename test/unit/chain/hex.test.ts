import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  bigIntToBytes,
  bytesEqual,
  bytesQuantityToHex,
  bytesToBigInt,
  bytesToHex,
  compareBytes,
  hexToBigInt,
  hexToBytes,
  hexToNumber,
  padLeft,
  quantityToHex,
  stripLeadingZeros,
  uintBytesView,
} from '#src/chain/hex.js';

const MAX_U256 = (1n << 256n) - 1n;

test('bytesToHex renders lower-case 0x-prefixed hex', () => {
  assert.equal(bytesToHex(new Uint8Array(0)), '0x');
  assert.equal(bytesToHex(Uint8Array.of(0)), '0x00');
  assert.equal(bytesToHex(Uint8Array.of(0xde, 0xad, 0xbe, 0xef)), '0xdeadbeef');
  assert.equal(bytesToHex(Uint8Array.of(0x0a, 0xb0)), '0x0ab0');
});

test('bytesToHex respects a subarray view (offset and length)', () => {
  const whole = Uint8Array.of(1, 2, 3, 4, 5);
  assert.equal(bytesToHex(whole.subarray(1, 3)), '0x0203');
});

test('hexToBytes / bytesToHex round trip', () => {
  for (const hex of ['0x', '0x00', '0x0001', '0xff', '0xdeadbeef', '0x' + 'ab'.repeat(32), '0x' + '00'.repeat(20)]) {
    const bytes = hexToBytes(hex);
    assert.ok(bytes instanceof Uint8Array);
    assert.equal(bytes.length, (hex.length - 2) / 2);
    assert.equal(bytesToHex(bytes), hex);
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(hexToBytes(bytesToHex(all)), all);
});

test('hexToBytes accepts upper-case digits and renders them lower-case', () => {
  assert.deepEqual(hexToBytes('0xDEADbeef'), Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
  assert.equal(bytesToHex(hexToBytes('0xABCD')!), '0xabcd');
});

test('hexToBytes enforces an exact length when given one', () => {
  const addr = '0x' + '11'.repeat(20);
  assert.equal(hexToBytes(addr, 20)?.length, 20);
  assert.equal(hexToBytes(addr, 32), undefined);
  assert.equal(hexToBytes(addr, 19), undefined);
  assert.equal(hexToBytes('0x' + '11'.repeat(21), 20), undefined);
  assert.deepEqual(hexToBytes('0x', 0), new Uint8Array(0));
  assert.equal(hexToBytes('0x00', 0), undefined);
});

test('hexToBytes rejects malformed input', () => {
  for (const bad of ['0x0', '0x123', '00', 'deadbeef', '', '0X00', '0xzz', '0x0g', '0x 0', ' 0x00', '0x00 ', '0x-1']) {
    assert.equal(hexToBytes(bad), undefined, `accepted ${JSON.stringify(bad)}`);
  }
  for (const bad of [undefined, null, 0, 1n, {}, [], ['0x00'], Uint8Array.of(1)]) {
    assert.equal(hexToBytes(bad), undefined);
  }
});

test('hexToBytes agrees with a pattern test and Buffer decoding on any string of hex-like characters', () => {
  const reference = (hex: string): Uint8Array | undefined =>
    /^0x([0-9a-fA-F]{2})*$/.test(hex) ? new Uint8Array(Buffer.from(hex.slice(2), 'hex')) : undefined;
  // Hex digits of both cases, their neighbours in ASCII, and characters past ASCII a digit table must not index.
  const chars = fc.constantFrom(...'0123456789abcdefABCDEFxXgG/:@`\u0660\uff10\u0130 '.split(''));
  fc.assert(
    fc.property(fc.array(chars, { maxLength: 70 }), fc.boolean(), (body, prefixed) => {
      const hex = (prefixed ? '0x' : '') + body.join('');
      assert.deepEqual(hexToBytes(hex), reference(hex));
    }),
    { numRuns: 2000 },
  );
});

test('quantityToHex renders without leading zeros, 0 as 0x0', () => {
  assert.equal(quantityToHex(0), '0x0');
  assert.equal(quantityToHex(0n), '0x0');
  assert.equal(quantityToHex(1), '0x1');
  assert.equal(quantityToHex(15), '0xf');
  assert.equal(quantityToHex(16), '0x10');
  assert.equal(quantityToHex(1024), '0x400');
  assert.equal(quantityToHex(Number.MAX_SAFE_INTEGER), '0x1fffffffffffff');
  assert.equal(quantityToHex(MAX_U256), '0x' + 'f'.repeat(64));
  assert.equal(quantityToHex(1n << 64n), '0x1' + '0'.repeat(16));
});

test('hexToBigInt parses quantities and round-trips with quantityToHex', () => {
  assert.equal(hexToBigInt('0x0'), 0n);
  assert.equal(hexToBigInt('0x1'), 1n);
  assert.equal(hexToBigInt('0x1a'), 26n);
  assert.equal(hexToBigInt('0xFF'), 255n);
  assert.equal(hexToBigInt('0x' + 'f'.repeat(64)), MAX_U256);
  for (const v of [0n, 1n, 255n, 256n, 1n << 53n, 1n << 64n, MAX_U256]) {
    assert.equal(hexToBigInt(quantityToHex(v)), v);
  }
});

test('hexToBigInt rejects empty, leading zeros, missing 0x, non-hex and non-strings', () => {
  for (const bad of [
    '0x',
    '0x00',
    '0x01',
    '0x0001',
    'abc',
    '1',
    '0',
    '',
    '0xg',
    '0x1g',
    '0X1',
    '-0x1',
    ' 0x1',
    '0x1 ',
  ]) {
    assert.equal(hexToBigInt(bad), undefined, `accepted ${JSON.stringify(bad)}`);
  }
  for (const bad of [undefined, null, 0, 1, 1n, {}, ['0x1'], true]) {
    assert.equal(hexToBigInt(bad), undefined);
  }
});

test('hexToNumber parses safe integers and rejects larger ones', () => {
  assert.equal(hexToNumber('0x0'), 0);
  assert.equal(hexToNumber('0x10'), 16);
  assert.equal(hexToNumber('0x1fffffffffffff'), Number.MAX_SAFE_INTEGER);
  assert.equal(hexToNumber('0x20000000000000'), undefined);
  assert.equal(hexToNumber('0x' + 'f'.repeat(64)), undefined);
  for (const bad of ['0x', '0x00', '0x01', 'abc', 12, null, undefined]) {
    assert.equal(hexToNumber(bad), undefined);
  }
  for (const n of [0, 1, 127, 2 ** 32, Number.MAX_SAFE_INTEGER]) assert.equal(hexToNumber(quantityToHex(n)), n);
});

test('bytesQuantityToHex renders minimal big-endian bytes as a quantity', () => {
  assert.equal(bytesQuantityToHex(new Uint8Array(0)), '0x0');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0)), '0x0');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0, 0, 0)), '0x0');
  assert.equal(bytesQuantityToHex(Uint8Array.of(1)), '0x1');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0x0f)), '0xf');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0x10)), '0x10');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0x04, 0x00)), '0x400');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0, 0, 0x04, 0x00)), '0x400');
  assert.equal(bytesQuantityToHex(Uint8Array.of(0xab, 0x00, 0x01)), '0xab0001');
  assert.equal(bytesQuantityToHex(new Uint8Array(32).fill(0xff)), '0x' + 'f'.repeat(64));
  const view = Uint8Array.of(9, 0, 0x01, 0x02, 9).subarray(1, 4);
  assert.equal(bytesQuantityToHex(view), '0x102');
  for (const v of [0n, 1n, 15n, 16n, 255n, 256n, 1n << 100n, MAX_U256]) {
    assert.equal(bytesQuantityToHex(bigIntToBytes(v)), quantityToHex(v));
    assert.equal(bytesQuantityToHex(padLeft(bigIntToBytes(v), 32)), quantityToHex(v));
  }
});

test('bigIntToBytes is minimal big-endian, empty for zero', () => {
  assert.deepEqual(bigIntToBytes(0n), new Uint8Array(0));
  assert.deepEqual(bigIntToBytes(1n), Uint8Array.of(1));
  assert.deepEqual(bigIntToBytes(0xfn), Uint8Array.of(0x0f));
  assert.deepEqual(bigIntToBytes(255n), Uint8Array.of(0xff));
  assert.deepEqual(bigIntToBytes(256n), Uint8Array.of(1, 0));
  assert.deepEqual(bigIntToBytes(0x400n), Uint8Array.of(4, 0));
  assert.deepEqual(bigIntToBytes(MAX_U256), new Uint8Array(32).fill(0xff));
  assert.equal(bigIntToBytes(1n << 255n).length, 32);
  assert.equal(bigIntToBytes(1n << 256n).length, 33);
});

test(
  'uintBytesView gives the minimal big-endian bytes of its hex text, ' +
    'at any width (the shared buffer grows), and refuses a negative',
  () => {
    const viaHex = (v: bigint) => {
      const hex = v.toString(16);
      return v === 0n ? new Uint8Array(0) : new Uint8Array(Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex'));
    };
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 700n) - 1n }), (v) =>
        assert.deepEqual(new Uint8Array(uintBytesView(v)), viaHex(v)),
      ),
      { numRuns: 2000 },
    );
    for (const v of [0n, 1n, (1n << 64n) - 1n, 1n << 64n, MAX_U256, 1n << 256n, 1n << 1000n, 5n])
      assert.deepEqual(new Uint8Array(uintBytesView(v)), viaHex(v));
    assert.throws(() => uintBytesView(-1n), RangeError);
  },
);

test('bigIntToBytes / bytesToBigInt round trip', () => {
  for (const v of [
    0n,
    1n,
    127n,
    128n,
    255n,
    256n,
    65535n,
    65536n,
    1n << 53n,
    (1n << 64n) - 1n,
    1n << 64n,
    1n << 255n,
    MAX_U256,
  ]) {
    assert.equal(bytesToBigInt(bigIntToBytes(v)), v);
  }
  assert.equal(bytesToBigInt(new Uint8Array(0)), 0n);
  assert.equal(bytesToBigInt(new Uint8Array(32)), 0n);
  assert.equal(bytesToBigInt(Uint8Array.of(0, 0, 1, 0)), 256n);
  assert.equal(bytesToBigInt(new Uint8Array(32).fill(0xff)), MAX_U256);
});

test('padLeft left-pads with zeros and leaves long-enough input alone', () => {
  assert.deepEqual(padLeft(Uint8Array.of(1, 2), 4), Uint8Array.of(0, 0, 1, 2));
  assert.deepEqual(padLeft(new Uint8Array(0), 3), new Uint8Array(3));
  assert.deepEqual(padLeft(Uint8Array.of(1, 2), 2), Uint8Array.of(1, 2));
  assert.deepEqual(padLeft(Uint8Array.of(1, 2, 3), 2), Uint8Array.of(1, 2, 3));
  const word = padLeft(bigIntToBytes(0x1234n), 32);
  assert.equal(word.length, 32);
  assert.equal(bytesToHex(word), '0x' + '0'.repeat(60) + '1234');
  assert.equal(bytesToBigInt(word), 0x1234n);
});

test('stripLeadingZeros drops only leading zeros, and padLeft to the width restores the bytes', () => {
  assert.deepEqual(stripLeadingZeros(Uint8Array.of(0, 0, 1, 0)), Uint8Array.of(1, 0));
  assert.deepEqual(stripLeadingZeros(Uint8Array.of(0, 0)), new Uint8Array(0));
  assert.deepEqual(stripLeadingZeros(Uint8Array.of(7)), Uint8Array.of(7));
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
      const stripped = stripLeadingZeros(bytes);
      assert.ok(stripped.length === 0 || stripped[0] !== 0);
      assert.deepEqual(padLeft(stripped, bytes.length), bytes);
    }),
  );
});

test('compareBytes orders as Buffer.compare does', () => {
  const cases: [number[], number[], number][] = [
    [[], [], 0],
    [[], [0], -1],
    [[1, 2], [1, 2], 0],
    [[1, 2], [1, 3], -1],
    [[2], [1, 255], 1],
    [[1, 2, 0], [1, 2], 1],
  ];
  for (const [a, b, want] of cases)
    assert.equal(compareBytes(Uint8Array.from(a), Uint8Array.from(b)), want, `${a} vs ${b}`);
  const small = fc.uint8Array({ maxLength: 6 }).map((a) => a.map((x) => x % 3));
  fc.assert(fc.property(small, small, (a, b) => compareBytes(a, b) === Buffer.compare(a, b)));
});

test('bytesEqual compares contents', () => {
  assert.equal(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2)), true);
  assert.equal(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3)), false);
  assert.equal(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 0)), false);
  assert.equal(bytesEqual(new Uint8Array(0), new Uint8Array(0)), true);
});
