/**
 * A real local Ethereum node for integration tests: anvil (the @foundry-rs binary) spawned on a free
 * port, ready once it answers eth_chainId, killed at the end; JSON-RPC helpers to send transactions
 * from its unlocked dev accounts and mine; and an HTTP proxy in front of a node that can slow it
 * down, drop methods (as a node without them answers) or inject failures (429, 503, hangs).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { until } from './poll.js';

/** Path of the anvil binary (from the optional npm dependency @foundry-rs/anvil-linux-amd64). */
export const ANVIL_BIN = new URL('../../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url)
  .pathname;

/** Why the anvil tests cannot run here (the reason they are skipped with), or false when anvil is installed. */
export const ANVIL_MISSING: string | false = existsSync(ANVIL_BIN)
  ? false
  : `anvil's binary is missing (${ANVIL_BIN}): npm installs it with the optional dependency ` +
    `@foundry-rs/anvil-linux-amd64, on Linux x64 only (this is ${process.platform}-${process.arch})`;

/**
 * Private key of anvil's 10th dev account (the default mnemonic's index 9), for transactions anvil cannot sign itself
 * (blob, set-code).
 */
export const RAW_SIGNER_KEY = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';

/** A JSON-RPC call. */
export interface Call {
  method: string;
  params: unknown[];
}

/** A JSON-RPC response object. */
export interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** A port nothing listens on right now (bound to port 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Longest a JSON-RPC post may take: far above any answer these tests wait for (a batch of 500 calls
 * takes well under a second), so that a node or server that stops answering fails the test with the
 * methods it was asked, not at the test's own timeout with no word of where it waited.
 */
const POST_TIMEOUT_MS = 60_000;

/**
 * Posts JSON-RPC `body` (one call or a batch) to `url` and returns the parsed answer; fails naming the methods after
 * POST_TIMEOUT_MS.
 */
export async function postJson(url: string, body: unknown): Promise<unknown> {
  try {
    const res = await post(url, JSON.stringify(body));
    return JSON.parse(await res.text()) as unknown;
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'TimeoutError')) throw error;
    const methods = [body].flat().map((c) => (c as { method?: unknown }).method);
    throw new Error(`no answer from ${url} in ${POST_TIMEOUT_MS} ms to ${[...new Set(methods)].join(', ')}`);
  }
}

/** Posts JSON text (or its bytes) to `url`, given up after POST_TIMEOUT_MS. */
function post(url: string, body: string | Uint8Array): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
    signal: AbortSignal.timeout(POST_TIMEOUT_MS),
  });
}

/** Sends `calls` as batches of at most `size` to `url`; the replies come in call order. */
export async function batchCalls(url: string, calls: Call[], size = 500): Promise<Reply[]> {
  const out: Reply[] = [];
  for (let i = 0; i < calls.length; i += size) {
    const chunk = calls.slice(i, i + size).map((c, j) => ({ jsonrpc: '2.0', id: i + j, ...c }));
    const replies = (await postJson(url, chunk)) as Reply[];
    if (!Array.isArray(replies)) throw new Error(`batch answered with ${JSON.stringify(replies).slice(0, 200)}`);
    const byId = new Map(replies.map((r) => [r.id, r]));
    for (const c of chunk) out.push(byId.get(c.id) ?? { id: c.id, error: { code: 0, message: 'no reply' } });
  }
  return out;
}

/** A running anvil. */
export class Anvil {
  /** The dev accounts (unlocked), lower-case. */
  accounts: `0x${string}`[] = [];

  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly gate: Gate,
  ) {}

  /**
   * Spawns anvil with `args` on a free port and waits until it answers. Transactions are mined in
   * the order they are sent (`--order fifo`): by fee, anvil drops a sender's later nonces when it
   * meets them before earlier ones. Every client reaches it through a gate that forwards one
   * request at a time (startGate): `url` is the gate's.
   */
  static async start(args: string[] = []): Promise<Anvil> {
    const port = await freePort();
    const child = spawn(ANVIL_BIN, ['--port', String(port), '--quiet', '--order', 'fifo', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const gate = await startGate(`http://127.0.0.1:${port}`);
    const anvil = new Anvil(gate.url, child, gate);
    const deadline = Date.now() + 20_000;
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr}`);
      try {
        await anvil.rpc('eth_chainId', []);
        break;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`anvil did not answer within 20 s: ${(error as Error).message} ${stderr}`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    anvil.accounts = await anvil.rpc<`0x${string}`[]>('eth_accounts', []);
    return anvil;
  }

  /** Calls one method; a JSON-RPC error throws. */
  async rpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const reply = (await postJson(this.url, { jsonrpc: '2.0', id: 1, method, params })) as Reply;
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result as T;
  }

  /** Calls many methods in batches; a JSON-RPC error in any reply throws. */
  async rpcAll<T = unknown>(calls: Call[]): Promise<T[]> {
    const replies = await batchCalls(this.url, calls);
    return replies.map((r, i) => {
      if (r.error) throw new Error(`${calls[i]!.method}: ${r.error.message}`);
      return r.result as T;
    });
  }

  /** Sends transactions with eth_sendTransaction (anvil signs for its dev accounts) and returns their hashes. */
  sendAll(txs: Record<string, unknown>[]): Promise<`0x${string}`[]> {
    return this.rpcAll<`0x${string}`>(txs.map((tx) => ({ method: 'eth_sendTransaction', params: [tx] })));
  }

  /** Mines `blocks` blocks (the pending transactions go into the first). */
  async mine(blocks = 1): Promise<void> {
    if (blocks === 1) await this.rpc('evm_mine', []);
    else await this.rpc('anvil_mine', ['0x' + blocks.toString(16)]);
  }

  /** The head block number. */
  async head(): Promise<number> {
    return Number(await this.rpc<string>('eth_blockNumber', []));
  }

  /** The process id of anvil (to read its CPU time). */
  get pid(): number {
    return this.child.pid!;
  }

  /** Kills anvil and waits for it to exit. */
  async stop(): Promise<void> {
    await this.gate.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGKILL');
    await exited;
  }
}

/** A local HTTP server running (a gate, a proxy's server). */
interface Gate {
  url: string;
  close(): Promise<void>;
}

/**
 * An HTTP front that forwards each request's body to `target` one at a time, in arrival order. anvil
 * (1.7.1) stops answering for good when debug_traceBlockByNumber runs while it mines: followers
 * tracing each new block hung it at an evm_mine in the cluster test (CI) and the reorganisation
 * test, and a loop of evm_mine beside three clients tracing the head hangs it within about 20 s.
 * Behind the gate a mined block never overlaps another call.
 */
function startGate(target: string): Promise<Gate> {
  let queue = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      queue = queue.then(async () => {
        try {
          const answer = await post(target, Buffer.concat(chunks));
          res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(await answer.text());
        } catch (error) {
          res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`the gate to ${target}: ${String(error)}`);
        }
      });
    });
  });
  return listenLocal(server);
}

/** Starts `server` on a free loopback port; its close ends the connections still open. */
async function listenLocal(server: Server): Promise<Gate> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What the proxy does to each request. */
export interface ProxyBehavior {
  /** Milliseconds to wait before forwarding each request. */
  delayMs?: number;
  /** Methods answered with -32601, as a node without them answers. */
  unsupported?: string[];
  /** The fate of request number n (from 1): forwarded, an HTTP error status, or never answered. */
  fault?: (n: number) => 'ok' | 429 | 503 | 'hang';
  /** A JSON-RPC error for a call the node refuses (as geth refuses to trace block 0), or undefined to forward it. */
  refuse?: (call: { method: string; params?: unknown[] }) => { code: number; message: string } | undefined;
}

/** A running proxy. */
export interface NodeProxy {
  url: string;
  /** Requests received, by fate. */
  stats: { requests: number; faults: number; unsupported: number };
  close(): Promise<void>;
}

/** Starts an HTTP JSON-RPC proxy to `target` with `behavior`. */
export async function startProxy(target: string, behavior: ProxyBehavior): Promise<NodeProxy> {
  const stats = { requests: 0, faults: 0, unsupported: 0 };
  const unsupported = new Set(behavior.unsupported ?? []);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const n = ++stats.requests;
    const fate = behavior.fault?.(n) ?? 'ok';
    if (fate === 'hang') {
      stats.faults++;
      return;
    }
    if (fate !== 'ok') {
      stats.faults++;
      res.writeHead(fate, { 'Content-Type': 'text/plain', 'Retry-After': '0' }).end('injected failure');
      return;
    }
    if (behavior.delayMs) await new Promise((r) => setTimeout(r, behavior.delayMs));
    type Item = { id: unknown; method: string; params?: unknown[] };
    const body = JSON.parse(Buffer.concat(chunks).toString()) as Item[] | Item;
    const items = Array.isArray(body) ? body : [body];
    const errorOf = (i: Item) =>
      unsupported.has(i.method)
        ? { code: -32601, message: `the method ${i.method} does not exist/is not available` }
        : behavior.refuse?.(i);
    const refused = items.filter((i) => errorOf(i) !== undefined);
    stats.unsupported += refused.length;
    const forward = items.filter((i) => errorOf(i) === undefined);
    const answered = forward.length > 0 ? ((await postJson(target, forward)) as Reply[]) : [];
    const replies = [...answered, ...refused.map((i) => ({ jsonrpc: '2.0', id: i.id, error: errorOf(i) }))];
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(Array.isArray(body) ? replies : replies[0]));
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => res.writeHead(502).end(error.message));
  });
  return { ...(await listenLocal(server)), stats };
}

/** The result of one call to the JSON-RPC `endpoint`; a JSON-RPC error is thrown, naming the method. */
export async function resultAt<T = unknown>(endpoint: string, method: string, params: unknown[] = []): Promise<T> {
  const [reply] = await batchCalls(endpoint, [{ method, params }]);
  if (reply!.error) throw new Error(`${method}: ${reply!.error.message}`);
  return reply!.result as T;
}

/** Waits until the server at `endpoint` answers anvil's latest block (number and hash); returns its number. */
export async function caughtUpWith(anvil: Anvil, endpoint: string): Promise<number> {
  const tip = await anvil.rpc<Record<string, unknown>>('eth_getBlockByNumber', ['latest', false]);
  await until(
    async () =>
      (await resultAt<Record<string, unknown>>(endpoint, 'eth_getBlockByNumber', ['latest', false])).hash === tip.hash,
    `our server answers anvil's head ${String(tip.number)}`,
  );
  return Number(tip.number);
}
