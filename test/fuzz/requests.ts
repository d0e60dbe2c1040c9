/**
 * fast-check arbitraries of JSON-RPC requests for the fuzz suite: every served method with each
 * parameter position either a plausible value (values of the dataset, so some calls find
 * something) or a wrong one (wrong JSON types, huge and negative numbers, overlong and malformed
 * hex, random strings), argument lists too short and too long, odd envelopes (ids of every type,
 * wrong `jsonrpc`, unknown and non-string methods, params that are not an array).
 */
import fc from 'fast-check';

/** Values of the served dataset that the plausible parameters draw from. */
export interface FuzzCorpus {
  head: number;
  blockHashes: string[];
  txHashes: string[];
  addresses: string[];
  topics: string[];
}

/** Every method the service serves (src/rpc/methods/index.ts). */
export const SERVED_METHODS = [
  'eth_getStorageAt',
  'eth_getLogs',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getBlockByNumber',
  'eth_getTransactionByHash',
  'eth_chainId',
  'net_version',
  'eth_blockNumber',
  'web3_clientVersion',
  'eth_getBlockByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleCountByBlockHash',
  'eth_syncing',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
] as const;

/** Weight of a plausible value against a wrong one in a parameter position. */
const PLAUSIBLE_WEIGHT = 3;

const hexDigits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: min, maxLength: max });
const hexBytes = (length: number) =>
  fc.uint8Array({ minLength: length, maxLength: length }).map((b) => '0x' + Buffer.from(b).toString('hex'));

/** Wrong values of any position: other JSON types, extreme numbers, strings of every kind. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53,
    2 ** 64,
    0.5,
    '',
    ' ',
    '0x',
    '0X',
    '-0x1',
    '0x-1',
    'null',
    'latest ',
    'LATEST',
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  hexDigits(0, 300).map((d) => '0x' + d),
  hexDigits(1, 80),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Hex quantities: valid and small, near the head, and malformed (leading zeros, overlong, above int64, no prefix). */
function quantity(corpus: FuzzCorpus): fc.Arbitrary<unknown> {
  return fc.oneof(
    {
      weight: PLAUSIBLE_WEIGHT,
      arbitrary: fc.integer({ min: 0, max: corpus.head + 3 }).map((n) => '0x' + n.toString(16)),
    },
    fc.bigInt({ min: 0n, max: (1n << 70n) - 1n }).map((n) => '0x' + n.toString(16)),
    hexDigits(17, 200).map((d) => '0x' + d),
    hexDigits(1, 8).map((d) => '0x0' + d),
    fc.integer({ min: 0, max: 1000 }).map((n) => '0X' + n.toString(16).toUpperCase()),
    wrongValue,
  );
}

/** A block parameter: a tag or a quantity. */
function blockNumber(corpus: FuzzCorpus): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('latest', 'earliest', 'pending', 'safe', 'finalized') },
    quantity(corpus),
  );
}

/** A 32-byte hash: the dataset's, random, or of a wrong length. */
function hash(known: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: PLAUSIBLE_WEIGHT, arbitrary: known.length > 0 ? fc.constantFrom(...known) : hexBytes(32) },
    hexBytes(32),
    fc.integer({ min: 0, max: 80 }).chain(hexBytes),
    hexDigits(64, 64),
    wrongValue,
  );
}

/** A 20-byte address: the dataset's, random, or malformed. */
function address(corpus: FuzzCorpus): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: PLAUSIBLE_WEIGHT, arbitrary: fc.constantFrom(...corpus.addresses) },
    hexBytes(20),
    fc.integer({ min: 0, max: 40 }).chain(hexBytes),
    hexDigits(40, 40),
    wrongValue,
  );
}

/** A block parameter of eth_getStorageAt: number, tag, hash or an EIP-1898 object (well or badly formed). */
function blockNumberOrHash(corpus: FuzzCorpus): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: blockNumber(corpus) },
    hash(corpus.blockHashes),
    fc.record(
      { blockHash: hash(corpus.blockHashes), requireCanonical: fc.oneof(fc.boolean(), wrongValue) },
      { requiredKeys: ['blockHash'] },
    ),
    fc.record({ blockNumber: blockNumber(corpus) }),
    fc.record({ blockHash: hash(corpus.blockHashes), blockNumber: blockNumber(corpus) }),
    fc.constant({}),
  );
}

/** A storage position: up to 32 bytes with optional 0x and odd length, or too long, or not hex. */
const storageKey: fc.Arbitrary<unknown> = fc.oneof(
  { weight: PLAUSIBLE_WEIGHT, arbitrary: hexDigits(0, 64).map((d) => '0x' + d) },
  hexDigits(0, 64),
  hexDigits(65, 200).map((d) => '0x' + d),
  wrongValue,
);

/** A polling-filter id: the shape of one (unknown to the server), or a wrong value. */
const filterId: fc.Arbitrary<unknown> = fc.oneof({ weight: PLAUSIBLE_WEIGHT, arbitrary: hexBytes(16) }, wrongValue);

const bool: fc.Arbitrary<unknown> = fc.oneof({ weight: PLAUSIBLE_WEIGHT, arbitrary: fc.boolean() }, wrongValue);

/** A topic position: a wildcard, one value, a list of alternatives, or something wrong. */
function topicPosition(corpus: FuzzCorpus): fc.Arbitrary<unknown> {
  const topic = hash(corpus.topics);
  return fc.oneof(fc.constant(null), topic, fc.array(fc.oneof(topic, fc.constant(null)), { maxLength: 6 }), wrongValue);
}

/** A filter field name as sent: usually as documented, sometimes in another case (geth matches case-insensitively). */
const fieldName = (name: string) => fc.constantFrom(name, name.toLowerCase(), name.toUpperCase());

/**
 * An eth_getLogs filter: every field optional, each well or badly formed, sometimes with many addresses or unknown
 * fields.
 */
function filter(corpus: FuzzCorpus): fc.Arbitrary<unknown> {
  const addresses = fc.oneof(
    { weight: PLAUSIBLE_WEIGHT, arbitrary: address(corpus) },
    fc.array(address(corpus), { maxLength: 12 }),
    fc
      .integer({ min: 0, max: 6000 })
      .map((n) => Array.from({ length: n }, (_, i) => corpus.addresses[i % corpus.addresses.length])),
  );
  const fields = fc.record(
    {
      fromBlock: fc.tuple(fieldName('fromBlock'), blockNumber(corpus)),
      toBlock: fc.tuple(fieldName('toBlock'), blockNumber(corpus)),
      blockHash: fc.tuple(fieldName('blockHash'), hash(corpus.blockHashes)),
      address: fc.tuple(fc.constant('address'), addresses),
      topics: fc.tuple(fc.constant('topics'), fc.oneof(fc.array(topicPosition(corpus), { maxLength: 6 }), wrongValue)),
      extra: fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
    },
    { requiredKeys: [] },
  );
  return fc.oneof({ weight: 4, arbitrary: fields.map((f) => Object.fromEntries(Object.values(f))) }, wrongValue);
}

/** The parameter positions of each method. */
function positions(corpus: FuzzCorpus): Record<(typeof SERVED_METHODS)[number], fc.Arbitrary<unknown>[]> {
  const blockHash = hash(corpus.blockHashes);
  return {
    eth_getStorageAt: [address(corpus), storageKey, blockNumberOrHash(corpus)],
    eth_getLogs: [filter(corpus)],
    eth_getTransactionByBlockNumberAndIndex: [blockNumber(corpus), quantity(corpus)],
    eth_getBlockByNumber: [blockNumber(corpus), bool],
    eth_getTransactionByHash: [hash(corpus.txHashes)],
    eth_chainId: [],
    net_version: [],
    eth_blockNumber: [],
    web3_clientVersion: [],
    eth_getBlockByHash: [blockHash, bool],
    eth_getTransactionByBlockHashAndIndex: [blockHash, quantity(corpus)],
    eth_getBlockTransactionCountByNumber: [blockNumber(corpus)],
    eth_getBlockTransactionCountByHash: [blockHash],
    eth_getUncleCountByBlockNumber: [blockNumber(corpus)],
    eth_getUncleCountByBlockHash: [blockHash],
    eth_syncing: [],
    eth_getTransactionReceipt: [hash(corpus.txHashes)],
    eth_getBlockReceipts: [blockNumberOrHash(corpus)],
    eth_newFilter: [filter(corpus)],
    eth_newBlockFilter: [],
    eth_getFilterChanges: [filterId],
    eth_getFilterLogs: [filterId],
    eth_uninstallFilter: [filterId],
  };
}

/** A params array for `method`: its positions, sometimes cut short or followed by extra values. */
function paramsOf(slots: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown[]> {
  return fc
    .tuple(fc.tuple(...slots), fc.nat(slots.length), fc.array(wrongValue, { maxLength: 3 }), fc.nat(9))
    .map(([values, keep, extra, shape]) =>
      shape === 0 ? values.slice(0, keep) : shape === 1 ? [...values, ...extra] : values,
    );
}

/** A JSON-RPC id of any JSON type (only numbers, strings and null are valid). */
const id: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer() },
  fc.string({ maxLength: 20 }),
  fc.constant(null),
  fc.double({ noNaN: true }),
  fc.constantFrom(2 ** 64, -0, 1e-300, true, [], {}, [1], { id: 1 }),
);

/** One JSON-RPC request object: usually well enveloped with fuzzed params, sometimes with a broken envelope. */
export function requestArb(corpus: FuzzCorpus): fc.Arbitrary<Record<string, unknown>> {
  const slots = positions(corpus);
  const wellFormed = fc
    .constantFrom(...SERVED_METHODS)
    .chain((method) =>
      fc.record(
        { jsonrpc: fc.constant('2.0'), id, method: fc.constant(method), params: paramsOf(slots[method]) },
        { requiredKeys: ['jsonrpc', 'method'] },
      ),
    );
  const envelope = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), wrongValue),
      id,
      method: fc.oneof(
        fc.constantFrom(
          ...SERVED_METHODS,
          'eth_getlogs',
          'eth_getLogs ',
          'eth_call',
          'rpc_modules',
          '__proto__',
          'constructor',
          'toString',
        ),
        wrongValue,
      ),
      params: fc.oneof(fc.array(wrongValue, { maxLength: 4 }), wrongValue),
    },
    { requiredKeys: [] },
  );
  return fc.oneof({ weight: 8, arbitrary: wellFormed }, { weight: 2, arbitrary: envelope });
}
