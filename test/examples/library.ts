/**
 * Embedding ethlogd (the example of docs/library.md): read a store directly, stream every log
 * of one contract with no result cap, then serve the store with an API key the program creates. It
 * compiles with the project and test/integration/readme.test.ts runs it, so it cannot rot.
 *
 *   node dist/test/examples/library.js data/default
 */
import { fileURLToPath } from 'node:url';
import { bytesToHex, createLogger, EthLogStore, startService, toRpcLog, toRpcTransaction } from 'ethlogd';

/** Reads and serves the store in `dir`, printing what it finds; resolves with the number of logs it streamed. */
export async function main(dir: string, print: (line: string) => void = console.log): Promise<number> {
  // Read-only: any number of readers share the store with a running server and an ingest.
  const store = EthLogStore.open(dir, { threads: 2 });
  const head = store.head();
  if (head === undefined) throw new Error(`${dir} holds no blocks yet`);
  const block = store.getBlock(head, { transactions: true })!;
  print(`head ${head} ${bytesToHex(block.header.hash)}: ${block.transactionHashes.length} transactions`);
  const first = block.transactionHashes[0];
  if (first !== undefined) print(JSON.stringify(toRpcTransaction(store.getTransaction(first)!)));

  // Every log of the contract that logged first in the latest block with logs, in order: no
  // 10,000-result cap, and the scans run on the worker pool only as fast as this loop consumes.
  let address: string | undefined;
  for (let n = head; address === undefined && n >= 0; n--) {
    for await (const log of store.logs({ fromBlock: n, toBlock: n })) {
      address = bytesToHex(log.address);
      break;
    }
  }
  let count = 0;
  if (address !== undefined) {
    for await (const log of store.logs({ fromBlock: 0, toBlock: 'latest', address }, { timeoutMs: 60_000 })) {
      if (count === 0) print(JSON.stringify(toRpcLog(log)));
      count++;
    }
    print(`${count} logs of ${address}`);
  }
  await store.close();

  // A program serving a store needs an API key for its clients: it creates one (opening the store
  // writable for the moment, as `ethlogd keys create` does) and revokes it when done.
  const keys = EthLogStore.open(dir, { writable: true });
  const key = keys.createApiKey('library example');
  await keys.close();
  const service = await startService({ dataDir: dir, host: '127.0.0.1', port: 0, logger: createLogger('warn') });
  try {
    const res = await fetch(`${service.url}/v3/${key}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    print(`served at ${service.url}/v3/<key>: eth_blockNumber ${((await res.json()) as { result: string }).result}`);
  } finally {
    await service.close();
    const cleanup = EthLogStore.open(dir, { writable: true });
    cleanup.revokeApiKey(key);
    await cleanup.close();
  }
  return count;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv[2] ?? 'data/default');
