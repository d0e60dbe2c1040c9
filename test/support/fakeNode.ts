/**
 * A fake upstream node for the forwarding tests: a node:http server that answers JSON-RPC calls by
 * echoing each call's method and params as its result (so a test sees what ethlogd sent), or does
 * what a test's `fate` says to a request: hang, drop the connection, answer an HTTP error, garbage
 * or a huge body. It records every request it received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A JSON-RPC call as the fake received it. */
export interface ReceivedCall {
  id: unknown;
  method: string;
  params: unknown[];
}

/** One request the fake received. */
export interface ReceivedRequest {
  /** The calls of its body (one for a single call). */
  calls: ReceivedCall[];
  /** Whether its body was a batch. */
  batch: boolean;
  url: string;
  authorization: string | undefined;
}

/** What the fake does with a request: echo it, or one of the failures. */
export type Fate = 'echo' | 'hang' | 'kill' | { status: number; body: string | Buffer };

/** A running fake node. */
export interface FakeNode {
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** Decides each request's fate (echo by default). */
  fate: (request: ReceivedRequest, n: number) => Fate;
  close(): Promise<void>;
}

/** The echo answer of `call`. */
function echo(call: ReceivedCall): unknown {
  return { jsonrpc: '2.0', id: call.id, result: { method: call.method, params: call.params } };
}

/** Starts a fake node on a free loopback port. */
export async function startFakeNode(): Promise<FakeNode> {
  const sockets = new Set<Socket>();
  const node: FakeNode = {
    url: '',
    port: 0,
    requests: [],
    fate: () => 'echo',
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const parsed = JSON.parse(Buffer.concat(parts).toString('utf8')) as ReceivedCall | ReceivedCall[];
    const request: ReceivedRequest = {
      calls: [parsed].flat(),
      batch: Array.isArray(parsed),
      url: req.url ?? '',
      authorization: req.headers.authorization,
    };
    node.requests.push(request);
    const fate = node.fate(request, node.requests.length);
    if (fate === 'hang') return;
    if (fate === 'kill') {
      req.socket.destroy();
      return;
    }
    if (fate !== 'echo') {
      res.writeHead(fate.status, { 'content-type': 'application/json' }).end(fate.body);
      return;
    }
    const answer = Array.isArray(parsed) ? parsed.map(echo) : echo(parsed);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  };
  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.port = (server.address() as { port: number }).port;
  node.url = `http://127.0.0.1:${node.port}`;
  return node;
}
