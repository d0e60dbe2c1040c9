/**
 * Real client libraries, unchanged, against compressed answers: viem's public client (over node's
 * fetch, which asks for gzip and decodes it) and ethers v6's JsonRpcProvider (its FetchRequest asks
 * for gzip and gunzips) get from a service with compression on exactly what they get from one with
 * it off: logs, full blocks, receipts, batches and errors. The service's access log shows the
 * answers went out gzipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { JsonRpcProvider } from 'ethers';
import { createPublicClient, http, type PublicClient } from 'viem';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { makeDataset, type TestDataset } from '../support/harness.js';
import { type CapturedLogger, captureLogger, type LogRecord } from '../support/logCapture.js';

const BLOCKS = 40;
const DENSITY = 0.3;
const HEAD = BLOCKS - 1;
const hex = (n: number) => `0x${n.toString(16)}`;

let dataset: TestDataset;
/** Compression on (the defaults), its access log captured. */
let on: RunningService;
let onLog: CapturedLogger;
/** Compression off: the reference. */
let off: RunningService;

before(async () => {
  dataset = await makeDataset(BLOCKS, DENSITY, 'compression-clients');
  onLog = captureLogger('info');
  const options = { dataDir: dataset.dir, host: '127.0.0.1', port: 0, threads: 1, httpThreads: 1 };
  on = await startService({ ...options, logger: onLog.logger });
  off = await startService({ ...options, logger: createLogger('warn'), compression: false });
});

after(async () => {
  await on.close();
  await off.close();
  dataset.remove();
});

const endpoint = (service: RunningService) => `${service.url}/v3/${dataset.key}`;

/** The access log lines of the `on` service from line `from` on, once `count` of them have come. */
const requestLines = (from: number, count: number) => onLog.waitFor((r: LogRecord) => r.msg === 'request', count, from);

/** `value` with bigints as decimal text, so two clients' results compare with deepEqual. */
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));

/**
 * The error a call rejects with, as its name, code and message (viem's details, ethers' shortMessage) and the JSON-RPC
 * error ethers keeps, for comparing two services' refusals.
 */
async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    const e = error as { name?: string; code?: unknown; details?: string; shortMessage?: string; error?: unknown };
    return { name: e.name, code: e.code, details: e.details ?? e.shortMessage, rpc: e.error };
  }
  throw new Error('the call did not fail');
}

for (const batch of [false, true]) {
  describe(`viem public client, batch ${batch ? 'on' : 'off'}`, () => {
    let viaOn: PublicClient;
    let viaOff: PublicClient;
    before(() => {
      const transport = (service: RunningService) =>
        http(endpoint(service), { batch: batch ? { batchSize: 50, wait: 0 } : false });
      viaOn = createPublicClient({ transport: transport(on) });
      viaOff = createPublicClient({ transport: transport(off) });
    });

    test(
      'logs, full blocks, receipts and errors equal those of a ' +
        'service with compression off; the large ones came gzipped',
      async () => {
        const from = onLog.lines.length;
        const read = (client: PublicClient) =>
          Promise.all([
            client.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) }),
            client.getBlock({ blockNumber: 7n, includeTransactions: true }),
            client.getBlockReceipts({ blockNumber: 8n }),
            client.getChainId(),
          ]);
        const [mine, reference] = await Promise.all([read(viaOn), read(viaOff)]);
        assert.ok(mine[0].length > 1_000, `${mine[0].length} logs`);
        assert.deepEqual(plain(mine), plain(reference));
        const refused = await refusal(() => viaOn.getLogs({ fromBlock: 5n, toBlock: 4n }));
        assert.match(String((refused as { details?: string }).details), /invalid block range params/);
        assert.deepEqual(refused, await refusal(() => viaOff.getLogs({ fromBlock: 5n, toBlock: 4n })));
        const lines = await requestLines(from, batch ? 2 : 5);
        assert.ok(
          lines.some((l) => l.encoding === 'gzip'),
          `codings: ${lines.map((l) => String(l.encoding)).join(', ')}`,
        );
      },
    );
  });
}

describe('ethers v6 JsonRpcProvider', () => {
  test(
    'logs, full blocks, receipts and errors equal those of a ' +
      'service with compression off; the large ones came gzipped',
    async () => {
      const provider = (service: RunningService) =>
        new JsonRpcProvider(endpoint(service), undefined, { staticNetwork: true, polling: false });
      const viaOn = provider(on);
      const viaOff = provider(off);
      try {
        const from = onLog.lines.length;
        const read = (p: JsonRpcProvider) =>
          Promise.all([
            p.getLogs({ fromBlock: 0, toBlock: HEAD }),
            p.getBlock(7, true),
            p.send('eth_getBlockReceipts', [hex(8)]),
            p.getTransactionReceipt(`0x${'0'.repeat(64)}`),
          ]);
        const [mine, reference] = await Promise.all([read(viaOn), read(viaOff)]);
        assert.ok(mine[0].length > 1_000, `${mine[0].length} logs`);
        assert.deepEqual(plain(mine[0].map((log) => log.toJSON())), plain(reference[0].map((log) => log.toJSON())));
        assert.deepEqual(plain(mine[1]!.toJSON()), plain(reference[1]!.toJSON()));
        assert.deepEqual(
          mine[1]!.prefetchedTransactions.map((tx) => plain(tx.toJSON())),
          reference[1]!.prefetchedTransactions.map((tx) => plain(tx.toJSON())),
        );
        assert.deepEqual(mine[2], reference[2]);
        assert.equal(mine[3], null);
        const refused = await refusal(() => viaOn.getLogs({ fromBlock: 5, toBlock: 4 }));
        assert.deepEqual((refused as { rpc?: unknown }).rpc, { code: -32602, message: 'invalid block range params' });
        assert.deepEqual(refused, await refusal(() => viaOff.getLogs({ fromBlock: 5, toBlock: 4 })));
        const lines = await requestLines(from, 2);
        assert.ok(
          lines.some((l) => l.encoding === 'gzip'),
          `codings: ${lines.map((l) => String(l.encoding)).join(', ')}`,
        );
      } finally {
        viaOn.destroy();
        viaOff.destroy();
      }
    },
  );
});
