/**
 * What compressing HTTP answers costs and saves, on typical answers of a generated mainnet-density
 * chain served by the real service: a ~10,000-log eth_getLogs answer, a full block, a block's
 * receipts, and the small answers (a transaction, a block with hashes) that decide the size
 * threshold. For gzip levels and brotli qualities it prints the CPU milliseconds per MB of answer
 * (user + system time of this process, one-shot compression of the whole answer, repeated) and the
 * ratio (answer bytes / compressed bytes); the same for the large answer streamed through zlib in
 * 16 and 64 KiB chunks; then the CPU microseconds of one small answer's compression, the fixed cost
 * that sets the threshold (config.ts). No load generator: run it on a quiet machine.
 *
 *   node dist/native-free-bench/compression.js [--blocks 24] [--reps 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import {
  type BrotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  type Gzip,
  gzipSync,
} from 'node:zlib';
import { createLogger } from '#src/logger.js';
import { startService } from '#src/service.js';
import { createApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';

/** A codec setting measured: its label and a one-shot compressor. */
interface Codec {
  label: string;
  compress(input: Buffer): Buffer;
}

const CODECS: Codec[] = [
  ...[1, 2, 3, 4, 5, 6, 9].map((level) => ({
    label: `gzip ${level}`,
    compress: (input: Buffer) => gzipSync(input, { level }),
  })),
  ...[1, 2, 3, 4, 5].map((quality) => ({
    label: `br ${quality}`,
    compress: (input: Buffer) =>
      brotliCompressSync(input, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: quality,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: input.length,
        },
      }),
  })),
];

/** A streaming compressor measured: its label and a factory for an input of `bytes` bytes. */
interface StreamCodec {
  label: string;
  create(bytes: number): Gzip | BrotliCompress;
}

const STREAM_CODECS: StreamCodec[] = [16 * 1024, 64 * 1024].flatMap((chunkSize) => [
  { label: `gzip 1, ${chunkSize / 1024} KiB chunks`, create: () => createGzip({ level: 1, chunkSize }) },
  {
    label: `br 1, ${chunkSize / 1024} KiB chunks`,
    create: (bytes: number) =>
      createBrotliCompress({
        chunkSize,
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 1,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
        },
      }),
  },
]);

/**
 * CPU milliseconds (user + system, every thread: zlib streams work on libuv's pool) that streaming `input` through a
 * new `codec` takes.
 */
async function streamCpuMs(codec: StreamCodec, input: Buffer): Promise<number> {
  const before = process.cpuUsage();
  const stream = codec.create(input.length);
  stream.resume();
  stream.end(input);
  await finished(stream);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** CPU milliseconds (user + system) that `run` takes, once. */
function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { blocks: { type: 'string', default: '24' }, reps: { type: 'string', default: '5' } },
  });
  const blocks = Number(values.blocks);
  const reps = Number(values.reps);
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-bench-compression-'));
  try {
    await generateStore(dir, { blocks, seed: 'compression-bench', density: 1, pending: false, progress: false });
    const store = openStore(dir);
    const key = createApiKey(store, 'bench');
    await closeStore(store);
    const service = await startService({
      dataDir: dir,
      host: '127.0.0.1',
      port: 0,
      logger: createLogger('warn'),
      threads: 1,
      httpThreads: 1,
      compression: false,
    });
    try {
      const url = `${service.url}/v3/${key}`;
      const call = async (method: string, params: unknown[]): Promise<Buffer> => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return Buffer.from(await res.arrayBuffer());
      };
      const head = blocks - 1;
      const hex = (n: number) => `0x${n.toString(16)}`;
      // The widest range from the head whose logs fit under the 10,000-result cap (about 500 logs a block).
      let from = head;
      while (from > 0) {
        const probe = await call('eth_getLogs', [{ fromBlock: hex(from - 1), toBlock: hex(head) }]);
        if (probe.includes('"error"')) break;
        from--;
      }
      const logs = await call('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(head) }]);
      const logCount = (logs.toString().match(/"logIndex"/g) ?? []).length;
      const block = await call('eth_getBlockByNumber', [hex(head), true]);
      const receipts = await call('eth_getBlockReceipts', [hex(head)]);
      const hashes = await call('eth_getBlockByNumber', [hex(head), false]);
      const txHash = (JSON.parse(hashes.toString()) as { result: { transactions: string[] } }).result.transactions[0]!;
      const tx = await call('eth_getTransactionByHash', [txHash]);
      const small = await call('eth_chainId', []);
      const answers = [
        { label: `eth_getLogs, ${logCount} logs`, body: logs },
        { label: 'eth_getBlockByNumber, full transactions', body: block },
        { label: 'eth_getBlockReceipts', body: receipts },
        { label: 'eth_getBlockByNumber, hashes', body: hashes },
      ];

      console.log(`CPU ms per MB of answer (median of ${reps}) and ratio (answer / compressed):\n`);
      console.log(['answer', 'bytes', ...CODECS.map((c) => c.label)].join(' | '));
      for (const { label, body } of answers) {
        const cells = CODECS.map((codec) => {
          const out = codec.compress(body);
          const ms = median(Array.from({ length: reps }, () => cpuMs(() => codec.compress(body))));
          return `${(ms / (body.length / 1e6)).toFixed(1)} ms/MB, ${(body.length / out.length).toFixed(2)}×`;
        });
        console.log([label, String(body.length), ...cells].join(' | '));
      }

      console.log(
        '\nThe eth_getLogs answer streamed (as src/http/respond.ts streams ' +
          `answers over 64 KiB): CPU ms per MB, median of ${reps}:\n`,
      );
      for (const codec of STREAM_CODECS) {
        const runs: number[] = [];
        for (let i = 0; i < reps; i++) runs.push(await streamCpuMs(codec, logs));
        console.log(`${codec.label}: ${(median(runs) / (logs.length / 1e6)).toFixed(1)} ms/MB`);
      }

      console.log('\nOne small answer: CPU µs per compression (median of 2,000 calls) and bytes out:\n');
      const smalls = [
        { label: 'eth_chainId', body: small },
        { label: 'eth_getTransactionByHash', body: tx },
        { label: 'eth_getBlockByNumber, hashes', body: hashes },
      ];
      console.log(['answer', 'bytes', ...CODECS.map((c) => c.label)].join(' | '));
      for (const { label, body } of smalls) {
        const cells = CODECS.map((codec) => {
          const calls = 2_000;
          for (let i = 0; i < calls / 10; i++) codec.compress(body);
          const us =
            (cpuMs(() => {
              for (let i = 0; i < calls; i++) codec.compress(body);
            }) *
              1000) /
            calls;
          return `${us.toFixed(1)} µs, ${codec.compress(body).length} B`;
        });
        console.log([label, String(body.length), ...cells].join(' | '));
      }
    } finally {
      await service.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
