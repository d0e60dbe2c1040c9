/**
 * Resume: `ethlogd ingest` runs as a child process against anvil (through a proxy that slows each
 * request, so the copy takes a while), is killed with SIGKILL once its progress shows blocks
 * committed, and is started again: every block must then be stored exactly once — no gap, no
 * double — which the store itself shows (headers, transactions and their hash index, logs) against
 * anvil's chain. Also the command's --help and usage errors, and --from.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bytesToHex } from '#src/chain/hex.js';
import { decodeBlockTxs } from '#src/store/blockTxsRecord.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { ANVIL_MISSING, Anvil, type NodeProxy, startProxy } from '../support/anvil.js';
import { runCli, startCli } from '../support/child.js';
import { Workload } from '../support/workload.js';

const BLOCKS = 300;

type Obj = Record<string, unknown>;
const hex = (n: number) => '0x' + n.toString(16);

let anvil: Anvil;
let proxy: NodeProxy;
let dir: string;

before(async () => {
  if (ANVIL_MISSING) return;
  anvil = await Anvil.start(['--hardfork', 'prague', '--no-mining']);
  const workload = await Workload.deploy(anvil);
  await workload.mine(BLOCKS, { min: 1, max: 4, special: false });
  proxy = await startProxy(anvil.url, { delayMs: 15 });
  dir = mkdtempSync(join(tmpdir(), 'ethlogd-resume-'));
});

after(async () => {
  await proxy?.close();
  await anvil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('ingest --help, and usage errors exit 2', { skip: ANVIL_MISSING }, async () => {
  const help = await runCli(['ingest', '--help']);
  assert.equal(help.code, 0);
  assert.match(
    help.stdout,
    /^Usage: ethlogd ingest --rpc URL --data DIR \[--from N\] \[--to N \| --follow\] \[--storage prestate\|none\]/,
  );
  for (const args of [
    ['--to', '5', '--follow'],
    ['--storage', 'all'],
    ['--from', '-1'],
    ['--from', '9', '--to', '3'],
  ]) {
    const r = await runCli(['ingest', '--rpc', anvil.url, '--data', dir, ...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /^ethlogd ingest: [^\n]+(\n[^\n]+)*\nRun "ethlogd ingest --help" for its options\.\n$/);
  }
});

test('a first ingest that fails before its first block removes the store it created; a store with blocks stays', {
  skip: ANVIL_MISSING,
}, async () => {
  const fresh = join(dir, 'fresh');
  const failed = await runCli([
    'ingest',
    '--rpc',
    anvil.url,
    '--data',
    fresh,
    '--to',
    '1000000',
    '--log-level',
    'warn',
  ]);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /below --to 1000000/);
  assert.equal(existsSync(fresh), false, 'the directory it created is gone');
  const kept = join(dir, 'kept');
  mkdirSync(kept);
  writeFileSync(join(kept, 'notes.txt'), 'mine');
  assert.equal(
    (await runCli(['ingest', '--rpc', anvil.url, '--data', kept, '--to', '1000000', '--log-level', 'warn'])).code,
    1,
  );
  assert.deepEqual(readdirSync(kept), ['notes.txt'], 'only what the ingest created is removed');
  assert.equal(
    (
      await runCli([
        'ingest',
        '--rpc',
        anvil.url,
        '--data',
        kept,
        '--to',
        '3',
        '--storage',
        'none',
        '--log-level',
        'warn',
      ])
    ).code,
    0,
  );
  assert.equal(
    (await runCli(['ingest', '--rpc', anvil.url, '--data', kept, '--to', '1000000', '--log-level', 'warn'])).code,
    1,
  );
  assert.ok(existsSync(join(kept, 'data.mdb')), 'a store holding blocks is kept');
});

test('an ingest killed mid-way continues from the last committed block: every block exactly once', {
  skip: ANVIL_MISSING,
}, async () => {
  const head = await anvil.head();
  const first = startCli([
    'ingest',
    '--rpc',
    proxy.url,
    '--data',
    dir,
    '--blocks-per-request',
    '2',
    '--in-flight',
    '2',
    '--commit-blocks',
    '4',
    '--progress-seconds',
    '0.05',
  ]);
  await first.waitForStderr(/ingest: ([6-9]\d|[1-9]\d\d)\/\d+ blocks/);
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, 'SIGKILL');

  let killedAt: number;
  {
    const store = openStore(dir, { readOnly: true });
    killedAt = new StoreReader(store).meta()!.head;
    await closeStore(store);
  }
  assert.ok(killedAt >= 59 && killedAt < head, `killed mid-way (stored head ${killedAt} of ${head})`);

  const second = await runCli(['ingest', '--rpc', anvil.url, '--data', dir]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, new RegExp(`^ingested ${head - killedAt} blocks, .*; head ${head} in `, 'm'));

  const blocks = await anvil.rpcAll<Obj>(
    Array.from({ length: head + 1 }, (_, n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
  );
  const logs = await anvil.rpc<Obj[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head) }]);
  const logsPerBlock = new Map<string, number>();
  for (const l of logs) logsPerBlock.set(l.blockNumber as string, (logsPerBlock.get(l.blockNumber as string) ?? 0) + 1);
  const store = openStore(dir, { readOnly: true });
  try {
    const reader = new StoreReader(store);
    const meta = reader.meta()!;
    assert.equal(meta.earliest, 0);
    assert.equal(meta.head, head);
    let txTotal = 0;
    for (const b of blocks) {
      const n = Number(b.number);
      const header = reader.header(n)!;
      assert.equal(bytesToHex(header.hash), b.hash, `block ${n}`);
      assert.deepEqual(reader.txHashes(n).map(bytesToHex), b.transactions, `transactions of block ${n}`);
      assert.equal(header.txCount, (b.transactions as unknown[]).length);
      assert.equal(reader.logs(n).length, logsPerBlock.get(b.number as string) ?? 0, `logs of block ${n}`);
      (b.transactions as string[]).forEach((hash, i) =>
        assert.deepEqual(reader.txLocation(Buffer.from(hash.slice(2), 'hex')), { number: n, index: i }),
      );
      txTotal += (b.transactions as unknown[]).length;
    }
    assert.equal(store.headers.getCount(), head + 1, 'no header stored twice or beyond the head');
    let stored = 0;
    for (const { value } of store.txs.getRange()) stored += decodeBlockTxs(value).length;
    assert.equal(stored, txTotal, 'no transaction stored twice');
    assert.equal(store.txByHash.getCount(), txTotal, 'no transaction indexed twice');
    assert.ok(txTotal >= BLOCKS, `a chain with transactions (${txTotal})`);
  } finally {
    await closeStore(store);
  }
});

test('--from starts an empty store at a later block; a store is only resumed from where it starts', {
  skip: ANVIL_MISSING,
}, async () => {
  const other = mkdtempSync(join(tmpdir(), 'ethlogd-from-'));
  try {
    const r = await runCli([
      'ingest',
      '--rpc',
      anvil.url,
      '--data',
      other,
      '--from',
      '250',
      '--to',
      '260',
      '--storage',
      'none',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ingested 11 blocks, .*; head 260 in /m);
    const store = openStore(other, { readOnly: true });
    const meta = new StoreReader(store).meta()!;
    await closeStore(store);
    assert.deepEqual([meta.earliest, meta.head], [250, 260]);
    const conflict = await runCli(['ingest', '--rpc', anvil.url, '--data', other, '--from', '0']);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /starts at block 250, not 0: resume without --from/);
    const resumed = await runCli(['ingest', '--rpc', anvil.url, '--data', other, '--from', '250', '--to', '270']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /^ingested 10 blocks, .*; head 270 in /m);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
