/**
 * Sends fuzzed exchanges: over node:http with keep-alive connections (any method, path, Content-Type
 * or none, any body), and raw bytes over a fresh socket that is half-closed after them.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import type { FuzzExchange } from './exchanges.js';
import type { HttpAnswer } from './oracle.js';

/** Longest wait for one answer: a giant batch of eth_getLogs takes seconds on a loaded 2-core machine. */
const ANSWER_TIMEOUT_MS = 60_000;

/**
 * Longest wait for the server to close a raw socket after our half-close; past it the socket is dropped (counted, not
 * failed).
 */
const RAW_CLOSE_TIMEOUT_MS = 5_000;

/**
 * Errors a client may see when the server closes a connection while the request is still being written (413 closes it).
 */
const CLOSED_WHILE_SENDING = new Set(['ECONNRESET', 'EPIPE']);

/**
 * The outcome of one exchange: an answer, or the connection closed while sending (only for bodies the server refuses
 * unread).
 */
export type Outcome = { answer: HttpAnswer } | { closed: string };

/** An HTTP client for one server. */
export class FuzzClient {
  private readonly agent: Agent;

  /** A client of host:port keeping up to `sockets` connections alive. */
  constructor(
    private readonly host: string,
    private readonly port: number,
    sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** Sends `ex` and resolves with the answer; `mayClose` accepts a connection closed while sending. */
  send(ex: FuzzExchange, mayClose: boolean): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      // node:http sends the body of a GET, HEAD, DELETE or OPTIONS without a length unless told: the framing would be
      // ours to blame.
      const headers: Record<string, string> = { 'Content-Length': String(ex.body.length) };
      if (ex.contentType !== undefined) headers['Content-Type'] = ex.contentType;
      const req = request(
        {
          host: this.host,
          port: this.port,
          method: ex.method,
          path: ex.path,
          headers,
          agent: this.agent,
          timeout: ANSWER_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ answer: { status: res.statusCode!, body: Buffer.concat(chunks) } }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (mayClose && error.code !== undefined && CLOSED_WHILE_SENDING.has(error.code))
          resolve({ closed: error.code });
        else reject(error);
      });
      req.end(ex.body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/**
 * Writes `bytes` on a new connection, half-closes it, and resolves with everything received until the server closes it
 * (or `held` when it does not in time).
 */
export function sendRaw(host: string, port: number, bytes: Uint8Array): Promise<{ received: Buffer; held: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    const chunks: Buffer[] = [];
    let held = false;
    const timer = setTimeout(() => {
      held = true;
      socket.destroy();
    }, RAW_CLOSE_TIMEOUT_MS);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received: Buffer.concat(chunks), held });
    });
    socket.end(bytes);
  });
}
