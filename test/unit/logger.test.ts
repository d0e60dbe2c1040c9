/**
 * The structured logger: JSON lines with the level's name, levels filter, errors with their stack,
 * context fields, and credentials masked in messages and errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, isLogLevel, LOG_LEVELS, type LogLevel, redactSecrets } from '#src/logger.js';

/** A logger at `level` and the records it wrote. */
function capture(level: LogLevel) {
  const lines: string[] = [];
  const logger = createLogger(level, { destination: { write: (text: string) => void lines.push(text) } });
  return { logger, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

test('lines are JSON with the level name, time, message and context fields', () => {
  const { logger, records } = capture('debug');
  logger.info('started', { port: 8545 });
  logger.debug('request', { status: 200, methods: ['eth_chainId'] });
  const [info, debug] = records();
  assert.equal(info!.level, 'info');
  assert.equal(info!.msg, 'started');
  assert.equal(info!.port, 8545);
  assert.ok(!Number.isNaN(Date.parse(String(info!.time))));
  assert.equal(debug!.level, 'debug');
  assert.deepEqual(debug!.methods, ['eth_chainId']);
});

test('the level filters lines, and isLevelEnabled says so', () => {
  const { logger, records } = capture('warn');
  logger.debug('no');
  logger.info('no');
  logger.warn('yes');
  logger.error('yes too');
  assert.deepEqual(
    records().map((r) => r.level),
    ['warn', 'error'],
  );
  assert.equal(logger.isLevelEnabled('debug'), false);
  assert.equal(logger.isLevelEnabled('warn'), true);
  const silent = capture('silent');
  silent.logger.error('nothing');
  assert.equal(silent.records().length, 0);
  assert.equal(silent.logger.isLevelEnabled('error'), false);
});

test('an error is logged under err with its type, message and stack, beside the context', () => {
  const { logger, records } = capture('info');
  logger.error('scan failed', new RangeError('out of range'), { task: 3 });
  logger.error('not an Error', 'just text');
  const [first, second] = records();
  const err = first!.err as Record<string, unknown>;
  assert.equal(err.type, 'RangeError');
  assert.equal(err.message, 'out of range');
  assert.match(String(err.stack), /RangeError: out of range\n\s+at /);
  assert.equal(first!.task, 3);
  assert.equal(second!.err, 'just text');
});

test('credentials in messages and errors are masked', () => {
  const key = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const { logger, records } = capture('info');
  logger.warn(`retry 1 after: HTTP 429 from https://mainnet.infura.io/v3/${key}`);
  logger.error('upstream failed', new Error(`https://user:hunter2@node.example:8545/rpc?apikey=${key}: ECONNREFUSED`));
  const text = JSON.stringify(records());
  assert.ok(!text.includes(key) && !text.includes('hunter2'), text);
  assert.match(text, /mainnet\.infura\.io\/v3\/<redacted>/);
  assert.match(text, /https:\/\/<redacted>@node\.example:8545\/rpc\?<redacted> ECONNREFUSED/);
});

test('redactSecrets masks keys in paths and URLs, and leaves other text alone', () => {
  assert.equal(redactSecrets('POST /v3/secretkey failed'), 'POST /v3/<redacted> failed');
  assert.equal(redactSecrets('http://127.0.0.1:8545/v3/abc?x=1'), 'http://127.0.0.1:8545/v3/<redacted>?<redacted>');
  assert.equal(
    redactSecrets('https://eth-mainnet.g.alchemy.com/v2/AbCdEfGhIjKlMnOpQrStUv'),
    'https://eth-mainnet.g.alchemy.com/v2/<redacted>',
  );
  assert.equal(redactSecrets('https://rpc.example.org/'), 'https://rpc.example.org/');
  const plain = 'head 0x1234abcd… +3 blocks (hash 0xdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef)';
  assert.equal(redactSecrets(plain), plain);
});

test('the level list names every level createLogger takes', () => {
  assert.deepEqual([...LOG_LEVELS], ['debug', 'info', 'warn', 'error', 'silent']);
  assert.ok(LOG_LEVELS.every(isLogLevel));
  assert.equal(isLogLevel('verbose'), false);
});
