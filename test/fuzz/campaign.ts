/**
 * A fuzz campaign against a running `ethlogd serve`: seeded fast-check properties over HTTP
 * exchanges (several lanes in parallel, each with its own seed) and over raw socket bytes, each
 * answer checked by the oracle, the server's liveness checked after every exchange and its memory
 * (VmRSS) sampled before, during and after. Returns what was sent and seen, for the report.
 */
import fc from 'fast-check';
import { MAX_BODY_BYTES } from '#src/config.js';
import { FuzzClient, sendRaw } from './client.js';
import { exchangeArb, type FuzzExchange, type FuzzKeys, rawRequestArb } from './exchanges.js';
import { answerProblems, rawAnswerProblems } from './oracle.js';
import type { FuzzCorpus } from './requests.js';
import type { ServerProcess } from './serverProcess.js';

/** How big a campaign is. */
export interface CampaignOptions {
  /** HTTP exchanges of the measured run (warm-up excluded). */
  runs: number;
  /** Raw socket exchanges, sent alongside. */
  rawRuns: number;
  /** fast-check seed of the first lane; lane i uses seed + i. */
  seed: number;
  /** HTTP lanes in parallel (each a property run with its own seed). */
  lanes: number;
}

/** What a campaign sent and saw. */
export interface CampaignReport {
  /** HTTP requests sent, warm-up and shrinking included. */
  exchanges: number;
  /** JSON-RPC calls inside them (batch items one each). */
  calls: number;
  raw: number;
  /** Raw sockets the server neither answered nor closed within the client's wait. */
  rawHeld: number;
  /** Exchanges whose connection the server closed while the body was still being sent (oversized bodies). */
  closedWhileSending: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  rssMiB: { baseline: number; peak: number; after: number };
  /**
   * RSS samples (MiB) at each quarter of the measured run: growth that levels off is the heap's high-water mark, growth
   * that keeps on is a leak.
   */
  rssQuartersMiB: number[];
  seconds: number;
}

/** Exchanges sent before the baseline RSS is read: the server's caches, JIT and worker threads are warm by then. */
const WARMUP_RUNS = 300;

/** Exchanges between two RSS samples. */
const RSS_SAMPLE_EVERY = 200;

const KIB_PER_MIB = 1024;

/** Runs a campaign against `server`; fails (after stopping every lane) on the first wrong answer or a dead server. */
export async function runCampaign(
  server: ServerProcess,
  corpus: FuzzCorpus,
  keys: FuzzKeys,
  options: CampaignOptions,
): Promise<CampaignReport> {
  const started = performance.now();
  const client = new FuzzClient(server.host, server.port, options.lanes);
  const report: CampaignReport = {
    exchanges: 0,
    calls: 0,
    raw: 0,
    rawHeld: 0,
    closedWhileSending: 0,
    byKind: {},
    byStatus: {},
    rssMiB: { baseline: 0, peak: 0, after: 0 },
    rssQuartersMiB: [],
    seconds: 0,
  };
  let peakKiB = 0;
  const samplesKiB: number[] = [];
  let firstFailure: string | undefined;
  const sampleRss = () => {
    const kib = server.rssKiB();
    peakKiB = Math.max(peakKiB, kib);
    samplesKiB.push(kib);
    return kib;
  };
  /** Fails with the server's stderr when it has exited. */
  const checkAlive = () => {
    const exit = server.exit();
    if (exit !== undefined) throw new Error(`the server exited (${exit}):\n${server.stderr()}`);
  };
  const fail = (what: string, problems: string[]): never => {
    const text = `${what}\n  ${problems.join('\n  ')}`;
    firstFailure ??= text;
    throw new Error(text);
  };

  const exchange = fc.asyncProperty(exchangeArb(corpus, keys), async (ex: FuzzExchange) => {
    checkAlive();
    // The server refuses a body over the limit before reading it and closes the connection (a 413 or a reset, whichever
    // the client sees first).
    const outcome = await client.send(ex, ex.body.length > MAX_BODY_BYTES).catch((error: Error): never => {
      checkAlive();
      return fail(`${ex.method} ${ex.path}, ${ex.kind} body of ${ex.body.length} bytes`, [error.message]);
    });
    report.exchanges++;
    report.calls += ex.calls;
    report.byKind[ex.kind] = (report.byKind[ex.kind] ?? 0) + 1;
    if (report.exchanges % RSS_SAMPLE_EVERY === 0) sampleRss();
    if ('closed' in outcome) {
      report.closedWhileSending++;
      return;
    }
    report.byStatus[outcome.answer.status] = (report.byStatus[outcome.answer.status] ?? 0) + 1;
    const problems = answerProblems(ex, keys, outcome.answer);
    if (problems.length > 0)
      fail(
        `${ex.method} ${ex.path} (${ex.contentType ?? 'no Content-Type'}), ` +
          `${ex.kind} body ${Buffer.from(ex.body).toString('utf8').slice(0, 300)}`,
        problems,
      );
  });
  const raw = fc.asyncProperty(rawRequestArb(keys), async (bytes: Uint8Array) => {
    checkAlive();
    const { received, held } = await sendRaw(server.host, server.port, bytes);
    report.raw++;
    if (held) report.rawHeld++;
    const problems = rawAnswerProblems(received);
    if (problems.length > 0)
      fail(`raw bytes ${JSON.stringify(Buffer.from(bytes).toString('latin1').slice(0, 300))}`, problems);
  });

  try {
    await fc.assert(exchange, { seed: options.seed - 1, numRuns: WARMUP_RUNS });
    const baselineKiB = sampleRss();
    peakKiB = baselineKiB;
    samplesKiB.length = 0;
    const perLane = Math.ceil(options.runs / options.lanes);
    const lanes = Array.from({ length: options.lanes }, (_, i) =>
      fc.assert(exchange, { seed: options.seed + i, numRuns: perLane }),
    );
    const rawLane =
      options.rawRuns > 0
        ? fc.assert(raw, { seed: options.seed + options.lanes, numRuns: options.rawRuns })
        : Promise.resolve();
    const settled = await Promise.allSettled([...lanes, rawLane]);
    const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (rejected) {
      const reason = rejected.reason as Error;
      throw new Error(`${firstFailure ?? String(reason.cause ?? '')}\n${reason.message}`);
    }
    checkAlive();
    const afterKiB = sampleRss();
    report.rssMiB = { baseline: baselineKiB / KIB_PER_MIB, peak: peakKiB / KIB_PER_MIB, after: afterKiB / KIB_PER_MIB };
    report.rssQuartersMiB = [1, 2, 3, 4].map(
      (q) => samplesKiB[Math.ceil((q * samplesKiB.length) / 4) - 1]! / KIB_PER_MIB,
    );
    report.seconds = (performance.now() - started) / 1000;
    return report;
  } finally {
    client.close();
  }
}
