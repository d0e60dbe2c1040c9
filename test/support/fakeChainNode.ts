/**
 * A node of another chain for the ingest tests, where no local binary exists (Arbitrum Nitro, a
 * chain with a transaction type nobody models): an HTTP JSON-RPC server answering the calls ingest
 * makes (eth_chainId, eth_blockNumber, eth_getBlockByNumber with either flag and by tag,
 * eth_getBlockReceipts, eth_getTransactionReceipt) from fixed blocks and receipts, and refusing
 * debug_traceBlockByNumber as a hosted node does.
 */
import { createServer, type Server } from 'node:http';

type Obj = Record<string, unknown>;

/** One block as the node serves it: its object with full transactions, and its receipts. */
export interface FakeBlock {
  block: Obj;
  receipts: Obj[];
}

/** A running fake node. */
export interface FakeChainNode {
  url: string;
  close(): Promise<void>;
}

/** Starts a node serving `blocks` (block n at index n) of chain `chainId` on a free port. */
export async function startFakeChainNode(chainId: number, blocks: FakeBlock[]): Promise<FakeChainNode> {
  const head = blocks.length - 1;
  const byNumber = (tag: unknown): FakeBlock | undefined => {
    if (tag === 'latest' || tag === 'safe' || tag === 'finalized' || tag === 'pending') return blocks[head];
    if (tag === 'earliest') return blocks[0];
    return typeof tag === 'string' && /^0x[0-9a-f]+$/.test(tag) ? blocks[Number(tag)] : undefined;
  };
  const answer = (call: { id?: unknown; method?: string; params?: unknown[] }): Obj => {
    const params = call.params ?? [];
    const result = (value: unknown): Obj => ({ jsonrpc: '2.0', id: call.id ?? null, result: value });
    switch (call.method) {
      case 'eth_chainId':
        return result('0x' + chainId.toString(16));
      case 'eth_blockNumber':
        return result('0x' + head.toString(16));
      case 'eth_getBlockByNumber': {
        const b = byNumber(params[0]);
        if (!b) return result(null);
        const full = params[1] === true;
        return result(
          full ? b.block : { ...b.block, transactions: (b.block.transactions as Obj[]).map((t) => t.hash) },
        );
      }
      case 'eth_getBlockReceipts':
        return result(byNumber(params[0])?.receipts ?? null);
      case 'eth_getTransactionReceipt':
        return result(blocks.flatMap((b) => b.receipts).find((r) => r.transactionHash === params[0]) ?? null);
      default:
        return {
          jsonrpc: '2.0',
          id: call.id ?? null,
          error: { code: -32601, message: `the method ${String(call.method)} does not exist/is not available` },
        };
    }
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Obj | Obj[];
      const reply = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
