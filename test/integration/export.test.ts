/**
 * `ethlogd export` through the real CLI into real files, read back by DuckDB: on a generated chain
 * served by the real service on an ephemeral port, every file of every datatype has the columns and
 * types docs/export.md lists, and per chunk the same rows, field by field, as eth_getLogs,
 * eth_getBlockByNumber (full) and eth_getBlockReceipts answer for its blocks; a filtered logs
 * export the rows of the same filter; --hex the same values as text; logs in every compression the
 * same rows; the same on a chain anvil mined
 * and ingest copied (when anvil is installed). Files are deterministic, an
 * export killed with SIGKILL at seeded random moments and rerun ends byte-identical to an
 * uninterrupted one with no partial file under a final name ever, Ctrl-C stops with complete files
 * only, and usage errors exit 2.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { bytesToHex } from '#src/chain/hex.js';
import { runExport } from '#src/export/exporter.js';
import { type ExportKind, SCHEMAS, type SchemaType } from '#src/export/schemas.js';
import { runIngest } from '#src/ingest/ingest.js';
import { createLogger } from '#src/logger.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil } from '../support/anvil.js';
import { runCli, startCli } from '../support/child.js';
import { makeDataset, startTestService, type TestDataset, type TestService } from '../support/harness.js';
import { Workload } from '../support/workload.js';
import { Rng } from '../unit/store/fixtures.js';

type Obj = Record<string, unknown>;

/** Blocks of the served chain: every fork era (0–23), and a last chunk shorter than the others. */
const BLOCKS = 90;
/** Blocks per file in the served chain's exports: four chunks, the last one of 15 blocks. */
const CHUNK = 25;
/** The crash test's chain: about 40,000 logs in 40 files, so an export runs long enough to be killed mid-way. */
const CRASH_BLOCKS = 240;
const CRASH_CHUNK = 6;
/** The compressions besides the default zstd, each of which a logs export is also written in. */
const OTHER_CODECS = ['snappy', 'lz4', 'none'];
/** SIGKILLs of the crash test, at seeded moments. */
const KILLS = 3;
const SEED = 17;

let dataset: TestDataset;
let svc: TestService;
let db: DuckDBConnection;
let work: string;

before(async () => {
  dataset = await makeDataset(BLOCKS, 0.05, 'export');
  svc = await startTestService(dataset);
  db = await (await DuckDBInstance.create(':memory:')).connect();
  work = mkdtempSync(join(tmpdir(), 'ethlogd-export-'));
});

after(async () => {
  db.closeSync();
  await svc.close();
  dataset.remove();
  rmSync(work, { recursive: true, force: true });
});

/** Runs `ethlogd export ...` and asserts it succeeded. */
async function exportOk(args: string[]): Promise<string> {
  const r = await runCli(['export', ...args]);
  assert.equal(r.code, 0, `ethlogd export ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The rows of a Parquet file as DuckDB reads them, blobs as 0x-hex, integers (u32 and u64) as bigints. */
async function rows(path: string): Promise<Obj[]> {
  const reader = await db.runAndReadAll(`SELECT * FROM read_parquet('${path}')`);
  const integer = reader.columnTypes().map((t) => String(t) === 'UINTEGER');
  const names = reader.columnNames();
  return reader.getRows().map((row) => {
    const out: Obj = {};
    row.forEach((v, i) => {
      const k = names[i]!;
      if (v !== null && typeof v === 'object' && 'bytes' in v) out[k] = bytesToHex((v as { bytes: Uint8Array }).bytes);
      else if (integer[i] && typeof v === 'number') out[k] = BigInt(v);
      else out[k] = v;
    });
    return out;
  });
}

/** DuckDB's type of each documented column type. */
function duckType(type: SchemaType, hex: boolean): string {
  return {
    u32: 'UINTEGER',
    u64: 'UBIGINT',
    f64: 'DOUBLE',
    bool: 'BOOLEAN',
    bytes: hex ? 'VARCHAR' : 'BLOB',
    string: 'VARCHAR',
  }[type];
}

/** Asserts `path` has exactly the columns of `kind`, in order, with their documented types. */
async function assertSchema(path: string, kind: ExportKind, hex: boolean): Promise<void> {
  const described = (await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`))
    .getRows()
    .map((r) => `${String(r[0])} ${String(r[1])}`);
  assert.deepEqual(
    described,
    SCHEMAS[kind].map((c) => `${c.name} ${duckType(c.type, hex)}`),
    `${path}: columns and types`,
  );
}

/** A JSON-RPC quantity as a bigint (null stays null). */
function q(value: unknown): bigint | null {
  return value === null || value === undefined ? null : BigInt(value as string);
}

/** A 256-bit quantity as the 32-byte hex word. */
function word(value: unknown): string {
  return (
    '0x' +
    BigInt(value as string)
      .toString(16)
      .padStart(64, '0')
  );
}

/** The files of `dir`, sorted. */
function files(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.ethlogd-export-'))
    .sort();
}

/** The chunks of an export of `blocks` blocks from 0 in files of `size`: [from, to] per file. */
function chunks(blocks = BLOCKS, size = CHUNK): [number, number][] {
  const out: [number, number][] = [];
  for (let from = 0; from < blocks; from += size) out.push([from, Math.min(blocks - 1, from + size - 1)]);
  return out;
}

/** The file name of chunk [from, to] of `kind` on `network` (the generated chain's id is 1: ethereum). */
function fileName(kind: ExportKind, from: number, to: number, network = 'ethereum'): string {
  const pad = (n: number) => String(n).padStart(8, '0');
  return `${network}__${kind}__${pad(from)}_to_${pad(to)}.parquet`;
}

/** A log as eth_getLogs answers it, rebuilt from an exported row. */
function logFromRow(r: Obj): Obj {
  return {
    address: r.address,
    topics: [r.topic0, r.topic1, r.topic2, r.topic3].filter((t) => t !== null),
    data: r.data,
    blockNumber: r.block_number,
    transactionHash: r.transaction_hash,
    transactionIndex: r.transaction_index,
    blockHash: r.block_hash,
    blockTimestamp: r.block_timestamp,
    logIndex: r.log_index,
    removed: r.removed,
  };
}

/** The same fields of an eth_getLogs log, quantities as bigints. */
function logFromRpc(l: Obj): Obj {
  return {
    ...l,
    blockNumber: q(l.blockNumber),
    transactionIndex: q(l.transactionIndex),
    blockTimestamp: q(l.blockTimestamp),
    logIndex: q(l.logIndex),
  };
}

/** Compares every logs file of `out` with `served`'s eth_getLogs over its chunk; returns the logs compared. */
async function compareLogs(
  served: TestService,
  out: string,
  network: string,
  chunkList: [number, number][],
  chainId: bigint,
): Promise<number> {
  let total = 0;
  for (const [from, to] of chunkList) {
    const path = join(out, fileName('logs', from, to, network));
    await assertSchema(path, 'logs', false);
    const got = await rows(path);
    const want = (await served.result('eth_getLogs', [
      { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` },
    ])) as Obj[];
    assert.equal(got.length, want.length, `blocks ${from}-${to}: rows`);
    assert.deepEqual(got.map(logFromRow), want.map(logFromRpc), `blocks ${from}-${to}`);
    for (const r of got) {
      assert.equal(r.n_data_bytes, BigInt(((r.data as string).length - 2) / 2));
      assert.equal(r.chain_id, chainId);
    }
    total += got.length;
  }
  return total;
}

/** Compares every blocks file of `out` with `served`'s eth_getBlockByNumber. */
async function compareBlocks(
  served: TestService,
  out: string,
  network: string,
  chunkList: [number, number][],
  chainId: bigint,
): Promise<void> {
  for (const [from, to] of chunkList) {
    const path = join(out, fileName('blocks', from, to, network));
    await assertSchema(path, 'blocks', false);
    const got = await rows(path);
    const want: Obj[] = [];
    for (let n = from; n <= to; n++) {
      const b = (await served.result('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as Obj;
      const td = BigInt(b.totalDifficulty as string);
      want.push({
        block_hash: b.hash,
        parent_hash: b.parentHash,
        uncles_hash: b.sha3Uncles,
        author: b.miner,
        state_root: b.stateRoot,
        transactions_root: b.transactionsRoot,
        receipts_root: b.receiptsRoot,
        block_number: q(b.number),
        gas_used: q(b.gasUsed),
        gas_limit: q(b.gasLimit),
        extra_data: b.extraData,
        logs_bloom: b.logsBloom,
        timestamp: q(b.timestamp),
        difficulty: q(b.difficulty),
        total_difficulty_binary: word(b.totalDifficulty),
        total_difficulty_string: td.toString(),
        total_difficulty_f64: Number(td),
        size: q(b.size),
        mix_hash: b.mixHash,
        nonce: b.nonce,
        base_fee_per_gas: q(b.baseFeePerGas),
        withdrawals_root: b.withdrawalsRoot ?? null,
        chain_id: chainId,
        transaction_count: BigInt((b.transactions as unknown[]).length),
        n_withdrawals: b.withdrawals === undefined ? null : BigInt((b.withdrawals as unknown[]).length),
        blob_gas_used: q(b.blobGasUsed),
        excess_blob_gas: q(b.excessBlobGas),
        parent_beacon_block_root: b.parentBeaconBlockRoot ?? null,
        requests_hash: b.requestsHash ?? null,
      });
    }
    assert.deepEqual(got, want, `blocks ${from}-${to}`);
  }
}

/**
 * Compares every transactions and receipts file of `out` with `served`'s eth_getBlockByNumber (full) and
 * eth_getBlockReceipts; returns the transaction types seen.
 */
async function compareTransactions(
  served: TestService,
  out: string,
  network: string,
  chunkList: [number, number][],
  chainId: bigint,
): Promise<bigint[]> {
  const types = new Set<bigint>();
  for (const [from, to] of chunkList) {
    const txPath = join(out, fileName('transactions', from, to, network));
    const receiptPath = join(out, fileName('receipts', from, to, network));
    await assertSchema(txPath, 'transactions', false);
    await assertSchema(receiptPath, 'receipts', false);
    const txRows = await rows(txPath);
    const receiptRows = await rows(receiptPath);
    const wantTxs: Obj[] = [];
    const wantReceipts: Obj[] = [];
    for (let n = from; n <= to; n++) {
      const b = (await served.result('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as Obj;
      const receipts = (await served.result('eth_getBlockReceipts', [`0x${n.toString(16)}`])) as Obj[];
      (b.transactions as Obj[]).forEach((t, i) => {
        const r = receipts[i]!;
        const input = Buffer.from((t.input as string).slice(2), 'hex');
        const zeros = input.filter((x) => x === 0).length;
        const value = BigInt(t.value as string);
        const parity =
          t.yParity !== undefined
            ? BigInt(t.yParity as string)
            : BigInt(t.v as string) <= 28n
              ? BigInt(t.v as string) - 27n
              : (BigInt(t.v as string) - 35n) % 2n;
        wantTxs.push({
          block_number: q(b.number),
          transaction_index: BigInt(i),
          transaction_hash: t.hash,
          nonce: q(t.nonce),
          from_address: t.from,
          to_address: t.to,
          value_binary: word(t.value),
          value_string: value.toString(),
          value_f64: Number(value),
          input: t.input,
          gas_limit: q(t.gas),
          gas_used: q(r.gasUsed),
          gas_price: q(t.gasPrice),
          transaction_type: q(t.type),
          max_priority_fee_per_gas: q(t.maxPriorityFeePerGas),
          max_fee_per_gas: q(t.maxFeePerGas),
          success: r.status === undefined ? null : r.status === '0x1',
          n_input_bytes: BigInt(input.length),
          n_input_zero_bytes: BigInt(zeros),
          n_input_nonzero_bytes: BigInt(input.length - zeros),
          block_hash: b.hash,
          chain_id: chainId,
          timestamp: q(b.timestamp),
          r: word(t.r),
          s: word(t.s),
          v: parity === 1n,
          max_fee_per_blob_gas: q(t.maxFeePerBlobGas),
          blob_versioned_hashes:
            t.blobVersionedHashes === undefined
              ? null
              : '0x' + (t.blobVersionedHashes as string[]).map((h) => h.slice(2)).join(''),
          n_authorizations:
            t.authorizationList === undefined ? null : BigInt((t.authorizationList as unknown[]).length),
          extra_fields: null,
        });
        types.add(BigInt(t.type as string));
        wantReceipts.push({
          block_number: q(r.blockNumber),
          block_hash: r.blockHash,
          transaction_index: q(r.transactionIndex),
          transaction_hash: r.transactionHash,
          transaction_type: q(r.type),
          from_address: r.from,
          to_address: r.to,
          contract_address: r.contractAddress,
          success: r.status === undefined ? null : r.status === '0x1',
          root: r.root ?? null,
          gas_used: q(r.gasUsed),
          cumulative_gas_used: q(r.cumulativeGasUsed),
          effective_gas_price: q(r.effectiveGasPrice),
          blob_gas_used: q(r.blobGasUsed),
          blob_gas_price: q(r.blobGasPrice),
          n_logs: BigInt((r.logs as unknown[]).length),
          logs_bloom: r.logsBloom,
          chain_id: chainId,
          block_timestamp: q(b.timestamp),
          extra_fields: null,
        });
      });
    }
    // The encoding's length is checked against the input it must contain; the rest field by field.
    for (const row of txRows)
      assert.ok((row.n_rlp_bytes as bigint) > (row.n_input_bytes as bigint), 'the encoding holds the input');
    assert.deepEqual(
      txRows.map(({ n_rlp_bytes: _, ...rest }) => rest),
      wantTxs,
      `transactions of blocks ${from}-${to}`,
    );
    assert.deepEqual(receiptRows, wantReceipts, `receipts of blocks ${from}-${to}`);
  }
  return [...types].sort();
}

describe('a generated chain, against the served JSON-RPC answers', () => {
  let out: string;
  let chainId: bigint;

  let filter: Obj;

  // Every export the tests read runs here, concurrently: each is a process of its own.
  before(async () => {
    out = join(work, 'all');
    chainId = BigInt((await svc.result('eth_chainId', [])) as string);
    const logs = (await svc.result('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x0' }])) as Obj[];
    filter = {
      fromBlock: '0x0',
      toBlock: 'latest',
      address: logs[0]!.address,
      topics: [(logs[0]!.topics as string[])[0]],
    };
    // One worker thread each (the machine's cores are shared by the thirteen processes), but the logs export's two.
    const chunk = ['--data', dataset.dir, '--chunk-blocks', String(CHUNK), '--threads', '1'];
    const firstChunk = [...chunk, '--to', String(CHUNK - 1)];
    await Promise.all([
      exportOk(['logs', ...chunk, '--threads', '2', '--out', out]),
      ...['blocks', 'transactions', 'receipts'].map((kind) => exportOk([kind, ...chunk, '--out', out])),
      exportOk(['logs', ...chunk, '--out', join(work, 'filtered'), '--filter', JSON.stringify(filter)]),
      exportOk(['logs', ...chunk, '--out', join(work, 'hex'), '--hex', '--compression', 'snappy']),
      ...['lz4', 'none'].map((compression) =>
        exportOk(['transactions', ...firstChunk, '--out', join(work, compression), '--compression', compression]),
      ),
      ...OTHER_CODECS.map((compression) =>
        exportOk(['logs', ...chunk, '--out', join(work, `logs-${compression}`), '--compression', compression]),
      ),
      exportOk(['logs', ...chunk, '--out', join(work, 'again')]),
      exportOk(['blocks', ...chunk, '--out', join(work, 'rerun'), '--to', '59']),
    ]);
  });

  test('files are named as cryo names them, one per chunk, with no temporary left', () => {
    const expected = ['blocks', 'logs', 'receipts', 'transactions'].flatMap((kind) =>
      chunks().map(([from, to]) => fileName(kind as ExportKind, from, to)),
    );
    assert.deepEqual(files(out), expected.sort());
  });

  test('logs: every row of every chunk equals eth_getLogs over its blocks', async () => {
    assert.ok((await compareLogs(svc, out, 'ethereum', chunks(), chainId)) > 500, 'the chain has logs to compare');
  });

  test('blocks: every row equals eth_getBlockByNumber', async () => {
    await compareBlocks(svc, out, 'ethereum', chunks(), chainId);
  });

  test('transactions and receipts: every row equals eth_getBlockByNumber (full) and eth_getBlockReceipts', async () => {
    assert.deepEqual(
      await compareTransactions(svc, out, 'ethereum', chunks(), chainId),
      [0n, 1n, 2n, 3n, 4n],
      'every transaction type was compared',
    );
  });

  test(
    'a filtered logs export (address and topic0, ' + '--filter JSON) has the rows of the same eth_getLogs filter',
    async () => {
      const dir = join(work, 'filtered');
      const got = (await Promise.all(files(dir).map((f) => rows(join(dir, f))))).flat();
      const want = (await svc.result('eth_getLogs', [filter])) as Obj[];
      assert.ok(want.length > 1, 'the filter matches logs');
      assert.deepEqual(got.map(logFromRow), want.map(logFromRpc));
    },
  );

  test('--hex writes the same values as 0x-hex text', async () => {
    const dir = join(work, 'hex');
    for (const [from, to] of chunks()) {
      const path = join(dir, fileName('logs', from, to));
      await assertSchema(path, 'logs', true);
      assert.deepEqual(await rows(path), await rows(join(out, fileName('logs', from, to))), `blocks ${from}-${to}`);
    }
  });

  test(
    'snappy, lz4 and none read back the same rows as zstd (logs, ' +
      'and transactions in lz4 and none); the same export twice gives the same bytes',
    async () => {
      const path = fileName('transactions', 0, CHUNK - 1);
      for (const compression of ['lz4', 'none'])
        assert.deepEqual(await rows(join(work, compression, path)), await rows(join(out, path)), compression);
      for (const compression of OTHER_CODECS) {
        for (const [from, to] of chunks()) {
          const name = fileName('logs', from, to);
          assert.deepEqual(
            await rows(join(work, `logs-${compression}`, name)),
            await rows(join(out, name)),
            `${compression}: ${name}`,
          );
        }
      }
      const again = join(work, 'again');
      for (const name of files(again))
        assert.ok(readFileSync(join(again, name)).equals(readFileSync(join(out, name))), name);
    },
  );

  test('a rerun skips complete files, removes temporaries and replaces a shorter chunk at the head', async () => {
    const dir = join(work, 'rerun');
    assert.ok(files(dir).includes(fileName('blocks', 50, 59)));
    writeFileSync(join(dir, `.${fileName('blocks', 75, 89)}.tmp`), 'partial');
    const stdout = await exportOk(['blocks', '--data', dataset.dir, '--out', dir, '--chunk-blocks', String(CHUNK)]);
    assert.match(stdout, /2 files written, 2 skipped, 2 removed/);
    assert.deepEqual(
      files(dir),
      chunks().map(([from, to]) => fileName('blocks', from, to)),
    );
    for (const name of files(dir)) assert.ok(readFileSync(join(dir, name)).equals(readFileSync(join(out, name))), name);
  });

  test('a rerun with other options is refused, changing nothing; --overwrite replaces the files', async () => {
    const dir = join(work, 'rerun');
    const before = files(dir).map((name) => readFileSync(join(dir, name)));
    const refused = await runCli([
      'export',
      'blocks',
      '--data',
      dataset.dir,
      '--out',
      dir,
      '--chunk-blocks',
      String(CHUNK),
      '--hex',
    ]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(
        'holds 4 blocks files written with other options \\(no --hex\\): export into another ' +
          'directory, run again with those options to resume, or pass --overwrite',
      ),
    );
    assert.deepEqual(
      files(dir).map((name) => readFileSync(join(dir, name))),
      before,
      'nothing changed',
    );
    assert.deepEqual(JSON.parse(readFileSync(join(dir, '.ethlogd-export-ethereum__blocks.json'), 'utf8')), {
      chunkBlocks: CHUNK,
      compression: 'zstd',
      hex: false,
      addresses: [],
      topics: [],
    });
    const replaced = await exportOk([
      'blocks',
      '--data',
      dataset.dir,
      '--out',
      dir,
      '--chunk-blocks',
      String(CHUNK),
      '--hex',
      '--overwrite',
    ]);
    assert.match(replaced, /4 files written, 0 skipped, 4 removed/);
    for (const [from, to] of chunks()) await assertSchema(join(dir, fileName('blocks', from, to)), 'blocks', true);
    assert.match(
      await exportOk(['blocks', '--data', dataset.dir, '--out', dir, '--chunk-blocks', String(CHUNK), '--hex']),
      /0 files written, 4 skipped/,
      'the same options resume',
    );
  });
});

describe('an anvil chain ingested into a store', { skip: ANVIL_MISSING }, () => {
  /**
   * Blocks the workload mines after deploying its contracts: a few chunks of every transaction type anvil's Prague
   * chain takes.
   */
  const MINED = 12;
  /** Blocks per file: four or five chunks, the last shorter. */
  const ANVIL_CHUNK = 4;
  let anvil: Anvil;
  let ingested: TestDataset;
  let served: TestService;

  before(async () => {
    anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
    const workload = await Workload.deploy(anvil);
    await workload.mine(MINED);
    const dir = mkdtempSync(join(tmpdir(), 'ethlogd-export-anvil-'));
    await runIngest({ rpc: anvil.url, dataDir: dir, logger: createLogger('error') });
    const store = openStore(dir);
    const key = createApiKey(store, 'export test');
    await closeStore(store);
    ingested = { dir, key, revokedKey: '', remove: () => rmSync(dir, { recursive: true, force: true }) };
    served = await startTestService(ingested);
  });

  after(async () => {
    await served?.close();
    ingested?.remove();
    await anvil?.stop();
  });

  test(
    'every file of every datatype equals what the served ' + 'store answers, file names from chain id 31337',
    async () => {
      const out = join(work, 'anvil');
      const head = Number(await served.result('eth_blockNumber', []));
      const chainId = BigInt((await served.result('eth_chainId', [])) as string);
      await Promise.all(
        ['logs', 'blocks', 'transactions', 'receipts'].map((kind) =>
          exportOk([
            kind,
            '--data',
            ingested.dir,
            '--out',
            out,
            '--chunk-blocks',
            String(ANVIL_CHUNK),
            '--threads',
            '1',
          ]),
        ),
      );
      const list = chunks(head + 1, ANVIL_CHUNK);
      assert.equal(files(out).length, 4 * list.length);
      assert.ok((await compareLogs(served, out, 'network_31337', list, chainId)) > 0, 'the workload logged');
      await compareBlocks(served, out, 'network_31337', list, chainId);
      assert.ok(
        (await compareTransactions(served, out, 'network_31337', list, chainId)).length >= 3,
        'several transaction types',
      );
    },
  );
});

describe('interrupted exports', () => {
  let crash: TestDataset;
  let reference: string;

  before(async () => {
    crash = await makeDataset(CRASH_BLOCKS, 0.3, 'export-crash');
    reference = join(work, 'reference');
    await exportOk(['logs', '--data', crash.dir, '--out', reference, '--chunk-blocks', String(CRASH_CHUNK)]);
  });

  after(() => crash.remove());

  /** Asserts every final-named file of `dir` is byte-identical to the reference's; returns how many there are. */
  function assertComplete(dir: string): number {
    let complete = 0;
    for (const name of files(dir)) {
      if (name.startsWith('.')) continue;
      assert.ok(readFileSync(join(dir, name)).equals(readFileSync(join(reference, name))), `${name} is complete`);
      complete++;
    }
    return complete;
  }

  test('SIGKILL at seeded random moments, then a rerun: files identical to an uninterrupted export', async () => {
    const rng = new Rng(SEED);
    const total = files(reference).length;
    const dir = join(work, 'killed');
    const args = ['export', 'logs', '--data', crash.dir, '--out', dir, '--chunk-blocks', String(CRASH_CHUNK)];
    for (let kill = 0; kill < KILLS; kill++) {
      const before = existsCount(dir);
      // Kill k waits for a file of the k-th share of the remaining ones, then a random delay (a kill mid-write).
      const target = Math.min(
        total - 1,
        before + 1 + rng.int(Math.max(1, Math.floor((total - before) / (KILLS - kill + 1)))),
      );
      const p = startCli(args);
      while (existsCount(dir) < target) {
        if (p.child.exitCode !== null) break;
        await sleep(2);
      }
      await sleep(rng.int(20));
      p.child.kill('SIGKILL');
      await p.exited;
      assertComplete(dir);
    }
    const r = await runCli(args);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(assertComplete(dir), total);
    assert.deepEqual(files(dir), files(reference), 'no temporary left');
  });

  test('Ctrl-C finishes the chunks in flight and exits 130 with complete files only', async () => {
    const dir = join(work, 'interrupted');
    const p = startCli(['export', 'logs', '--data', crash.dir, '--out', dir, '--chunk-blocks', String(CRASH_CHUNK)]);
    while (existsCount(dir) === 0 && p.child.exitCode === null) await sleep(2);
    p.child.kill('SIGINT');
    assert.equal(await p.exited, 130, p.stderr());
    assert.match(p.stderr(), /interrupted; run the same command again/);
    assert.ok(
      files(dir).every((name) => !name.startsWith('.')),
      'no temporary left',
    );
    const complete = assertComplete(dir);
    assert.ok(complete > 0 && complete < files(reference).length, `stopped part-way (${complete} files)`);
  });

  /** Final-named files in `dir` (none when it does not exist yet). */
  function existsCount(dir: string): number {
    try {
      return readdirSync(dir).filter((name) => !name.startsWith('.')).length;
    } catch {
      return 0;
    }
  }
});

describe('a failed chunk', () => {
  test(
    "a worker failure (a chunk past the store's head, as a store fault) rejects with " +
      'its reason; every other chunk is complete or absent, no temporary left',
    async () => {
      const reference = join(work, 'failed-reference');
      await exportOk([
        'blocks',
        '--data',
        dataset.dir,
        '--out',
        reference,
        '--chunk-blocks',
        String(CHUNK),
        '--to',
        String(3 * CHUNK - 1),
      ]);
      const dir = join(work, 'failed');
      mkdirSync(dir);
      const store = openStore(dataset.dir, { readOnly: true });
      const chainId = new StoreReader(store).chainId();
      await closeStore(store);
      // Chunks 75–99 and 100–124 reach past the head (89): their workers fail, whichever first.
      const job = {
        dataDir: dataset.dir,
        out: dir,
        kind: 'blocks' as const,
        from: 0,
        to: 5 * CHUNK - 1,
        addresses: [],
        topics: [],
        chainId,
        chunkBlocks: CHUNK,
        compression: 'zstd' as const,
        hex: false,
        threads: 2,
      };
      await assert.rejects(
        runExport(job),
        /export of blocks (75–99|100–124) failed: Error: block (90|100) is not in the store/,
      );
      assert.deepEqual(
        files(dir).filter((name) => name.startsWith('.')),
        [],
        'no temporary left',
      );
      for (const name of files(dir))
        assert.ok(
          files(reference).includes(name) && readFileSync(join(dir, name)).equals(readFileSync(join(reference, name))),
          `${name} is complete`,
        );
    },
  );
});

describe('usage errors exit 2 with a clear message', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown datatype', ['traces'], /unknown datatype "traces" \(logs, blocks, transactions, receipts\)/],
    ['--from after --to', ['logs', '--from', '10', '--to', '5'], /--from 10 is after --to 5/],
    [
      'a tag range that ends before it starts',
      ['logs', '--from', 'latest', '--to', '5'],
      /fromBlock 89 is after toBlock 5/,
    ],
    ['--chunk-blocks 0', ['logs', '--chunk-blocks', '0'], /--chunk-blocks must be an integer from 1 to/],
    [
      '--chunk-blocks not a number',
      ['blocks', '--chunk-blocks', 'many'],
      /--chunk-blocks must be an integer from 1 to/,
    ],
    [
      'an unknown compression',
      ['blocks', '--compression', 'gzip'],
      /--compression must be one of zstd, snappy, lz4, none/,
    ],
    ['a topic filter on blocks', ['blocks', '--topic0', '0x01'], /--topic0 filters logs, not blocks/],
    ['--to past the head', ['receipts', '--to', '1000'], /beyond current head block/],
  ];
  test('each case, run concurrently', async () => {
    const results = await Promise.all(
      cases.map(([, args]) => runCli(['export', ...args, '--data', dataset.dir, '--out', join(work, 'usage')])),
    );
    cases.forEach(([what, , message], i) => {
      assert.equal(results[i]!.code, 2, `${what}: ${results[i]!.stderr}`);
      assert.match(results[i]!.stderr, message, what);
    });
  });

  test('--out not writable (a path through a file)', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const r = await runCli(['export', 'logs', '--data', dataset.dir, '--out', join(file, 'out')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--out: cannot write to .*a-file\/out: ENOTDIR/);
  });
});
