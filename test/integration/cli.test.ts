/**
 * The built command line as a user runs it: `node dist/src/cli.js` in child processes. generate,
 * keys create/list/revoke, serve (a real request, a revocation seen without a restart, SIGTERM),
 * reindex, --help everywhere, and usage errors.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bytesToHex } from '#src/chain/hex.js';
import { REVOKED_KEY_MESSAGE, UNAUTHORIZED } from '#src/rpc/errors.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { generateChain } from '#src/synth/generator.js';

const CLI = fileURLToPath(new URL(import.meta.resolve('#src/cli.js')));
const BLOCKS = 50;
const DENSITY = 0.05;
const SEED = 'cli';

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
function cli(args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

/** A `serve` child process that has announced its address. */
interface Served {
  /** The announced base URL (http://host:port). */
  url: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** The lines it wrote to stdout so far. */
  stdout(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Kills it if it still runs. */
  kill(): void;
}

/** Starts `ethlogd serve` with `args` (and `env` over this process's) and waits for its "listening on" line. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    const out: string[] = [];
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        out.push(line);
        if (out.length === 1) resolve(line);
      });
      void exited.then((code) => reject(new Error(`serve exited (${code}) before listening:\n${stderr}`)));
    });
    const url = /^listening on (http:\/\/\S+)$/.exec(first)![1]!;
    return {
      url,
      exited,
      stderr: () => stderr,
      stdout: () => out.join('\n'),
      stop: () => {
        child.kill('SIGTERM');
        return exited;
      },
      kill,
    };
  } catch (error) {
    kill();
    throw error;
  }
}

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-cli-'));
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a store made, keyed and served from the command line', () => {
  let data: string;
  let key: string;

  before(async () => {
    data = join(dir, 'store');
    const gen = await cli([
      'generate',
      '--out',
      data,
      '--blocks',
      String(BLOCKS),
      '--seed',
      SEED,
      '--density',
      String(DENSITY),
    ]);
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stdout, new RegExp(`generated ${BLOCKS} blocks, \\d+ transactions, \\d+ logs`));
  });

  test('keys create prints the key alone on its last line; keys list shows it active', async () => {
    const created = await cli(['keys', 'create', '--data', data, '--label', 'cli-test']);
    assert.equal(created.code, 0, created.stderr);
    key = lines(created.stdout).at(-1)!;
    assert.match(key, /^[0-9a-f]{64}$/);

    const listed = await cli(['keys', 'list', '--data', data]);
    assert.equal(listed.code, 0, listed.stderr);
    const id = createHash('sha256').update(key).digest('hex');
    const line = lines(listed.stdout).find((l) => l.startsWith(id));
    assert.ok(line, `the key's id is listed:\n${listed.stdout}`);
    assert.match(line, /\sactive\s+cli-test$/);
    assert.ok(!listed.stdout.includes(key), 'the key itself is never listed');
  });

  test('serve: listens, answers with the key, sees a revocation without a restart, exits 0 on SIGTERM', {
    timeout: 60_000,
  }, async () => {
    assert.ok(key, 'a key was created');
    const child: ChildProcess = spawn(
      process.execPath,
      [CLI, 'serve', '--data', data, '--port', '0', '--threads', '1'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    try {
      // The first stdout line announces the address once requests are accepted.
      const out = createInterface({ input: child.stdout! });
      const first = await new Promise<string>((resolve, reject) => {
        out.once('line', resolve);
        void exited.then(({ code }) => reject(new Error(`serve exited (${code}) before listening:\n${stderr}`)));
      });
      const m = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first);
      assert.ok(m, `announcement: ${first}`);
      assert.notEqual(Number(m[2]), 0);
      const url = `${m[1]}/v3/${key}`;

      const call = async (method: string, params: unknown[]) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { result?: Record<string, unknown> | string; error?: unknown },
        };
      };

      const chain = [...generateChain({ blocks: BLOCKS, seed: SEED, density: DENSITY })];
      const { status, body } = await call('eth_getBlockByNumber', ['0x7', false]);
      assert.equal(status, 200);
      const block = body.result as Record<string, unknown>;
      assert.equal(block.number, '0x7');
      assert.equal(block.hash, bytesToHex(chain[7]!.header.hash));
      assert.equal((await call('eth_blockNumber', [])).body.result, '0x' + (BLOCKS - 1).toString(16));

      // Revoked from another process while the server runs: the next request is refused.
      const revoked = await cli(['keys', 'revoke', '--data', data, key]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, /revoked/);
      const refused = await call('eth_blockNumber', []);
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, {
        jsonrpc: '2.0',
        id: null,
        error: { code: UNAUTHORIZED, message: REVOKED_KEY_MESSAGE },
      });
      const listed = await cli(['keys', 'list', '--data', data]);
      assert.match(listed.stdout, /\srevoked \d{4}-\d\d-\d\dT[\d:.]+Z\s+cli-test$/m);

      assert.ok(child.kill('SIGTERM'));
      const { code, signal } = await exited;
      assert.equal(signal, null, stderr);
      assert.equal(code, 0, stderr);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  test('reindex rebuilds the derived indexes of a store', async () => {
    const ran = await cli(['reindex', '--data', data]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^rebuilt the log indexes of 1 segments in [\d.]+ s$/m);
  });

  test('verify: progress on stderr; a whole store exits 0; a damaged one lists its problems and exits 1', async () => {
    const ok = await cli(['verify', '--data', data, '--full']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, new RegExp(`^verified ${BLOCKS} blocks in [\\d.]+ s: no problems$`, 'm'));
    assert.match(ok.stderr, new RegExp(`^verify: 1/${BLOCKS} blocks `, 'm'), 'progress on stderr from the first block');
    // It left its mark: the next check covers only what was written since (nothing here).
    const mark = JSON.parse(readFileSync(join(data, 'verified.json'), 'utf8')) as { to: number };
    assert.equal(mark.to, BLOCKS - 1);
    const again = await cli(['verify', '--data', data]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(
      again.stdout,
      new RegExp(
        `^verified ${BLOCKS} blocks \\(blocks ${BLOCKS} on; 0\\.\\.${BLOCKS - 1} were checked before: ` +
          '--full checks them again\\) in [\\d.]+ s: no problems$',
        'm',
      ),
    );
    const block = [...generateChain({ blocks: BLOCKS, seed: SEED, density: DENSITY })].find(
      (b) => b.transactions.length > 0,
    )!;
    const hash = Buffer.from(block.transactions[0]!.hash);
    /** Runs `change` on the store opened for writing, and returns what it returns. */
    const withStore = async <T>(change: (store: Store) => T): Promise<T> => {
      const store = openStore(data);
      try {
        return change(store);
      } finally {
        await closeStore(store);
      }
    };
    const location = await withStore((store) => {
      const at = store.txByHash.getBinary(hash)!;
      store.txByHash.removeSync(hash);
      return at;
    });
    try {
      // The damage is before the mark: only a full check sees it.
      assert.equal((await cli(['verify', '--data', data])).code, 0);
      const bad = await cli(['verify', '--data', data, '--full']);
      assert.equal(bad.code, 1, bad.stdout + bad.stderr);
      assert.match(
        bad.stdout,
        new RegExp(`^block ${block.header.number}: transaction 0 \\(${bytesToHex(hash)}\\) is not in txByHash$`, 'm'),
      );
      assert.match(bad.stdout, new RegExp(`^verified ${BLOCKS} blocks in [\\d.]+ s: 1 problem$`, 'm'));
    } finally {
      await withStore((store) => store.txByHash.putSync(hash, location));
    }
  });

  test('serve takes each option from its flag, else the environment, else the config file', {
    timeout: 60_000,
  }, async () => {
    const created = await cli(['keys', 'create', '--data', data, '--label', 'options']);
    const optionsKey = lines(created.stdout).at(-1)!;
    const config = join(dir, 'serve.json');
    writeFileSync(config, JSON.stringify({ data, port: 0, threads: 1, 'max-log-results': 5, 'log-level': 'warn' }));
    /** Serves with `args` and `env`, and returns the result cap an over-wide eth_getLogs reports. */
    const capOf = async (args: string[], env: NodeJS.ProcessEnv): Promise<string> => {
      const served = await serve(args, env);
      try {
        const res = await fetch(`${served.url}/v3/${optionsKey}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'eth_getLogs',
            params: [{ fromBlock: '0x0', toBlock: 'latest' }],
          }),
        });
        const { error } = (await res.json()) as { error: { code: number; message: string } };
        assert.equal(error.code, -32005);
        assert.equal(await served.stop(), 0, served.stderr());
        return /more than (\d+) results/.exec(error.message)![1]!;
      } finally {
        served.kill();
      }
    };
    // Each server takes its store, port, threads and log level from the config file (named by the
    // environment, then by a flag) and its cap from the environment over the file, then from a flag
    // over both (resolveOptions' whole precedence table is unit-tested: test/unit/cli/options.test.ts).
    const [fromEnvironment, fromFlag] = await Promise.all([
      capOf([], { ETHLOGD_CONFIG: config, ETHLOGD_MAX_LOG_RESULTS: '7' }),
      capOf(['--config', config, '--max-log-results', '9'], { ETHLOGD_MAX_LOG_RESULTS: '7' }),
    ]);
    assert.equal(fromEnvironment, '7', 'environment over config file');
    assert.equal(fromFlag, '9', 'flag over environment');
    const bad = await cli(['serve', '--config', config, '--port', 'x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^ethlogd serve: --port must be an integer from 0 to 65535/m);
  });

  test('a busy port: serve names the front, the port and the reason, ' +
    'says nothing of listening and exits 2; --grpc-port off overrides the config file', {
    timeout: 60_000,
  }, async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const busy = (holder.address() as AddressInfo).port;
    try {
      for (const [args, front, option] of [
        [['--port', String(busy), '--http-threads', '1'], 'http', '--port'],
        [['--port', String(busy), '--http-threads', '2'], 'http', '--port'],
        [['--port', '0', '--grpc-port', String(busy)], 'grpc', '--grpc-port, or --grpc-port off'],
      ] as const) {
        const ran = await cli(['serve', '--data', data, '--threads', '1', ...args]);
        assert.equal(ran.code, 2, ran.stderr);
        assert.equal(ran.stdout, '', 'nothing says it listens');
        assert.equal(
          ran.stderr,
          `ethlogd serve: ${front}: cannot listen on 127.0.0.1:${busy}: ` +
            `the port is in use by another process (choose another ${option})\n`,
        );
      }
    } finally {
      holder.close();
    }
    const config = join(dir, 'grpc.json');
    writeFileSync(
      config,
      JSON.stringify({ data, port: 0, threads: 1, 'http-threads': 1, 'grpc-port': 0, 'log-level': 'warn' }),
    );
    for (const [args, grpc] of [
      [[], true],
      [['--grpc-port', 'off'], false],
    ] as const) {
      const served = await serve(['--config', config, ...args], {});
      try {
        assert.equal(await served.stop(), 0, served.stderr());
        assert.equal(/grpc listening on/.test(served.stdout()), grpc, served.stdout());
      } finally {
        served.kill();
      }
    }
  });

  test("serve --rate-limit: calls past a key's burst answer 429 with -32005", { timeout: 60_000 }, async () => {
    const created = await cli(['keys', 'create', '--data', data, '--label', 'limited']);
    const limitedKey = lines(created.stdout).at(-1)!;
    const served = await serve(['--data', data, '--port', '0', '--threads', '1', '--rate-limit', '1'], {
      ETHLOGD_RATE_BURST: '2',
    });
    try {
      const url = `${served.url}/v3/${limitedKey}`;
      const call = () =>
        fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
        });
      assert.equal((await call()).status, 200);
      assert.equal((await call()).status, 200);
      const refused = await call();
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const body = (await refused.json()) as { error: { code: number; message: string } };
      assert.deepEqual([body.error.code, body.error.message], [-32005, 'project ID request rate exceeded']);
      assert.equal(await served.stop(), 0, served.stderr());
    } finally {
      served.kill();
    }
  });

  test('a store of another chain is refused by generate (exit 2, the stored options on stderr)', async () => {
    const ran = await cli([
      'generate',
      '--out',
      data,
      '--blocks',
      String(BLOCKS + 1),
      '--seed',
      'other',
      '--density',
      String(DENSITY),
    ]);
    assert.equal(ran.code, 2);
    assert.match(
      ran.stderr,
      new RegExp(
        '^ethlogd generate: the store at .* of another chain \\(--seed ' +
          '"cli" --density 0\\.05, not --seed "other" --density 0\\.05\\)',
        'm',
      ),
    );
  });
});

describe('a lost key is revoked by its id', () => {
  test(
    'keys revoke takes the id keys list shows, or its first 8+ ' + 'digits; an unknown or ambiguous id revokes nothing',
    async () => {
      const data = join(dir, 'revoke-by-id');
      assert.equal(
        (await cli(['generate', '--out', data, '--blocks', '3', '--seed', SEED, '--density', String(DENSITY)])).code,
        0,
      );
      const keys: string[] = [];
      for (const label of ['one', 'two'])
        keys.push(lines((await cli(['keys', 'create', '--data', data, '--label', label])).stdout).at(-1)!);
      const ids = keys.map((k) => createHash('sha256').update(k).digest('hex'));
      const unknown = await cli(['keys', 'revoke', '--data', data, 'ffffffff' + ids[0]!.slice(8)]);
      assert.equal(unknown.code, 1);
      assert.match(
        unknown.stderr,
        /no key is f+[0-9a-f]+, nor has an id starting with it \(ethlogd keys list shows the ids\)/,
      );
      const short = await cli(['keys', 'revoke', '--data', data, ids[0]!.slice(0, 5)]);
      assert.equal(short.code, 1, 'fewer than 8 digits name nothing');
      const byPrefix = await cli(['keys', 'revoke', '--data', data, ids[0]!.slice(0, 12)]);
      assert.equal(byPrefix.code, 0, byPrefix.stderr);
      const byId = await cli(['keys', 'revoke', '--data', data, ids[1]!]);
      assert.equal(byId.code, 0, byId.stderr);
      const listed = lines((await cli(['keys', 'list', '--data', data])).stdout);
      for (const id of ids) assert.match(listed.find((l) => l.startsWith(id))!, /\srevoked \d{4}-/, id);
    },
  );
});

describe('help and usage errors', () => {
  test(
    'only generate and ingest create a store: every other command on ' +
      'a missing or empty directory exits 2 and creates nothing',
    async () => {
      const typo = join(dir, 'typo');
      const empty = join(dir, 'empty');
      mkdirSync(empty);
      const every = (data: string) => [
        ['keys', 'create', '--data', data],
        ['keys', 'list', '--data', data],
        ['keys', 'revoke', '--data', data, 'ab'.repeat(32)],
        ['reindex', '--data', data],
        ['verify', '--data', data],
        ['snapshot', '--data', data, '--out', join(dir, 'snapshot-out')],
        ['query', 'logs', '--data', data],
        ['serve', '--data', data, '--port', '0'],
      ];
      // Every command on the missing directory: one that created anything before its check would
      // create it. They all check with args.ts's existingStore, which looks for the store's file, not
      // the directory: the empty directory is refused too (a writer and serve show it).
      const commands = [
        ...every(typo),
        ...every(empty).filter(([name, action]) => action === 'create' || name === 'serve'),
      ];
      // Independent commands, none of which may write: run side by side.
      for (const [args, ran] of await Promise.all(commands.map(async (args) => [args, await cli(args)] as const))) {
        assert.equal(ran.code, 2, `${args.join(' ')}: ${ran.stderr}`);
        assert.match(
          ran.stderr,
          /no store at .* \(create one with ethlogd generate or ethlogd ingest\)/,
          args.join(' '),
        );
      }
      assert.equal(existsSync(typo), false, 'the typo made no directory');
      assert.deepEqual(readdirSync(empty), [], 'the empty directory stays empty');
    },
  );

  test(
    "serve's forwarding options: refused without a node, " +
      'or naming a method never forwarded, never echoing the URL',
    async () => {
      const missing = join(dir, 'no-store');
      const secret = 'KEY-5e1f0c';
      const cases: [string[], RegExp][] = [
        [['--upstream-timeout-ms', '5'], /--upstream-timeout-ms needs --upstream URL \(or --follow-rpc URL\)/],
        [['--upstream-send'], /--upstream-send needs --upstream URL/],
        [
          ['--upstream', `http://u:${secret}@127.0.0.1:1/${secret}`, '--upstream-methods', 'eth_call,admin_peers'],
          /--upstream-methods: admin_peers is never forwarded/,
        ],
        [
          ['--upstream', `http://127.0.0.1:1/${secret}`, '--upstream-methods', 'eth_sendRawTransaction'],
          /--upstream-methods: eth_sendRawTransaction is forwarded only with --upstream-send/,
        ],
        [['--upstream', `ftp://127.0.0.1/${secret}`], /--upstream must be an http:\/\/ or https:\/\/ URL/],
      ];
      for (const [args, message] of cases) {
        const ran = await cli(['serve', '--data', missing, ...args]);
        assert.equal(ran.code, 2, `${args.join(' ')}: ${ran.stderr}`);
        assert.match(ran.stderr, message);
        assert.ok(!ran.stderr.includes(secret) && !ran.stdout.includes(secret), ran.stderr);
      }
    },
  );

  const commands = ['serve', 'generate', 'keys', 'reindex', 'verify', 'snapshot', 'workload', 'loadtest'];

  test('--version prints the version package.json declares', async () => {
    const { version } = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-V']) {
      const ran = await cli([flag]);
      assert.equal(ran.code, 0);
      assert.equal(ran.stdout, `ethlogd ${version}\n`);
    }
  });

  test('every command answers --help (and -h) with its usage and exit 0', async () => {
    const top = await cli(['--help']);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /^Usage: ethlogd <command>/);
    for (const name of commands) assert.match(top.stdout, new RegExp(`^  ${name}\\s`, 'm'), `${name} is listed`);
    const asked = commands.flatMap((name) => ['--help', '-h'].map((flag) => [name, flag] as const));
    for (const [[name, flag], ran] of await Promise.all(
      asked.map(async (pair) => [pair, await cli([...pair])] as const),
    )) {
      assert.equal(ran.code, 0, `${name} ${flag}: ${ran.stderr}`);
      assert.match(ran.stdout, new RegExp(`^Usage:(\\n  | )ethlogd ${name}`), `${name} ${flag}`);
      assert.equal(ran.stderr, '');
    }
  });

  test(
    'a bad flag, a missing value or a missing required ' + 'option exits 2 with the line and a --help pointer',
    async () => {
      const cases: [string[], RegExp][] = [
        [['generate', '--bogus'], /ethlogd generate: .*--bogus/],
        [['serve', '--data', dir, '--nope', '1'], /ethlogd serve: .*--nope/],
        [['keys', 'list', '--data', dir, '--wat'], /ethlogd keys: .*--wat/],
        [['reindex', '--frobnicate'], /ethlogd reindex: .*--frobnicate/],
        [['generate', '--blocks', '5'], /ethlogd generate: --out is required/],
        [['generate', '--out', join(dir, 'x'), '--blocks', 'many'], /ethlogd generate: --blocks must be an integer/],
        [
          ['generate', '--out', join(dir, 'x'), '--blocks', '5', '--batch-blocks', '0'],
          /ethlogd generate: --batch-blocks must be an integer from 1 to 1000000/,
        ],
        [['serve', '--data', dir, '--port', '70000'], /ethlogd serve: --port must be an integer from 0 to 65535/],
        [['keys', 'explode', '--data', dir], /ethlogd keys: unknown keys action "explode"/],
      ];
      for (const [[args, message], ran] of await Promise.all(cases.map(async (c) => [c, await cli(c[0])] as const))) {
        assert.equal(ran.code, 2, `${args.join(' ')}: ${ran.stderr}`);
        assert.match(ran.stderr, message, args.join(' '));
        assert.match(
          ran.stderr,
          new RegExp(`^ethlogd ${args[0]}: [^\\n]+\\nRun "ethlogd ${args[0]} --help" for its options\\.\\n$`),
          args.join(' '),
        );
      }
      const unknown = await cli(['frobnicate']);
      assert.equal(unknown.code, 2);
      assert.match(
        unknown.stderr,
        new RegExp(
          '^unknown command "frobnicate" \\(commands: serve, generate, ' +
            '[^\\n]*\\)\\nRun "ethlogd --help" for what each does\\.\\n$',
        ),
      );
      const none = await cli([]);
      assert.equal(none.code, 2);
      assert.match(none.stdout, /^Usage: ethlogd <command>/);
    },
  );
});
