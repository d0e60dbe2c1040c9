/**
 * `ethlogd query logs|block|tx|storage`: reads a store directly (no server) and prints JSON-RPC
 * answers for data pipelines; `logs` streams every match of a filter, with no result cap.
 */
import { availableParallelism } from 'node:os';
import type { Writable } from 'node:stream';
import { EthLogStore } from '../api/store.js';
import type { LogFilter, LogPosition } from '../api/types.js';
import { toRpcBlock, toRpcTransaction } from '../api/wire.js';
import { bytesToHex } from '../chain/hex.js';
import { CSV_COLUMNS } from '../render/logCsv.js';
import { RpcError } from '../rpc/errors.js';
import { existingStore, integer, parse, required, UsageError } from './args.js';
import { blockArg, LOG_FILTER_OPTIONS, logFilter, logFilterUsage } from './logFilterArgs.js';
import { isOutputFormat, logFormatter, OUTPUT_FORMATS, type OutputFormat } from './queryFormat.js';
import { BatchedWriter } from './queryOutput.js';

/** Most worker threads `--threads` accepts: as `serve`, far beyond any core count this runs on. */
const MAX_THREADS = 256;

/** `--timeout-ms` default: none, a pipeline's query runs as long as its reader reads. */
const DEFAULT_TIMEOUT_MS = 0;

/** Exit code after SIGINT: the shell's convention, 128 + the signal's number (2). */
const EXIT_INTERRUPTED = 130;

/** Usage text of `query`. */
export const QUERY_USAGE =
  `Usage:
  ethlogd query logs --data DIR (--filter JSON | [--address A]... [--topic0 T] .. [--topic3 T]
                     [--from B] [--to B] [--block-hash H]) [--format jsonl|json|csv]
                     [--timeout-ms MS] [--resume-from BLOCK:LOGINDEX] [--threads N]
  ethlogd query block --data DIR --block B [--full]
  ethlogd query tx --data DIR (--hash H | --block B --index I)
  ethlogd query storage --data DIR --address A --slot S [--block B]

Reads the store in DIR directly (read-only: a server or a writer may keep running) and writes
JSON-RPC answers to stdout, for pipelines. B is a block: decimal, 0x-hex, a tag (latest, earliest,
safe, finalized, pending) or, where the JSON-RPC method takes one, a 32-byte block hash.

logs: every log matching the filter, in order (block, then log index), written as it is found:
eth_getLogs without its 10,000-result cap and 10 s deadline. The scan runs only as fast as stdout
is read. A closed stdout (e.g. "| head") ends it quietly with exit 0. Output always stops between
two logs: after a timeout or Ctrl-C, pass the last log's blockNumber:logIndex (printed on stderr)
to --resume-from to continue (a json array is then left unclosed).
${logFilterUsage('latest', 'latest')}
  --block-hash H       the one block to read (not with --from/--to)
  --format F           jsonl, json or csv                                              default jsonl
                         jsonl: one log per line, the object eth_getLogs answers
                         json:  one JSON array of those objects (written as found; "[]" when none)
                         csv:   a header line, then one row per log, columns
                                ${CSV_COLUMNS.join(',')}
                                (decimal numbers, 0x-hex bytes, true/false; empty cells for
                                absent topics and a pending log's positions; nothing is quoted)
  --timeout-ms MS      stop with -32005 "query timeout exceeded" after MS, 0 for none  default ${DEFAULT_TIMEOUT_MS}
  --resume-from BLOCK:LOGINDEX
                       start right after that log (decimal or 0x-hex), the last one a previous
                       run wrote; the filter must be the same
  --threads N          scan worker threads                                             ` +
  `default ${availableParallelism()} (the cores)

block, tx, storage: one line, the JSON the JSON-RPC method answers (eth_getBlockByNumber/ByHash,
eth_getTransactionByHash/ByBlockNumberAndIndex, eth_getStorageAt's quoted "0x" 32-byte string).
A block or transaction the store does not hold prints null and exits 0, as JSON-RPC answers null
(pipe into "jq -e" to make that exit 1); storage at a block the store does not hold is an error.
  --block B            block: (block) the block to print; (tx) the block of --index;
                       (storage) the state after it, default latest
  --full               (block) full transaction objects instead of hashes
  --hash H             (tx) transaction hash
  --index I            (tx) index in --block, decimal or 0x-hex
  --address A          (storage) contract address
  --slot S             (storage) slot: 0x-hex (up to 32 bytes) or decimal

  --data DIR           store directory                                                 required
  -h, --help           this text

Exit codes: 0 done (also when stdout was closed early); 1 an error, one line on stderr
"ethlogd query: <message>" (JSON-RPC errors as "error CODE: message"); 2 a usage error;
${EXIT_INTERRUPTED} interrupted (SIGINT).`;

/**
 * Runs `query`. Answers go to `out`: stdout when the CLI runs it; a test passes a stream of its own
 * to run a query in its process. Usage text and errors always go to the console (stdout, stderr).
 */
export async function queryCommand(argv: string[], out: Writable = process.stdout): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind === undefined || kind === '--help' || kind === '-h') {
    console.log(QUERY_USAGE);
    return kind === undefined ? 2 : 0;
  }
  // Output errors arrive as 'error' events, possibly after the command returned: without a
  // listener a reader that went away (EPIPE) would crash the process with a stack trace. Each
  // command checks its own writes; this listener stays for the life of the stream.
  out.on('error', () => {});
  switch (kind) {
    case 'logs':
      return queryLogs(rest, out);
    case 'block':
      return queryBlock(rest, out);
    case 'tx':
      return queryTx(rest, out);
    case 'storage':
      return queryStorage(rest, out);
    default:
      throw new UsageError(
        kind.startsWith('-') ? 'say what to query: logs, block, tx or storage' : `unknown query "${kind}"`,
      );
  }
}

/** A JSON-RPC error as the one stderr line shows it. */
function describe(error: RpcError): string {
  return `error ${error.code}: ${error.message}`;
}

/** A non-negative integer option, decimal or 0x-hex. */
function indexArg(value: string, name: string): number {
  const n = /^([0-9]+|0x[0-9a-fA-F]+)$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a non-negative integer (decimal or 0x-hex)`);
  return n;
}

/** --resume-from BLOCK:LOGINDEX: the position right after that log. */
function resumeFrom(value: string | boolean | undefined): LogPosition | undefined {
  if (value === undefined) return undefined;
  const m = typeof value === 'string' ? /^([0-9]+|0x[0-9a-fA-F]+):([0-9]+|0x[0-9a-fA-F]+)$/.exec(value) : null;
  const block = m ? Number(m[1]) : NaN;
  const logIndex = m ? Number(m[2]) : NaN;
  if (!Number.isSafeInteger(block) || !Number.isSafeInteger(logIndex)) {
    throw new UsageError('--resume-from must be BLOCK:LOGINDEX (decimal or 0x-hex), the last log already written');
  }
  return { block, logIndex: logIndex + 1 };
}

/** Why a logs query stopped before its end. */
type Stop = { kind: 'closed' } | { kind: 'interrupted' } | { kind: 'output'; error: Error };

/** Runs `query logs`. */
async function queryLogs(argv: string[], out: Writable): Promise<number> {
  const { values } = parse(argv, {
    data: { type: 'string' },
    ...LOG_FILTER_OPTIONS,
    'block-hash': { type: 'string' },
    format: { type: 'string' },
    'timeout-ms': { type: 'string' },
    'resume-from': { type: 'string' },
    threads: { type: 'string' },
  });
  if (values.help) {
    console.log(QUERY_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const filter = logFilter(values);
  const format = typeof values.format === 'string' ? values.format : OUTPUT_FORMATS[0];
  if (!isOutputFormat(format)) throw new UsageError(`--format must be one of ${OUTPUT_FORMATS.join(', ')}`);
  const timeoutMs = integer(values['timeout-ms'], 'timeout-ms', DEFAULT_TIMEOUT_MS, 0);
  const from = resumeFrom(values['resume-from']);
  const threads = integer(values.threads, 'threads', availableParallelism(), 1, MAX_THREADS);

  const store = EthLogStore.open(dir, { threads });
  const controller = new AbortController();
  let stop: Stop | undefined;
  const halt = (why: Stop) => {
    stop ??= why;
    controller.abort();
  };
  const onInterrupt = () => halt({ kind: 'interrupted' });
  const onOutputError = (error: NodeJS.ErrnoException) =>
    halt(error.code === 'EPIPE' ? { kind: 'closed' } : { kind: 'output', error });
  process.once('SIGINT', onInterrupt);
  out.on('error', onOutputError);
  try {
    return await streamLogs(store, filter, format, out, { timeoutMs, from, signal: controller.signal }, () => stop);
  } finally {
    process.off('SIGINT', onInterrupt);
    out.off('error', onOutputError);
    await store.close();
  }
}

/** Writes the logs of `filter` to `output` in `format`; returns the exit code. */
async function streamLogs(
  store: EthLogStore,
  filter: LogFilter,
  format: OutputFormat,
  output: Writable,
  options: { timeoutMs: number; from: LogPosition | undefined; signal: AbortSignal },
  stopped: () => Stop | undefined,
): Promise<number> {
  const out = new BatchedWriter(output, options.signal);
  const formatter = logFormatter(format);
  let last: LogPosition | undefined;
  const resumeHint = () => (last ? `; resume with --resume-from ${last.block}:${last.logIndex}` : '');
  try {
    const logsOptions = {
      timeoutMs: options.timeoutMs === 0 ? undefined : options.timeoutMs,
      signal: options.signal,
      from: options.from,
    };
    if (format === 'csv') {
      for await (const entry of store.logs(filter, logsOptions)) {
        const full = out.write(formatter.log(entry));
        last =
          entry.blockNumber === null || entry.logIndex === null
            ? undefined
            : { block: entry.blockNumber, logIndex: entry.logIndex };
        if (full) await full;
      }
    } else {
      for await (const run of store.logLines(filter, logsOptions)) {
        const full = out.write(
          formatter.lines(Buffer.from(run.text.buffer, run.text.byteOffset, run.text.byteLength).toString('latin1')),
        );
        last = run.last;
        if (full) await full;
      }
    }
    out.write(formatter.end());
    await out.end();
  } catch (error) {
    const stop = stopped();
    if (stop?.kind === 'closed') return 0;
    if (stop?.kind === 'output') throw new Error(`cannot write the output: ${stop.error.message}`);
    await out.end();
    if (stop?.kind === 'interrupted') {
      console.error(`ethlogd query: interrupted${resumeHint()}`);
      return EXIT_INTERRUPTED;
    }
    if (!(error instanceof RpcError)) throw error;
    const timedOut =
      error.code === -32005 && (resumeHint() || '; no log was written yet: run it again with a larger --timeout-ms');
    console.error(`ethlogd query: ${describe(error)}${timedOut || ''}`);
    return 1;
  }
  const stop = stopped();
  if (stop?.kind === 'output') throw new Error(`cannot write the output: ${stop.error.message}`);
  return 0;
}

/** Writes `value` as one JSON line to `out`; resolves once written (a closed stdout is not an error). */
async function printJson(value: unknown, out: Writable): Promise<void> {
  const error = await new Promise<Error | null | undefined>((resolve) =>
    out.write(`${JSON.stringify(value)}\n`, resolve),
  );
  if (error && (error as NodeJS.ErrnoException).code !== 'EPIPE')
    throw new Error(`cannot write the output: ${error.message}`);
}

/**
 * Runs a point lookup on the store in `dir` and prints its answer to `out`; a JSON-RPC error is one stderr line and
 * exit 1.
 */
async function lookup(dir: string, out: Writable, answer: (store: EthLogStore) => unknown): Promise<number> {
  const store = EthLogStore.open(dir);
  try {
    let value: unknown;
    try {
      value = answer(store);
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      console.error(`ethlogd query: ${describe(error)}`);
      return 1;
    }
    await printJson(value, out);
    return 0;
  } finally {
    await store.close();
  }
}

/** Runs `query block`. */
async function queryBlock(argv: string[], out: Writable): Promise<number> {
  const { values } = parse(argv, { data: { type: 'string' }, block: { type: 'string' }, full: { type: 'boolean' } });
  if (values.help) {
    console.log(QUERY_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const selector = blockArg(required(values.block, 'block'), 'block');
  return lookup(dir, out, (store) => {
    const block = store.getBlock(selector, { transactions: values.full === true });
    return block && toRpcBlock(block);
  });
}

/** Runs `query tx`. */
async function queryTx(argv: string[], out: Writable): Promise<number> {
  const { values } = parse(argv, {
    data: { type: 'string' },
    hash: { type: 'string' },
    block: { type: 'string' },
    index: { type: 'string' },
  });
  if (values.help) {
    console.log(QUERY_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const byHash = typeof values.hash === 'string';
  if (byHash === (values.block !== undefined || values.index !== undefined))
    throw new UsageError('give either --hash, or --block and --index');
  if (byHash) {
    const hash = values.hash as string;
    return lookup(dir, out, (store) => {
      const entry = store.getTransaction(hash);
      return entry && toRpcTransaction(entry);
    });
  }
  const selector = blockArg(required(values.block, 'block'), 'block');
  const index = indexArg(required(values.index, 'index'), 'index');
  return lookup(dir, out, (store) => {
    const entry = store.getTransactionAt(selector, index);
    return entry && toRpcTransaction(entry);
  });
}

/** Runs `query storage`. */
async function queryStorage(argv: string[], out: Writable): Promise<number> {
  const { values } = parse(argv, {
    data: { type: 'string' },
    address: { type: 'string' },
    slot: { type: 'string' },
    block: { type: 'string' },
  });
  if (values.help) {
    console.log(QUERY_USAGE);
    return 0;
  }
  const dir = existingStore(values.data);
  const address = required(values.address, 'address');
  const slotText = required(values.slot, 'slot');
  const slot = /^[0-9]+$/.test(slotText) ? BigInt(slotText) : slotText;
  const selector = typeof values.block === 'string' ? blockArg(values.block, 'block') : 'latest';
  return lookup(dir, out, (store) => bytesToHex(store.getStorageAt(address, slot, selector)));
}
