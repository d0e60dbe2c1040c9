/**
 * A complete ethlogd gRPC client (the example of docs/grpc.md): the head block, then every log
 * of one contract streamed in order, resuming from the last cursor when the connection breaks. It
 * compiles with the project and test/integration/grpc.test.ts runs it, so it cannot rot.
 *
 *   node dist/test/examples/grpcClient.js 127.0.0.1:8546 <API_KEY> <contract address> [from block]
 */
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/**
 * ethlogd's src/grpc/ethlogd.proto: ETHLOGD_PROTO, else a copy beside this client, else the one of the repository it
 * sits in.
 */
const PROTO = [
  process.env.ETHLOGD_PROTO,
  fileURLToPath(new URL('ethlogd.proto', import.meta.url)),
  fileURLToPath(new URL('../../../src/grpc/ethlogd.proto', import.meta.url)),
].find((path) => path !== undefined && existsSync(path));
if (PROTO === undefined) {
  console.error(
    'ethlogd.proto not found: copy src/grpc/ethlogd.proto beside this client, or set ETHLOGD_PROTO to its path',
  );
  process.exit(1);
}

// uint64 as decimal strings, bytes as Buffers, enums by name, unset fields undefined (JSON-RPC's null).
const definition = protoLoader.loadSync(PROTO, { longs: String, enums: String, oneofs: true, defaults: false });
const { EthLogs } = (
  grpc.loadPackageDefinition(definition) as unknown as { ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } } }
).ethlogd.v1;

/** A position in a stream: the log at (blockNumber, logIndex) and everything after it. */
export interface Cursor {
  blockNumber?: string;
  logIndex?: string;
}

/** ethlogd.v1.Log (position fields unset when pending). */
export interface Log {
  blockNumber?: string;
  logIndex?: string;
  address: Buffer;
  topics?: Buffer[];
  data?: Buffer;
  transactionHash?: Buffer;
  transactionIndex?: string;
  blockHash?: Buffer;
  blockTimestamp?: string;
  removed?: boolean;
}

interface LogBatch {
  logs?: Log[];
  next: Cursor;
}

interface Block {
  number?: string;
  hash?: Buffer;
  timestamp?: string;
  transactionHashes?: Buffer[];
}

/** Attempts of a stream before giving up while the server is unreachable. */
const STREAM_ATTEMPTS = 5;

const hex = (bytes: Buffer | undefined) => '0x' + (bytes ?? Buffer.alloc(0)).toString('hex');

/** Calls a unary method of the client. */
function unary<T>(client: grpc.Client, method: string, request: object, metadata: grpc.Metadata): Promise<T> {
  const fn = (client as unknown as Record<string, (...args: unknown[]) => void>)[method]!.bind(client);
  return new Promise<T>((resolve, reject) =>
    fn(request, metadata, (error: grpc.ServiceError | null, response: T) =>
      error ? reject(error) : resolve(response),
    ),
  );
}

/**
 * Streams every log of `address` from block `from` to the head, in order, into `onLog`. A broken
 * stream (UNAVAILABLE) is opened again from the last cursor received: nothing is repeated or
 * missed. Returns the cursor after the last batch.
 */
export async function streamContractLogs(
  client: grpc.Client,
  metadata: grpc.Metadata,
  address: Buffer,
  from: bigint,
  onLog: (log: Log) => void,
): Promise<Cursor | undefined> {
  const filter = { fromBlock: { number: from.toString() }, toBlock: { tag: 'BLOCK_TAG_LATEST' }, addresses: [address] };
  let cursor: Cursor | undefined;
  for (let attempt = 1; ; attempt++) {
    const call = (
      client as unknown as { StreamLogs(request: object, metadata: grpc.Metadata): grpc.ClientReadableStream<LogBatch> }
    ).StreamLogs({ filter, resumeFrom: cursor }, metadata);
    try {
      // for await reads one batch at a time: the server sends no faster than this loop consumes.
      for await (const batch of call as AsyncIterable<LogBatch>) {
        for (const log of batch.logs ?? []) onLog(log);
        cursor = batch.next;
      }
      return cursor;
    } catch (error) {
      if ((error as grpc.ServiceError).code !== grpc.status.UNAVAILABLE || attempt === STREAM_ATTEMPTS) throw error;
    }
  }
}

/** Prints the head block and the logs of `contract` from block `from` on; returns what it saw. */
export async function main(
  target: string,
  apiKey: string,
  contract: string,
  from = 0n,
  print: (line: string) => void = console.log,
): Promise<{ head: string; logs: number; cursor?: Cursor }> {
  const client = new EthLogs(target, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', apiKey);
  try {
    const { block } = await unary<{ block?: Block }>(
      client,
      'GetBlockByNumber',
      { block: { tag: 'BLOCK_TAG_LATEST' }, fullTransactions: false },
      metadata,
    );
    if (!block) throw new Error('the store holds no blocks yet');
    print(`head ${block.number} ${hex(block.hash)} with ${block.transactionHashes?.length ?? 0} transactions`);
    let logs = 0;
    const cursor = await streamContractLogs(
      client,
      metadata,
      Buffer.from(contract.replace(/^0x/, ''), 'hex'),
      from,
      (log) => {
        if (logs++ < 3)
          print(
            `block ${log.blockNumber} log ${log.logIndex}: tx ` +
              `${hex(log.transactionHash)}, topic0 ${hex(log.topics?.[0])}`,
          );
      },
    );
    print(`${logs} logs; a later run can resume from ${JSON.stringify(cursor)}`);
    return { head: block.number!, logs, cursor };
  } finally {
    client.close();
  }
}

// Run as a program (through a symlinked path too), not imported.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [target = '127.0.0.1:8546', apiKey = '', contract = '', from = '0'] = process.argv.slice(2);
  await main(target, apiKey, contract, BigInt(from)).catch((error: unknown) => {
    const e = error as grpc.ServiceError;
    // Every ethlogd error carries the JSON-RPC code and message in its trailers.
    const code = e.metadata?.get('x-jsonrpc-code')[0];
    console.error(
      e.code === undefined
        ? error
        : `${grpc.status[e.code]}: ${e.details}${code === undefined ? '' : ` (JSON-RPC ${String(code)})`}`,
    );
    process.exitCode = 1;
  });
}
