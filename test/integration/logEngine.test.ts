/**
 * The parallel engine against the single-threaded oracle over thousands of random filters on a
 * generated store that spans complete segments (bloom rows) and the open segment (per-block
 * blooms): identical answers, byte for byte, errors included. Real LMDB files, real worker threads.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bytesToHex, quantityToHex } from '#src/chain/hex.js';
import type { BlockHeader, Log } from '#src/chain/types.js';
import { DEFAULT_LOG_LIMITS, type LogLimits } from '#src/config.js';
import type { LogChunks } from '#src/logs/answer.js';
import { LogEngine } from '#src/logs/engine.js';
import { oracleGetLogs } from '#src/logs/oracle.js';
import { toRpcError } from '#src/rpc/errors.js';
import { parseFilter } from '#src/rpc/filterParams.js';
import { StoreReader } from '#src/store/reader.js';
import { closeStore, openStore, type Store } from '#src/store/schema.js';
import { SEGMENT_BLOCKS } from '#src/store/segments.js';
import { makeDataset, type TestDataset } from '../support/harness.js';

const BLOCKS = 2 * SEGMENT_BLOCKS + 700;
const DENSITY = 0.004;
const SEED = 'engine';
/**
 * Random filters compared: `make test` runs a short seeded campaign, `make differential` a long one (ENGINE_FILTERS).
 */
const FILTERS = Number(process.env.ENGINE_FILTERS ?? 600);

/**
 * A StoreReader that decodes each canonical block's header and logs once and keeps them: the
 * oracle walks the same blocks for every one of the campaign's filters, and what it reads does not
 * change between them (the engines read the store itself, through a plain reader).
 */
class RememberingReader extends StoreReader {
  private readonly headers = new Map<number, BlockHeader | undefined>();
  private readonly blockLogs = new Map<number, Log[]>();

  /** The header of canonical block `number`, decoded at the first call. */
  override header(number: number): BlockHeader | undefined {
    if (!this.headers.has(number)) this.headers.set(number, super.header(number));
    return this.headers.get(number);
  }

  /** The logs of canonical block `number`, decoded at the first call. */
  override logs(number: number): Log[] {
    let logs = this.blockLogs.get(number);
    if (logs === undefined) this.blockLogs.set(number, (logs = super.logs(number)));
    return logs;
  }
}

let dataset: TestDataset;
let store: Store;
let reader: StoreReader;
/** The oracle's reader, which also gives the random filters their blocks, addresses and topics. */
let remembered: RememberingReader;

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, SEED);
  store = openStore(dataset.dir, { readOnly: true });
  reader = new StoreReader(store);
  remembered = new RememberingReader(store);
});

after(async () => {
  await closeStore(store);
  dataset.remove();
});

/** A small seeded PRNG (mulberry32) so failures replay. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), chance: (p: number) => next() < p };
}

type Outcome = { ok: string } | { error: unknown };

async function outcome(run: () => LogChunks | Promise<LogChunks>): Promise<Outcome> {
  try {
    return { ok: (await run()).map((c) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'))).join(',') };
  } catch (error) {
    const rpc = toRpcError(error);
    if (rpc !== undefined) return { error: rpc.toJSON() };
    throw error;
  }
}

function randomFilter(r: ReturnType<typeof prng>): Record<string, unknown> {
  const boundaries = [0, SEGMENT_BLOCKS - 1, SEGMENT_BLOCKS, 2 * SEGMENT_BLOCKS - 1, 2 * SEGMENT_BLOCKS, BLOCKS - 1];
  const pickBlock = () =>
    r.chance(0.4)
      ? Math.max(0, Math.min(BLOCKS - 1, boundaries[r.int(boundaries.length)]! + r.int(7) - 3))
      : r.int(BLOCKS);
  const sampleLog = () => {
    for (;;) {
      const logs = remembered.logs(r.int(BLOCKS));
      if (logs.length) return logs[r.int(logs.length)]!;
    }
  };
  const absent = () => '0x' + Array.from({ length: 40 }, () => '0123456789abcdef'[r.int(16)]).join('');
  const filter: Record<string, unknown> = {};
  if (r.chance(0.08)) {
    filter.blockHash = r.chance(0.9) ? bytesToHex(remembered.header(r.int(BLOCKS))!.hash) : '0x' + 'ee'.repeat(32);
  } else {
    let from = pickBlock();
    let to = pickBlock();
    if (from > to) [from, to] = [to, from];
    if (r.chance(0.1)) to = Math.min(BLOCKS - 1, from + r.int(3));
    filter.fromBlock = r.chance(0.05) ? 'earliest' : quantityToHex(from);
    filter.toBlock = r.chance(0.05) ? 'latest' : r.chance(0.03) ? 'pending' : quantityToHex(to);
  }
  const addressMode = r.int(4);
  if (addressMode === 1) filter.address = bytesToHex(sampleLog().address);
  if (addressMode === 2)
    filter.address = Array.from({ length: 1 + r.int(4) }, () =>
      r.chance(0.8) ? bytesToHex(sampleLog().address) : absent(),
    );
  if (addressMode === 3) filter.address = absent();
  const positions = r.int(6) === 0 ? 0 : r.int(5);
  if (positions > 0 || r.chance(0.1)) {
    const topics: unknown[] = [];
    const model = sampleLog();
    for (let i = 0; i < positions; i++) {
      const mode = r.int(5);
      const fromModel = () =>
        model.topics[i] ? bytesToHex(model.topics[i]!) : bytesToHex(sampleLog().topics[0] ?? new Uint8Array(32));
      if (mode === 0) topics.push(null);
      else if (mode === 1 || mode === 2) topics.push(fromModel());
      else if (mode === 3) topics.push([fromModel(), '0x' + 'ab'.repeat(32)]);
      else topics.push(r.chance(0.2) ? [] : [fromModel(), null]);
    }
    filter.topics = topics;
  }
  return filter;
}

/**
 * The inline budgets the differential test runs the engine with: every query inline, every query on the pool, and the
 * default planner.
 */
const PATHS: { name: string; inlineBudgetUs?: number }[] = [
  { name: 'inline', inlineBudgetUs: Number.POSITIVE_INFINITY },
  { name: 'pool', inlineBudgetUs: -1 },
  { name: 'planned' },
];

test(
  `engine equals oracle on ${FILTERS} random filters, ` + 'byte for byte, inline, on the pool and as planned',
  async (t) => {
    const limits: LogLimits = { ...DEFAULT_LOG_LIMITS, maxResults: 1500 };
    const engines = PATHS.map(
      (path) =>
        new LogEngine({
          dataDir: dataset.dir,
          limits,
          threads: 2,
          inlineBudgetUs: path.inlineBudgetUs,
          onError: (m, e) => assert.fail(`${m}: ${String(e)}`),
        }),
    );
    try {
      const r = prng(20261121);
      let nonEmpty = 0;
      let capped = 0;
      for (let i = 0; i < FILTERS; i++) {
        const raw = randomFilter(r);
        const spec = parseFilter(raw, limits.maxParams);
        const expected = await outcome(() => oracleGetLogs(remembered, spec, limits));
        for (const [k, engine] of engines.entries()) {
          assert.deepEqual(
            await outcome(() => engine.query(spec, reader)),
            expected,
            `${PATHS[k]!.name}, filter ${i}: ${JSON.stringify(raw)}`,
          );
        }
        if ('ok' in expected && expected.ok.length > 0) nonEmpty++;
        if ('error' in expected) capped++;
      }
      // About a quarter of the random filters match something (150 of 600 on chain version 3); a fifth at least, or the
      // campaign compares mostly empty answers.
      assert.ok(nonEmpty >= FILTERS / 5, `enough filters match something (${nonEmpty})`);
      assert.ok(capped > 0, 'some filters hit the cap');
      t.diagnostic(`${nonEmpty} filters matched something, ${capped} answered an error`);
      const [inline, pool, planned] = engines.map((e) => e.paths);
      assert.equal(inline!.pool, 0, 'an unbounded budget answers every query inline');
      assert.equal(pool!.inline, 0, 'a negative budget sends every query to the pool');
      assert.ok(inline!.inline > FILTERS / 2);
      assert.equal(pool!.pool, inline!.inline, 'the same queries reached a path');
      assert.equal(planned!.inline + planned!.pool, inline!.inline);
      assert.ok(
        planned!.inline > 0 && planned!.pool > 0,
        `the planner used both paths (inline ${planned!.inline}, pool ${planned!.pool})`,
      );
    } finally {
      await Promise.all(engines.map((e) => e.close()));
    }
  },
);

test('complete segments have bloom rows; every log of a block is found through them', async () => {
  const engine = new LogEngine({
    dataDir: dataset.dir,
    limits: { ...DEFAULT_LOG_LIMITS, maxResults: 1e9 },
    threads: 1,
    onError: () => {},
  });
  try {
    let n = 11;
    while (remembered.logs(n).length === 0) n++;
    const b = { header: remembered.header(n)!, logs: remembered.logs(n) };
    for (const log of b.logs) {
      const spec = parseFilter(
        { address: bytesToHex(log.address), topics: log.topics.map(bytesToHex), fromBlock: '0x0', toBlock: 'latest' },
        5000,
      );
      const text = (await engine.query(spec, reader))
        .map((c) => Buffer.from(c as Uint8Array).toString('utf8'))
        .join(',');
      assert.ok(text.includes(`"blockHash":"${bytesToHex(b.header.hash)}"`));
    }
  } finally {
    await engine.close();
  }
});

test(
  "an error the pool cannot pin on a task (Piscina's 'Unexpected " +
    "message from Worker') is reported, not thrown; queries go on",
  async () => {
    const reported: string[] = [];
    const engine = new LogEngine({
      dataDir: dataset.dir,
      limits: DEFAULT_LOG_LIMITS,
      threads: 1,
      inlineBudgetUs: -1,
      onError: (m) => reported.push(m),
    });
    try {
      // What Piscina does with such a message: emit 'error' on the pool, which throws when nobody listens.
      engine.pool.emit('error', new Error('Unexpected message from Worker: {}'));
      assert.deepEqual(reported, ['log scan pool failed']);
      const spec = parseFilter({ fromBlock: '0x0', toBlock: '0x3' }, 5000);
      assert.ok(Array.isArray(await engine.query(spec, reader)));
    } finally {
      await engine.close();
    }
    engine.pool.emit('error', new Error('Unexpected message from Worker: {}'));
    assert.equal(reported.length, 1, 'not reported once the engine closes (shutdown)');
  },
);
