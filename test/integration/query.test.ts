/**
 * `ethlogd query` as a pipeline runs it: the built CLI in child processes over a generated store,
 * checked against the real HTTP server on the same store. logs in jsonl equals eth_getLogs for
 * address, topic (alternatives, wildcards), hash, hex-range and pending filters; past the 10,000
 * cap, where eth_getLogs answers -32005, it streams everything (the union of smaller eth_getLogs
 * ranges); json and csv carry the same logs; --resume-from continues right after a given log; a
 * closed stdout ends it quietly, SIGINT stops it between logs with a resume position; block, tx
 * and storage print what the JSON-RPC methods answer (null when absent); errors exit non-zero with
 * one stderr line. Each query kind, each output format, the errors, the usage and the signals run
 * in child processes; the many filters, resume positions and lookup arguments beyond those run
 * queryCommand (the function the CLI runs) in this process, writing to a stream of the test's: the
 * same parsing, store and output code without a Node start-up each.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import { UsageError } from '#src/cli/args.js';
import { queryCommand } from '#src/cli/query.js';
import { CSV_COLUMNS } from '#src/render/logCsv.js';
import { generateChain } from '#src/synth/generator.js';
import { runCli, startCli } from '../support/child.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';

/** ~15,000 logs: past eth_getLogs's 10,000 cap over the whole range, generated in about two seconds. */
const BLOCKS = 600;
const DENSITY = 0.05;
const SEED = 'query';
/** Blocks per eth_getLogs call when rebuilding the whole range from capped answers: ~2,500 logs each. */
const HTTP_SPAN = 100;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const APPROVAL = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';

type RpcLog = Record<string, unknown> & { blockNumber: string | null; logIndex: string | null; topics: string[] };

let dataset: TestDataset;
let http: TestService;
/** Every log of the store, earliest to latest, as eth_getLogs renders them (one JSON text each). */
let all: string[];

/**
 * Queries run at once (child processes or in this process): a small query's time is mostly start-up, which overlaps
 * well; more would only contend for the cores.
 */
const CONCURRENCY = 4;
let running = 0;
const waiting: (() => void)[] = [];

/** Runs `run` once fewer than CONCURRENCY others run. */
async function limited<T>(run: () => Promise<T>): Promise<T> {
  if (running < CONCURRENCY) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await run();
  } finally {
    // The slot passes to the next waiter, if any.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** What a query run wrote and how it ended. */
type Ran = Awaited<ReturnType<typeof runCli>>;

/** Runs `ethlogd ARGS...` in a child process. */
function cli(args: string[]): Promise<Ran> {
  return limited(() => runCli(args));
}

/** The arguments of `ethlogd query KIND --data <store> ARGS...` (logs on two worker threads). */
function queryArgs(kind: string, args: string[]): string[] {
  return [kind, '--data', dataset.dir, ...(kind === 'logs' ? ['--threads', '2'] : []), ...args];
}

/** Runs `ethlogd query KIND --data <store> ARGS...` in a child process. */
function query(kind: string, args: string[]): Promise<Ran> {
  return cli(['query', ...queryArgs(kind, args)]);
}

/**
 * Runs the same query in this process: queryCommand writing its answers to a stream of this test's
 * (stderr is not captured: a run that writes there also exits non-zero, and the checks look at the code).
 */
function queryHere(kind: string, args: string[]): Promise<Ran> {
  return limited(async () => {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    const code = await queryCommand(queryArgs(kind, args), out);
    return { code, stdout: Buffer.concat(chunks).toString(), stderr: '' };
  });
}

/** The non-empty lines of `text`. */
function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** eth_getLogs over HTTP, each log as its JSON text; fails on an error answer. */
async function httpLogs(filter: Record<string, unknown>): Promise<string[]> {
  const logs = (await http.result('eth_getLogs', [filter])) as unknown[];
  return logs.map((l) => JSON.stringify(l));
}

/**
 * `query logs ARGS` in jsonl, in this process unless `run` says otherwise: its lines, after checking it exited 0 with
 * nothing on stderr.
 */
async function queryLogs(args: string[], run = queryHere): Promise<string[]> {
  const ran = await run('logs', args);
  assert.equal(ran.stderr, '', args.join(' '));
  assert.equal(ran.code, 0, args.join(' '));
  assert.ok(ran.stdout === '' || ran.stdout.endsWith('\n'));
  return lines(ran.stdout);
}

/** The position of a log's JSON text as --resume-from takes it. */
function position(json: string): string {
  const log = JSON.parse(json) as RpcLog;
  return `${Number(log.blockNumber)}:${Number(log.logIndex)}`;
}

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, SEED);
  http = await startTestService(dataset);
  all = [];
  for (let from = 0; from < BLOCKS; from += HTTP_SPAN) {
    all.push(
      ...(await httpLogs({
        fromBlock: quantityToHex(from),
        toBlock: quantityToHex(Math.min(BLOCKS - 1, from + HTTP_SPAN - 1)),
      })),
    );
  }
});

after(async () => {
  await http?.close();
  dataset?.remove();
});

describe('query logs against eth_getLogs', () => {
  test(
    'past the 10,000 cap eth_getLogs answers -32005; ' +
      'query streams every log, the union of smaller eth_getLogs ranges',
    async () => {
      const capped = await http.call('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]);
      assert.equal(capped.error?.code, -32005);
      assert.ok(all.length > 10_000, `${all.length} logs`);
      const [flags, json] = await Promise.all([
        queryLogs(['--from', 'earliest', '--to', 'latest'], query),
        queryLogs(['--filter', '{"fromBlock":"0x0","toBlock":"latest"}']),
      ]);
      assert.deepEqual(flags, all);
      assert.deepEqual(json, all);
    },
  );

  test('filters from flags and from --filter answer exactly what eth_getLogs answers', async () => {
    const sample = JSON.parse(all[Math.floor(all.length / 2)]!) as RpcLog;
    const counts = new Map<string, number>();
    for (const text of all) {
      const address = (JSON.parse(text) as RpcLog).address as string;
      counts.set(address, (counts.get(address) ?? 0) + 1);
    }
    const [popular, second] = [...counts].sort((a, b) => b[1] - a[1]).map(([address]) => address);
    const withTopic2 = JSON.parse(all.find((l) => (JSON.parse(l) as RpcLog).topics.length >= 3)!) as RpcLog;
    const cases: [string[], Record<string, unknown>][] = [
      [
        ['--address', popular!, '--from', '0', '--to', 'latest'],
        { address: popular, fromBlock: '0x0', toBlock: 'latest' },
      ],
      [
        ['--address', popular!, '--address', second!, '--from', '100', '--to', '400'],
        { address: [popular, second], fromBlock: '0x64', toBlock: '0x190' },
      ],
      [
        ['--address', `${popular!},${second!}`, '--from', '0x64', '--to', '0x190'],
        { address: [popular, second], fromBlock: '0x64', toBlock: '0x190' },
      ],
      [
        ['--topic0', `${TRANSFER},${APPROVAL}`, '--from', '200', '--to', '300'],
        { topics: [[TRANSFER, APPROVAL]], fromBlock: '0xc8', toBlock: '0x12c' },
      ],
      [
        ['--topic2', withTopic2.topics[2]!, '--from', '0', '--to', 'latest'],
        { topics: [null, null, withTopic2.topics[2]], fromBlock: '0x0', toBlock: 'latest' },
      ],
      [
        ['--topic0', TRANSFER, '--address', popular!, '--from', 'safe', '--to', 'pending'],
        { topics: [TRANSFER], address: popular, fromBlock: 'safe', toBlock: 'pending' },
      ],
      [['--block-hash', sample.blockHash as string], { blockHash: sample.blockHash }],
      [['--from', '590', '--to', 'pending'], { fromBlock: '0x24e', toBlock: 'pending' }],
      [[], {}],
    ];
    await Promise.all(
      cases.map(async ([args, filter]) => {
        const expected = await httpLogs(filter);
        assert.ok(expected.length > 0, `${JSON.stringify(filter)} matches something`);
        // --filter hands its JSON to the same parser whatever it holds: a few shapes are enough.
        const asJson = filter.blockHash !== undefined || filter.toBlock === 'pending' || Array.isArray(filter.topics);
        const [flags, json] = await Promise.all([
          queryLogs(args),
          asJson ? queryLogs(['--filter', JSON.stringify(filter)]) : expected,
        ]);
        assert.deepEqual(flags, expected, args.join(' '));
        assert.deepEqual(json, expected, `--filter ${JSON.stringify(filter)}`);
        if (filter.toBlock === 'pending' && !filter.address) {
          assert.ok(
            flags.some((l) => (JSON.parse(l) as RpcLog).blockNumber === null),
            'the pending block has logs, positions null',
          );
        }
      }),
    );
    assert.deepEqual(await queryLogs(['--address', '0x' + '00'.repeat(20), '--from', '0', '--to', 'latest']), []);
  });

  test('json is one array of the same logs (also when empty); csv has the same logs row by row', async () => {
    const nothing = ['--from', '5', '--to', '5', '--address', '0x' + '00'.repeat(20)];
    const [json, none, csv, empty] = await Promise.all([
      query('logs', ['--from', '0', '--to', 'latest', '--format', 'json']),
      queryHere('logs', [...nothing, '--format', 'json']),
      query('logs', ['--from', '0', '--to', 'latest', '--format', 'csv']),
      queryHere('logs', [...nothing, '--format', 'csv']),
    ]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      JSON.parse(json.stdout),
      all.map((l) => JSON.parse(l) as unknown),
    );
    assert.equal(none.stdout, '[]\n');

    assert.equal(csv.code, 0, csv.stderr);
    const [header, ...rows] = lines(csv.stdout);
    assert.equal(header, CSV_COLUMNS.join(','));
    const decimal = (hex: unknown) => (hex === null ? '' : String(Number(hex)));
    const expected = all.map((text) => {
      const log = JSON.parse(text) as RpcLog;
      const topics = [0, 1, 2, 3].map((i) => log.topics[i] ?? '');
      return [
        decimal(log.blockNumber),
        decimal(log.logIndex),
        decimal(log.transactionIndex),
        log.transactionHash,
        log.blockHash,
        decimal(log.blockTimestamp),
        log.address,
        ...topics,
        log.data,
        String(log.removed),
      ].join(',');
    });
    assert.deepEqual(rows, expected);
    assert.equal(empty.stdout, CSV_COLUMNS.join(',') + '\n');
  });

  test(
    '--resume-from BLOCK:LOGINDEX continues right after ' + 'that log (decimal or hex), nothing after the last',
    async () => {
      const log = JSON.parse(all[5000]!) as RpcLog;
      const filtered = await httpLogs({ topics: [TRANSFER], fromBlock: '0x0', toBlock: '0x12b' });
      const [first, middle, hex, last, filteredRest] = await Promise.all([
        queryLogs(['--from', '0', '--to', 'latest', '--resume-from', position(all[0]!)]),
        queryLogs(['--from', '0', '--to', 'latest', '--resume-from', position(all[all.length - 100]!)]),
        queryLogs(['--from', '0', '--to', 'latest', '--resume-from', `${log.blockNumber}:${log.logIndex}`]),
        queryLogs(['--from', '0', '--to', 'latest', '--resume-from', position(all.at(-1)!)]),
        queryLogs(['--topic0', TRANSFER, '--from', '0', '--to', '299', '--resume-from', position(filtered[100]!)]),
      ]);
      assert.deepEqual(first, all.slice(1));
      assert.deepEqual(middle, all.slice(all.length - 99));
      assert.deepEqual(hex, all.slice(5001));
      assert.deepEqual(last, []);
      assert.deepEqual(filteredRest, filtered.slice(101));
    },
  );
});

describe('query logs in a pipeline', () => {
  test('a closed stdout (a reader that took one line) ends it promptly, exit 0, nothing on stderr', {
    timeout: 20_000,
  }, async () => {
    const p = startCli(['query', 'logs', '--data', dataset.dir, '--from', '0', '--to', 'latest']);
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (p.stdout().includes('\n')) {
          p.child.stdout!.off('data', check);
          resolve();
        }
      };
      p.child.stdout!.on('data', check);
      void p.exited.then((code) => reject(new Error(`exited (${code}) before its first line: ${p.stderr()}`)));
    });
    p.child.stdout!.destroy();
    assert.equal(await p.exited, 0);
    assert.equal(p.stderr(), '');
    assert.ok(all.includes(lines(p.stdout())[0]!), 'the first line is a whole log');
  });

  test('SIGINT stops it between two logs (exit 130) and names the ' +
    'position to resume from; resumed, nothing is missed', {
    timeout: 30_000,
  }, async () => {
    const p = startCli(['query', 'logs', '--data', dataset.dir, '--from', '0', '--to', 'latest']);
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (p.stdout().includes('\n')) {
          // Stop reading: the child fills the pipe and waits for it to drain, mid-stream.
          p.child.stdout!.pause();
          p.child.stdout!.off('data', check);
          resolve();
        }
      };
      p.child.stdout!.on('data', check);
      void p.exited.then((code) => reject(new Error(`exited (${code}) before its first line: ${p.stderr()}`)));
    });
    p.child.kill('SIGINT');
    const hint = await p.waitForStderr(/^ethlogd query: interrupted; resume with --resume-from (\d+:\d+)\n$/);
    p.child.stdout!.resume();
    assert.equal(await p.exited, 130);
    const written = lines(p.stdout());
    assert.ok(p.stdout().endsWith('\n'), 'output stops between two logs');
    assert.ok(written.length < all.length, 'stopped before the end');
    assert.deepEqual(written, all.slice(0, written.length));
    assert.equal(hint[1], position(written.at(-1)!));
    const rest = await queryLogs(['--from', '0', '--to', 'latest', '--resume-from', hint[1]!]);
    assert.deepEqual([...written, ...rest], all);
  });

  test('errors exit non-zero with one clear stderr line (usage errors 2, with the usage)', async () => {
    const failures: [string, string[], RegExp][] = [
      [
        'logs',
        ['--filter', '{"fromBlock":"0x10","toBlock":"0x5"}'],
        /^ethlogd query: error -32602: invalid block range params\n$/,
      ],
      ['logs', ['--address', '0x12'], /^ethlogd query: error -32602: invalid argument 0: invalid address.*\n$/],
      [
        'logs',
        ['--filter', '{"blockHash":"0x' + '11'.repeat(32) + '","fromBlock":"0x1"}'],
        new RegExp(
          '^ethlogd query: error -32602: invalid argument 0: cannot specify both ' +
            'BlockHash and FromBlock\\/ToBlock, choose one or the other\\n$',
        ),
      ],
      [
        'logs',
        ['--from', '0', '--to', 'latest', '--timeout-ms', '1'],
        new RegExp(
          '^ethlogd query: error -32005: query timeout exceeded(; resume with --resume-from ' +
            '\\d+:\\d+|; no log was written yet: run it again with a larger --timeout-ms)\\n$',
        ),
      ],
      [
        'storage',
        ['--address', '0x' + '11'.repeat(20), '--slot', '0', '--block', '100000'],
        /^ethlogd query: error -32000: header not found\n$/,
      ],
      ['block', ['--block', '0x' + '11'.repeat(20)], /^ethlogd query: error -32602: .*\n$/],
    ];
    await Promise.all(
      failures.map(async ([kind, args, message]) => {
        const ran = await query(kind, args);
        assert.equal(ran.code, 1, `${kind} ${args.join(' ')}: ${ran.stderr}`);
        assert.match(ran.stderr, message, `${kind} ${args.join(' ')}`);
        assert.equal(ran.stdout, '', `${kind} ${args.join(' ')} writes nothing`);
      }),
    );

    const missing = join(dataset.dir, 'no-such-store');
    const absent = await cli(['query', 'logs', '--data', missing]);
    assert.equal(absent.code, 2, 'a missing store is a usage error (only generate and ingest create one)');
    assert.ok(
      absent.stderr.startsWith(
        `ethlogd query: no store at ${missing} (create one with ethlogd generate or ethlogd ingest)\n`,
      ),
      absent.stderr,
    );
    assert.ok(!existsSync(missing), 'nothing is created');

    // Every usage error is thrown by queryCommand before anything is read or written (checked in
    // this process); the CLI prints one as a stderr line with the usage and exits 2 (checked in
    // child processes for a logs and a lookup error).
    const usage: [string[], RegExp][] = [
      [['logs', '--bogus'], /^.*--bogus/],
      [['logs', '--filter', '{nope'], /^--filter is not valid JSON/],
      [['logs', '--filter', '[]'], /^--filter must be a JSON object/],
      [['logs', '--filter', '{}', '--topic0', TRANSFER], /^--filter cannot be combined with --topic0/],
      [['logs', '--format', 'xml'], /^--format must be one of jsonl, json, csv/],
      [['logs', '--from', 'yesterday'], /^--from must be a block number/],
      [['logs', '--resume-from', '12'], /^--resume-from must be BLOCK:LOGINDEX/],
      [['logs', '--timeout-ms', 'soon'], /^--timeout-ms must be an integer/],
      [['tx', '--hash', '0x' + '11'.repeat(32), '--index', '1'], /^give either --hash, or --block and --index/],
      [['tx', '--block', '1', '--index', 'two'], /^--index must be a non-negative integer/],
      [['block'], /^--block is required/],
      [['frobnicate'], /^unknown query "frobnicate"/],
    ];
    await Promise.all(
      usage.map(([args, message]) =>
        assert.rejects(
          queryHere(args[0]!, args.slice(1)),
          (error: Error) => error instanceof UsageError && message.test(error.message),
          args.join(' '),
        ),
      ),
    );
    await Promise.all(
      [usage[4]!, usage[9]!].map(async ([args, message]) => {
        const ran = await query(args[0]!, args.slice(1));
        assert.equal(ran.code, 2, `${args.join(' ')}: ${ran.stderr}`);
        assert.match(ran.stderr, new RegExp(`^ethlogd query: ${message.source.slice(1)}`), args.join(' '));
        assert.match(
          ran.stderr,
          /\nRun "ethlogd query --help" for its options\.\n$/,
          `${args.join(' ')} points at --help`,
        );
      }),
    );
    const bare = await cli(['query']);
    assert.equal(bare.code, 2);
    assert.match(bare.stdout, /^Usage:\n {2}ethlogd query logs/);
  });

  test('--help: query, query logs and the lookups print the usage with every option, exit 0', async () => {
    const helps = [
      ['query', '--help'],
      ['query', '-h'],
      ['query', 'logs', '--help'],
      ['query', 'block', '-h'],
      ['query', 'storage', '--help'],
    ];
    await Promise.all(
      helps.map(async (args) => {
        const ran = await cli(args);
        assert.equal(ran.code, 0, args.join(' '));
        assert.equal(ran.stderr, '');
        assert.match(ran.stdout, /^Usage:\n {2}ethlogd query logs --data DIR/);
        for (const option of [
          '--filter',
          '--address',
          '--topic0',
          '--from',
          '--to',
          '--block-hash',
          '--format',
          '--timeout-ms',
          '--resume-from',
          '--threads',
          '--block',
          '--full',
          '--hash',
          '--index',
          '--slot',
          '--data',
        ]) {
          assert.match(ran.stdout, new RegExp(`^  ${option}\\b`, 'm'), `${option} is described`);
        }
      }),
    );
    const top = await cli(['--help']);
    assert.match(top.stdout, /^ {2}query\s/m);
  });
});

describe('query block, tx and storage against the JSON-RPC methods', () => {
  /** `query KIND ARGS`, in this process unless `run` says otherwise: its one stdout line, exit 0, nothing on stderr. */
  async function one(kind: string, args: string[], run = queryHere): Promise<string> {
    const ran = await run(kind, args);
    assert.equal(ran.code, 0, `${kind} ${args.join(' ')}: ${ran.stderr}`);
    assert.equal(ran.stderr, '');
    assert.ok(ran.stdout.endsWith('\n') && lines(ran.stdout).length === 1, ran.stdout);
    return ran.stdout.slice(0, -1);
  }

  /** What the HTTP method answers, as JSON text. */
  async function answer(method: string, params: unknown[]): Promise<string> {
    return JSON.stringify(await http.result(method, params));
  }

  test('blocks by number, tag and hash, with hashes or full transactions; null for an absent block', async () => {
    const seven = JSON.parse(await answer('eth_getBlockByNumber', ['0x7', false])) as { hash: string };
    const cases: [string[], string, unknown[]][] = [
      [['--block', '7'], 'eth_getBlockByNumber', ['0x7', false]],
      [['--block', '0x7', '--full'], 'eth_getBlockByNumber', ['0x7', true]],
      [['--block', 'latest', '--full'], 'eth_getBlockByNumber', ['latest', true]],
      [['--block', 'earliest'], 'eth_getBlockByNumber', ['earliest', false]],
      [['--block', 'finalized'], 'eth_getBlockByNumber', ['finalized', false]],
      [['--block', 'pending', '--full'], 'eth_getBlockByNumber', ['pending', true]],
      [['--block', seven.hash], 'eth_getBlockByHash', [seven.hash, false]],
      [['--block', seven.hash, '--full'], 'eth_getBlockByHash', [seven.hash, true]],
    ];
    cases.push(
      [['--block', '100000'], 'eth_getBlockByNumber', ['0x186a0', false]],
      [['--block', '0x' + '11'.repeat(32)], 'eth_getBlockByHash', ['0x' + '11'.repeat(32), false]],
    );
    // One case in a child process: the CLI's own output and exit; the rest in this process.
    await Promise.all(
      cases.map(async ([args, method, params], i) =>
        assert.equal(
          await one('block', args, i === 7 ? query : queryHere),
          await answer(method, params),
          args.join(' '),
        ),
      ),
    );
    assert.equal(
      await answer('eth_getBlockByNumber', ['0x186a0', false]),
      'null',
      'absent: null, as the method answers',
    );
  });

  test('transactions by hash and by block and index (canonical and pending); null when absent', async () => {
    const block = JSON.parse(await answer('eth_getBlockByNumber', ['0x9', false])) as {
      hash: string;
      transactions: string[];
    };
    const pending = JSON.parse(await answer('eth_getBlockByNumber', ['pending', false])) as { transactions: string[] };
    assert.ok(block.transactions.length > 2 && pending.transactions.length > 0);
    const cases: [string[], string, unknown[]][] = [
      [['--hash', block.transactions[2]!], 'eth_getTransactionByHash', [block.transactions[2]]],
      [['--hash', pending.transactions[0]!], 'eth_getTransactionByHash', [pending.transactions[0]]],
      [['--block', '9', '--index', '2'], 'eth_getTransactionByBlockNumberAndIndex', ['0x9', '0x2']],
      [['--block', '0x9', '--index', '0x1'], 'eth_getTransactionByBlockNumberAndIndex', ['0x9', '0x1']],
      [['--block', block.hash, '--index', '0'], 'eth_getTransactionByBlockHashAndIndex', [block.hash, '0x0']],
      [['--block', 'pending', '--index', '0'], 'eth_getTransactionByBlockNumberAndIndex', ['pending', '0x0']],
    ];
    const absent = [
      ['--hash', '0x' + '22'.repeat(32)],
      ['--block', '9', '--index', '100000'],
      ['--block', '100000', '--index', '0'],
    ];
    await Promise.all([
      // One case in a child process: the CLI's own output and exit; the rest in this process.
      ...cases.map(async ([args, method, params], i) =>
        assert.equal(await one('tx', args, i === 0 ? query : queryHere), await answer(method, params), args.join(' ')),
      ),
      ...absent.map(async (args) => assert.equal(await one('tx', args), 'null', args.join(' '))),
    ]);
  });

  test(
    'storage at latest, at a block, by block hash, ' + 'slot in hex or decimal: the eth_getStorageAt string',
    async () => {
      const chain = [...generateChain({ blocks: BLOCKS, seed: SEED, density: DENSITY })];
      const writer = chain.find((b) => b.header.number > 0 && b.storage.length > 0)!;
      const write = writer.storage[0]!;
      const address = bytesToHex(write.address);
      const slot = bytesToHex(write.slot);
      const number = quantityToHex(writer.header.number);
      const before = quantityToHex(writer.header.number - 1);
      const hash = bytesToHex(writer.header.hash);
      const value = await answer('eth_getStorageAt', [address, slot, number]);
      assert.notEqual(value, JSON.stringify('0x' + '00'.repeat(32)), 'a slot with a value');
      const cases: [string[], unknown[]][] = [
        [
          ['--slot', slot],
          [address, slot, 'latest'],
        ],
        [
          ['--slot', slot, '--block', number],
          [address, slot, number],
        ],
        [
          ['--slot', slot, '--block', String(writer.header.number)],
          [address, slot, number],
        ],
        [
          ['--slot', slot, '--block', hash],
          [address, slot, { blockHash: hash }],
        ],
        [
          ['--slot', slot, '--block', before],
          [address, slot, before],
        ],
        [
          ['--slot', '0'],
          [address, '0x0', 'latest'],
        ],
      ];
      // One case in a child process: the CLI's own output and exit; the rest in this process.
      await Promise.all(
        cases.map(async ([args, params], i) =>
          assert.equal(
            await one('storage', ['--address', address, ...args], i === 3 ? query : queryHere),
            await answer('eth_getStorageAt', params),
            args.join(' '),
          ),
        ),
      );
    },
  );
});
