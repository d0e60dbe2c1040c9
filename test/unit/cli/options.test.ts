/**
 * Option resolution: flags over environment variables over the config file over defaults, type
 * checks from every source with messages naming the source, unknown config keys refused, and the
 * help text listing every option with its environment variable and default.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { UsageError } from '#src/cli/args.js';
import { envName, type OptionSpec, optionsHelp, resolveOptions } from '#src/cli/options.js';
import { accessLogMode, SERVE_OPTIONS, SERVE_USAGE } from '#src/cli/serve.js';

const SPECS: OptionSpec[] = [
  { name: 'data', type: { kind: 'string' }, required: true, description: 'store' },
  { name: 'port', type: { kind: 'integer', min: 0, max: 65535 }, default: 8545, description: 'port' },
  { name: 'grpc-port', type: { kind: 'integer', min: 0, max: 65535 }, description: 'grpc' },
  { name: 'log-level', type: { kind: 'choice', choices: ['debug', 'info'] }, default: 'info', description: 'level' },
  { name: 'metrics', type: { kind: 'boolean' }, default: true, description: 'metrics' },
  {
    name: 'access-log',
    type: { kind: 'pattern', pattern: /^(?:on|off|sample:[1-9]\d{0,8})$/, expected: 'on, off or sample:N' },
    default: 'on',
    description: 'access log',
  },
];

const dir = mkdtempSync(join(tmpdir(), 'ethlogd-options-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function configFile(content: unknown): string {
  const path = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

test('environment variable names', () => {
  assert.equal(envName('grpc-port'), 'ETHLOGD_GRPC_PORT');
  assert.equal(envName('data'), 'ETHLOGD_DATA');
});

test('precedence: flag, then environment, then config file, then default', () => {
  const file = configFile({ data: '/from/file', port: 1, 'grpc-port': 2, 'log-level': 'debug' });
  const env = { ETHLOGD_PORT: '3', ETHLOGD_GRPC_PORT: '4' };
  const r = resolveOptions(['--config', file, '--port', '5'], SPECS, env);
  assert.deepEqual(r.values, {
    data: '/from/file',
    port: 5,
    'grpc-port': 4,
    'log-level': 'debug',
    metrics: true,
    'access-log': 'on',
  });
  assert.deepEqual(r.sources, {
    data: 'config',
    port: 'flag',
    'grpc-port': 'env',
    'log-level': 'config',
    metrics: 'default',
    'access-log': 'default',
  });
  const viaEnv = resolveOptions([], SPECS, { ETHLOGD_CONFIG: file });
  assert.equal(viaEnv.values.port, 1, 'ETHLOGD_CONFIG names the file too');
  const bare = resolveOptions(['--data', 'd'], SPECS, {});
  assert.deepEqual(bare.values, {
    data: 'd',
    port: 8545,
    'grpc-port': undefined,
    'log-level': 'info',
    metrics: true,
    'access-log': 'on',
  });
});

test('booleans from every source', () => {
  assert.equal(resolveOptions(['--data', 'd', '--metrics'], SPECS, { ETHLOGD_METRICS: 'false' }).values.metrics, true);
  assert.equal(resolveOptions(['--data', 'd'], SPECS, { ETHLOGD_METRICS: 'false' }).values.metrics, false);
  assert.equal(
    resolveOptions(['--data', 'd', '--config', configFile({ metrics: false })], SPECS, {}).values.metrics,
    false,
  );
  assert.throws(
    () => resolveOptions(['--data', 'd'], SPECS, { ETHLOGD_METRICS: 'yes' }),
    /ETHLOGD_METRICS must be true or false/,
  );
});

test('bad values are usage errors naming where they came from', () => {
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [['--data', 'd', '--port', '70000'], {}, /--port must be an integer from 0 to 65535/],
    [['--data', 'd'], { ETHLOGD_PORT: 'x' }, /ETHLOGD_PORT must be an integer/],
    [['--data', 'd', '--config', configFile({ port: '1.5' })], {}, /"port" in .*\.json must be an integer/],
    [['--data', 'd', '--log-level', 'loud'], {}, /log-level must be one of debug, info/],
    [['--data', 'd', '--access-log', 'sample:0'], {}, /--access-log must be on, off or sample:N/],
    [['--data', 'd'], { ETHLOGD_ACCESS_LOG: 'sample 10' }, /ETHLOGD_ACCESS_LOG must be on, off or sample:N/],
    [
      ['--data', 'd', '--config', configFile({ 'access-log': 'yes' })],
      {},
      /"access-log" in .*\.json must be on, off or sample:N/,
    ],
    [[], {}, /--data is required \(or ETHLOGD_DATA, or "data" in the config file\)/],
    [['--data', 'd', '--config', configFile({ prot: 1 })], {}, /unknown option "prot"/],
    [['--data', 'd', '--config', configFile('{not json')], {}, /cannot read config file/],
    [['--data', 'd', '--config', configFile([1])], {}, /must hold a JSON object/],
    [['--data', 'd', '--config', join(dir, 'absent.json')], {}, /cannot read config file/],
    [['--data', 'd', '--unknown'], {}, /Unknown option '--unknown'/],
  ];
  for (const [argv, env, message] of cases)
    assert.throws(
      () => resolveOptions(argv, SPECS, env),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      argv.join(' '),
    );
});

test('a pattern option takes what its expression allows, from every source; --access-log names a mode', () => {
  assert.equal(
    resolveOptions(['--data', 'd', '--access-log', 'sample:100'], SPECS, {}).values['access-log'],
    'sample:100',
  );
  assert.equal(resolveOptions(['--data', 'd'], SPECS, { ETHLOGD_ACCESS_LOG: 'off' }).values['access-log'], 'off');
  assert.deepEqual(['on', 'off', 'sample:1', 'sample:250'].map(accessLogMode), [
    'on',
    'off',
    { sample: 1 },
    { sample: 250 },
  ]);
  const serveAccessLog = SERVE_OPTIONS.find((s) => s.name === 'access-log')!;
  for (const value of ['on', 'off', 'sample:3'])
    assert.equal(resolveOptions(['--access-log', value], [serveAccessLog], {}).values['access-log'], value);
  for (const value of ['ON', 'sample', 'sample:', 'sample:0', 'sample:-1', 'sample:1.5', 'sample:12345678901']) {
    assert.throws(() => resolveOptions(['--access-log', value], [serveAccessLog], {}), UsageError, value);
  }
});

test('--help needs no required option and reads no config file', () => {
  const r = resolveOptions(['--help', '--config', join(dir, 'absent.json')], SPECS, {});
  assert.equal(r.help, true);
});

test('help lists every option with its environment variable and default', () => {
  const help = optionsHelp(SPECS);
  for (const s of SPECS) {
    assert.match(help, new RegExp(`--${s.name}\\b`));
    assert.match(help, new RegExp(envName(s.name)));
  }
  assert.match(help, /--port N\s+port; default 8545/);
  assert.match(help, /--grpc-port N\s+grpc; default unset/);
  assert.match(help, /--config FILE/);
  assert.match(help, /--access-log VALUE\s+access log \(on, off or sample:N\); default on/);
  for (const s of SERVE_OPTIONS) {
    assert.ok(SERVE_USAGE.includes(`--${s.name}`), s.name);
    assert.ok(SERVE_USAGE.includes(envName(s.name)), s.name);
  }
});
