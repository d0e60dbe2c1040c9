import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { InvalidParamsError } from '#src/rpc/errors.js';
import {
  checkArity,
  parseAddress,
  parseBlockNumber,
  parseBlockNumberOrHash,
  parseBool,
  parseHash,
  parseQuantity,
  parseStorageKey,
} from '#src/rpc/params.js';

/** Asserts that `run` throws an InvalidParamsError whose message is `message`. */
function refuses(run: () => unknown, message: string): void {
  assert.throws(run, (e: unknown) => e instanceof InvalidParamsError && e.message === message, message);
}

test('parseQuantity: geth hexutil quantities', () => {
  const ok: [unknown, bigint][] = [
    ['0x0', 0n],
    ['0x1', 1n],
    ['0xff', 255n],
    ['0XFF', 255n],
    ['0xffffffffffffffff', 2n ** 64n - 1n],
  ];
  for (const [value, want] of ok) assert.equal(parseQuantity(value, 0, 'n'), want, String(value));
  const bad: [unknown, string][] = [
    ['0x', 'hex string "0x"'],
    ['0x01', 'hex number with leading zero digits'],
    ['12', 'hex string without 0x prefix'],
    ['', 'empty hex string'],
    ['0xg', 'invalid hex string'],
    [7, 'expected a hex string, got number'],
    [null, 'expected a hex string, got null'],
    ['0x10000000000000000', 'hex number > 64 bits'],
  ];
  for (const [value, reason] of bad) refuses(() => parseQuantity(value, 2, 'n'), `invalid argument 2 (n): ${reason}`);
});

test('parseQuantity: every 64-bit number round-trips through its minimal hex', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) =>
      assert.equal(parseQuantity('0x' + n.toString(16), 0, 'n'), n),
    ),
  );
});

test('parseAddress and parseHash: exact lengths, named lengths in the refusal', () => {
  assert.deepEqual(parseAddress('0x' + '11'.repeat(20), 0), new Uint8Array(20).fill(0x11));
  assert.deepEqual(parseHash('0X' + 'ab'.repeat(32), 0), new Uint8Array(32).fill(0xab));
  refuses(
    () => parseAddress('0x' + '11'.repeat(19), 0),
    'invalid argument 0 (address): hex string has length 38, want 40',
  );
  refuses(() => parseHash('0x' + '1'.repeat(63), 1), 'invalid argument 1 (hash): hex string of odd length');
  refuses(() => parseAddress(42, 0), 'invalid argument 0 (address): expected a hex string, got number');
});

test('parseBlockNumber and parseBlockNumberOrHash: tags, numbers, hashes, EIP-1898 objects', () => {
  assert.deepEqual(parseBlockNumber('latest', 0), { tag: 'latest' });
  assert.deepEqual(parseBlockNumber('0x10', 0), { number: 16 });
  refuses(
    () => parseBlockNumber('0x8000000000000000', 0),
    'invalid argument 0 (block parameter): block number larger than int64',
  );
  refuses(() => parseBlockNumber('newest', 0), 'invalid argument 0 (block parameter): hex string without 0x prefix');
  const hash = '0x' + '22'.repeat(32);
  assert.deepEqual(parseBlockNumberOrHash(hash, 0), { hash: new Uint8Array(32).fill(0x22), requireCanonical: false });
  assert.deepEqual(parseBlockNumberOrHash({ blockHash: hash, requireCanonical: true }, 0), {
    hash: new Uint8Array(32).fill(0x22),
    requireCanonical: true,
  });
  assert.deepEqual(parseBlockNumberOrHash({ blockNumber: '0x2' }, 0), { number: 2 });
  refuses(
    () => parseBlockNumberOrHash({ blockHash: hash, blockNumber: '0x2' }, 0),
    'invalid argument 0 (block parameter): cannot specify both BlockHash and BlockNumber, choose one or the other',
  );
  refuses(
    () => parseBlockNumberOrHash({}, 0),
    'invalid argument 0 (block parameter): block object needs blockHash or blockNumber',
  );
  refuses(
    () => parseBlockNumberOrHash({ blockHash: hash, requireCanonical: 'yes' }, 0),
    'invalid argument 0 (block parameter): requireCanonical must be a boolean',
  );
});

test('parseStorageKey: optional 0x, odd length, at most 32 bytes, left-padded', () => {
  const padded = (hex: string) => Buffer.from(hex.padStart(64, '0'), 'hex');
  assert.deepEqual(Buffer.from(parseStorageKey('0x2', 1)), padded('02'));
  assert.deepEqual(Buffer.from(parseStorageKey('abc', 1)), padded('0abc'));
  refuses(
    () => parseStorageKey('0x' + '1'.repeat(65), 1),
    'invalid argument 1 (storage position): unable to decode storage key: hex string too long, want at most 32 bytes',
  );
  refuses(
    () => parseStorageKey('0xzz', 1),
    'invalid argument 1 (storage position): unable to decode storage key: hex string invalid',
  );
});

test('parseStorageKey answers as the pattern-and-Buffer parser it replaces, for any text', () => {
  /** The reference: geth's decodeHash as a pattern test and a Buffer. */
  const reference = (value: string): string => {
    let hex = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
    if (hex.length % 2) hex = '0' + hex;
    if (!/^[0-9a-fA-F]*$/.test(hex)) return 'invalid';
    if (hex.length > 64) return 'too long';
    return hex.toLowerCase().padStart(64, '0');
  };
  const outcome = (value: string): string => {
    try {
      return Buffer.from(parseStorageKey(value, 1)).toString('hex');
    } catch (err) {
      return String(err).includes('too long') ? 'too long' : 'invalid';
    }
  };
  const digits = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFxXg '), maxLength: 70 });
  const text = fc.oneof(
    digits,
    digits.map((d) => '0x' + d),
    digits.map((d) => '0X' + d),
    fc.string({ maxLength: 70 }),
  );
  fc.assert(
    fc.property(text, (value) => outcome(value) === reference(value)),
    { numRuns: 3000 },
  );
});

test('parseBool and checkArity', () => {
  assert.equal(parseBool(true, 1, 'full'), true);
  refuses(() => parseBool('true', 1, 'full'), 'invalid argument 1 (full): expected a boolean, got string');
  checkArity(['a'], 1, 2);
  checkArity(['a', null], 1, 2);
  refuses(() => checkArity(['a', 'b', 'c'], 1, 2), 'too many arguments, want at most 2');
  refuses(() => checkArity([], 1, 2), 'missing value for required argument 0');
  refuses(
    () => checkArity([null], 1, 1, ['filter']),
    'invalid argument 0 (filter): missing value for required argument 0',
  );
});
