/**
 * JSON-RPC over WebSocket on the HTTP port: `ws://HOST:PORT/ws/v3/<KEY>` (Infura's path) and an
 * upgrade on `/v3/<KEY>`. Every method the HTTP front serves, single and batch, answered by the same
 * handler; eth_subscribe / eth_unsubscribe answered here (subscriptions.ts) and fed by the store's
 * head (headFeed.ts). The key is checked at the upgrade and again every KEY_RECHECK_MS, so a revoked
 * key's sockets close within seconds; rate limits apply per call as over HTTP.
 *
 * Limits, each with a close code and a reason the client sees: connections per key (refused at the
 * upgrade with 429), subscriptions per connection (a JSON-RPC error, the socket stays), and a send
 * buffer per connection: a client that stops reading is closed with 1008 once WS_SEND_BUFFER_BYTES
 * wait for it, so nobody else waits on it; a message over the body limit closes with 1009.
 *
 * Shutdown drains as HTTP does: calls in flight are counted with the HTTP front's requests, new
 * messages are answered -32000 `server is shutting down`, and each socket closes with 1001 once its
 * last answer is sent (or when the front closes, after the grace).
 */
import { MAX_JSON_DEPTH } from '../config.js';
import type { AccessEntry, AccessLog } from '../http/accessLog.js';
import type { InFlight } from '../http/drain.js';
import { callCount, refusedBody } from '../http/rateLimit.js';
import { errorBody, INTERNAL_ERROR_BODY, INVALID_KEY, MISSING_KEY, REVOKED_KEY, type Reply } from '../http/replies.js';
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket } from '../http/uws.js';
import type { ByteBudget } from '../limits/byteBudget.js';
import type { KeyBudget, RateLimiter } from '../limits/rateLimiter.js';
import type { LimitRefusals } from '../limits/refusals.js';
import type { Logger } from '../logger.js';
import type { RefusalReason } from '../metrics/callStats.js';
import { LimitExceededError, ShuttingDownError, toRpcError } from '../rpc/errors.js';
import { flatBody, type RequestControl, type RpcBody, type RpcHandler } from '../rpc/handler.js';
import { nestsDeeperThan } from '../rpc/jsonDepth.js';
import type { ApiKeyStatus as AuthStatus } from '../store/apiKeys.js';
import type { StoreReader } from '../store/reader.js';
import { HEAD_POLL_MS, type HeadChange, HeadFeed } from './headFeed.js';
import { ChangeRendering, ConnectionSubscriptions, notification } from './subscriptions.js';

/**
 * Open WebSockets one key may hold: a thousand subscribers of a load test fit; a leak of sockets from one client stops
 * well before the process's file limit.
 */
export const MAX_WS_CONNECTIONS_PER_KEY = 2_048;

/**
 * Bytes waiting to be sent to one client before it is closed as not reading: room for the largest eth_getLogs answer
 * (~7 MB) twice over.
 */
export const WS_SEND_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * Bytes uWS may hold unsent for a socket before notifications wait for its client to read (its
 * `drain`): enough to keep a reading client's connection busy, little enough that a thousand
 * sockets' buffers stay small.
 */
export const WS_NOTIFY_BUFFER_BYTES = 256 * 1024;

/**
 * Head changes a subscriber may be behind, with notifications of the oldest still unsent, before it
 * is closed (1008): a client that cannot take four blocks' notifications in as many blocks falls
 * ever further behind, and the renderings it holds stay in memory for it.
 */
export const WS_MAX_CHANGES_BEHIND = 4;

/** Longest the notifications run at a time before they yield to the requests waiting on the thread (setImmediate). */
const NOTIFY_SLICE_MS = 2;

/** Notifications sent between looks at the clock. */
const NOTIFY_CLOCK_EVERY = 64;

/** How often the keys of open sockets are checked again: a revoked key's sockets close within this. */
export const KEY_RECHECK_MS = 2_000;

/** Seconds without a frame either way before uWS closes a socket (it pings in between): uWS's default. */
const IDLE_TIMEOUT_S = 120;

/** Close code for a policy violation (RFC 6455): revoked key, send buffer over its bound. */
const POLICY_VIOLATION = 1008;

/** Close code of a server going away (RFC 6455). */
const GOING_AWAY = 1001;

/** Close code of a message too big to process (RFC 6455). */
const MESSAGE_TOO_BIG = 1009;

/**
 * uWS's own message limit, as a multiple of the body limit: uWS drops a connection whose message
 * passes its limit without a close frame (the client sees 1006), so it is set above ours and a
 * message between the two is closed here with 1009; uWS buffers a message up to its limit.
 */
export const WS_HARD_LIMIT_FACTOR = 2;

/** The answer to a call that arrives while the server drains. */
const SHUTTING_DOWN_BODY = errorBody(new ShuttingDownError());

/** The paths a WebSocket upgrade is taken on; the key is the pattern's parameter. */
export const WS_PATTERNS = ['/ws/v3/:key', '/v3/:key'] as const;

/** What the WebSocket front needs from the server it rides on. */
export interface WsFrontOptions {
  /** Answers every method but the subscription ones. */
  handler: RpcHandler;
  /** Checks an API key. */
  auth: (key: string) => AuthStatus;
  /** The store whose head feeds the subscriptions. */
  reader: StoreReader;
  /** Largest filter (addresses plus topics) a logs subscription may give, as eth_getLogs. */
  maxParams: number;
  /**
   * Largest message in bytes; a larger one closes the socket with 1009 (up to WS_HARD_LIMIT_FACTOR times it; past that
   * uWS drops it).
   */
  maxPayloadBytes: number;
  /** The HTTP front's count of requests in flight: a drain waits for WebSocket calls too. */
  inFlight?: InFlight;
  /** Hears every message refused by a limit (the metrics). */
  onRefusal?: (reason: RefusalReason) => void;
  /** Per-key rate limit, per call. */
  rateLimit?: RateLimiter;
  logger: Logger;
  /** Where each upgrade request gets its line: 101 when taken, else the refusal's status. */
  accessLog: AccessLog;
  /** How often the head is read while anyone subscribes; HEAD_POLL_MS by default. */
  pollMs?: number;
  /** MAX_WS_CONNECTIONS_PER_KEY by default. */
  connectionsPerKey?: number;
  /** WS_SEND_BUFFER_BYTES by default. */
  sendBufferBytes?: number;
  /** The byte budget `logs` subscriptions are charged to, shared by every thread; none: unbounded but by count. */
  subscriptionBudget?: ByteBudget;
  /** Where refusals are counted by reason (subscriptions over budget, subscribers left behind). */
  limitRefusals?: LimitRefusals;
}

/** The state of one socket. */
interface Connection {
  key: string;
  subs: ConnectionSubscriptions;
  budget: KeyBudget | undefined;
  /** Set once the socket is closed: answers still being computed are dropped. */
  closed: boolean;
  /** Calls received and not answered yet. */
  pending: number;
  /** Aborted when the socket closes: its calls waiting or running stop (work follows its client). */
  abort: AbortController;
  /** What its calls are handled with: the socket's signal, and whether it closed. */
  control: RequestControl;
  /** Notifications still to send, oldest first: a subscription's results from `next` on, of head change `change`. */
  outbox: { id: string; results: readonly string[]; next: number; change: number }[];
}

/** A JSON-RPC request object as far as this front looks at it. */
interface Call {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Whether `value` is a 2.0 call of eth_subscribe or eth_unsubscribe (answered here, not by the handler). */
function isSubscriptionCall(value: unknown): value is Call {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const call = value as Call;
  return (
    call.jsonrpc === '2.0' &&
    (call.method === 'eth_subscribe' || call.method === 'eth_unsubscribe') &&
    (call.params === undefined || Array.isArray(call.params))
  );
}

/** The text of an RpcBody. */
function text(body: RpcBody): string {
  const flat = flatBody(body);
  return typeof flat === 'string' ? flat : Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength).toString('utf8');
}

/** The WebSocket front of one HTTP app. */
export class WsFront {
  private readonly sockets = new Set<WebSocket<Connection>>();
  private readonly perKey = new Map<string, number>();
  private readonly feed: HeadFeed;
  private unlisten: (() => void) | undefined;
  private readonly recheck: NodeJS.Timeout;
  private readonly sendBuffer: number;
  /** Bytes uWS may hold unsent for a socket before its notifications wait for `drain`. */
  private readonly notifyBuffer: number;
  private closing = false;
  /** Head changes published so far (their serial numbers). */
  private changes = 0;
  /** Sockets with notifications to send. */
  private readonly sending = new Set<WebSocket<Connection>>();
  /** Whether a notification slice is scheduled. */
  private scheduled = false;

  /** Prepares the front; nothing is served before register(). */
  constructor(private readonly opts: WsFrontOptions) {
    this.feed = new HeadFeed(opts.reader, opts.pollMs ?? HEAD_POLL_MS, (error) =>
      opts.logger.error('ws: following the head failed', error),
    );
    this.sendBuffer = opts.sendBufferBytes ?? WS_SEND_BUFFER_BYTES;
    // Under uWS's limit (maxBackpressure, twice the send buffer), past which it drops messages.
    this.notifyBuffer = Math.min(WS_NOTIFY_BUFFER_BYTES, Math.floor(this.sendBuffer / 2));
    this.recheck = setInterval(() => this.recheckKeys(), KEY_RECHECK_MS);
    this.recheck.unref();
  }

  /** Takes WebSocket upgrades on WS_PATTERNS of `app`. */
  register(app: TemplatedApp): void {
    for (const pattern of WS_PATTERNS) {
      app.ws<Connection>(pattern, {
        maxPayloadLength: WS_HARD_LIMIT_FACTOR * this.opts.maxPayloadBytes,
        maxBackpressure: 2 * this.sendBuffer,
        idleTimeout: IDLE_TIMEOUT_S,
        sendPingsAutomatically: true,
        upgrade: (res, req, context) => this.upgrade(res, req, context),
        open: (ws) => this.open(ws),
        message: (ws, message) => this.message(ws, message),
        close: (ws) => this.closed(ws),
        drain: () => this.schedule(),
      });
    }
  }

  /**
   * Refuses new upgrades and new calls, and closes with 1001 (the server is shutting down) every
   * socket without a call in flight; the others close once their last answer is sent.
   */
  refuse(): void {
    this.closing = true;
    for (const ws of [...this.sockets]) if (ws.getUserData().pending === 0) this.goAway(ws);
  }

  /**
   * Closes every socket left with 1001, stops the head feed and the key checks (after the drain, once the app closes).
   */
  close(): void {
    this.closing = true;
    for (const ws of [...this.sockets]) this.goAway(ws);
    clearInterval(this.recheck);
    this.feed.close();
  }

  /** Closes `ws` with 1001 unless it is closed already. */
  private goAway(ws: WebSocket<Connection>): void {
    if (!ws.getUserData().closed) ws.end(GOING_AWAY, 'server is shutting down');
  }

  /** Open sockets now. */
  get connections(): number {
    return this.sockets.size;
  }

  /** Refuses an upgrade with `reply`, and logs it. */
  private reply(res: HttpResponse, reply: Reply, entry: AccessEntry | undefined): void {
    res.writeStatus(reply.status);
    res.writeHeader('Content-Type', 'application/json');
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
    res.end(reply.body);
    this.opts.accessLog.end(entry, {
      status: Number.parseInt(reply.status, 10),
      bytes: Buffer.byteLength(reply.body),
      coding: null,
    });
  }

  private upgrade(res: HttpResponse, req: HttpRequest, context: unknown): void {
    const key = req.getParameter(0) ?? '';
    const entry = this.opts.accessLog.begin('ws-upgrade', 'GET', key);
    const secKey = req.getHeader('sec-websocket-key');
    const protocol = req.getHeader('sec-websocket-protocol');
    const extensions = req.getHeader('sec-websocket-extensions');
    if (this.closing)
      return this.reply(
        res,
        { status: '503 Service Unavailable', body: errorBody(new ShuttingDownError()), headers: [] },
        entry,
      );
    if (key === '') return this.reply(res, MISSING_KEY, entry);
    let status: AuthStatus;
    try {
      status = this.opts.auth(key);
    } catch (error) {
      this.opts.logger.error('ws: API key check failed', error);
      return this.reply(res, { status: '500 Internal Server Error', body: INTERNAL_ERROR_BODY, headers: [] }, entry);
    }
    if (status !== 'valid') return this.reply(res, status === 'revoked' ? REVOKED_KEY : INVALID_KEY, entry);
    const limit = this.opts.connectionsPerKey ?? MAX_WS_CONNECTIONS_PER_KEY;
    if ((this.perKey.get(key) ?? 0) >= limit) {
      return this.reply(
        res,
        {
          status: '429 Too Many Requests',
          body: errorBody(new LimitExceededError(`too many WebSocket connections for this key (at most ${limit})`)),
          headers: [],
        },
        entry,
      );
    }
    const { subscriptionBudget: budget, limitRefusals: refusals } = this.opts;
    const abort = new AbortController();
    const subs = new ConnectionSubscriptions(this.opts.maxParams, budget && { budget, owner: key, refusals });
    const connection: Connection = {
      key,
      subs,
      budget: this.opts.rateLimit?.budget(key),
      closed: false,
      pending: 0,
      abort,
      outbox: [],
      control: {
        signal: abort.signal,
        get gone() {
          return connection.closed;
        },
      },
    };
    res.upgrade(connection, secKey, protocol, extensions, context as never);
    this.opts.accessLog.end(entry, { status: 101, bytes: 0, coding: null });
  }

  private open(ws: WebSocket<Connection>): void {
    const { key } = ws.getUserData();
    this.sockets.add(ws);
    this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
  }

  private closed(ws: WebSocket<Connection>): void {
    const connection = ws.getUserData();
    connection.closed = true;
    connection.abort.abort();
    connection.outbox = [];
    this.sending.delete(ws);
    this.sockets.delete(ws);
    const left = (this.perKey.get(connection.key) ?? 1) - 1;
    if (left > 0) this.perKey.set(connection.key, left);
    else this.perKey.delete(connection.key);
    if (connection.subs.size > 0) {
      connection.subs.clear();
      this.subscriptionsChanged();
    }
  }

  /** Sends `message` unless the socket closed meanwhile; closes a socket whose client stopped reading. */
  private send(ws: WebSocket<Connection>, message: string): void {
    if (ws.getUserData().closed) return;
    ws.send(message, false);
    if (ws.getBufferedAmount() > this.sendBuffer)
      ws.end(POLICY_VIOLATION, `send buffer over ${this.sendBuffer} bytes: the client is not reading`);
  }

  private message(ws: WebSocket<Connection>, message: ArrayBuffer): void {
    const connection = ws.getUserData();
    if (message.byteLength > this.opts.maxPayloadBytes) {
      this.opts.onRefusal?.('ws_message_too_large');
      ws.end(MESSAGE_TOO_BIG, `message too large, limit ${this.opts.maxPayloadBytes} bytes`);
      return;
    }
    if (this.closing) return this.send(ws, SHUTTING_DOWN_BODY);
    const bytes = new Uint8Array(message.slice(0));
    const refused = connection.budget?.take(callCount(bytes));
    if (refused) return this.send(ws, refusedBody(refused, bytes));
    connection.pending++;
    const left = this.opts.inFlight?.enter();
    const answered = (body: string) => {
      if (body !== '') this.send(ws, body);
      connection.pending--;
      left?.();
      if (this.closing && connection.pending === 0) this.goAway(ws);
    };
    let answer: string | Promise<string>;
    try {
      answer = this.answer(connection, bytes);
    } catch (error) {
      this.opts.logger.error('ws: handler failed', error);
      answer = INTERNAL_ERROR_BODY;
    }
    if (typeof answer === 'string') return answered(answer);
    answer.then(answered, (error: unknown) => {
      this.opts.logger.error('ws: handler failed', error);
      answered(INTERNAL_ERROR_BODY);
    });
  }

  /** The answer to one message: subscription calls answered here, the rest by the handler. */
  private answer(connection: Connection, bytes: Uint8Array): string | Promise<string> {
    const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    // The handler refuses a body nested too deep before parsing it; this parse must not run first.
    if ((!raw.includes('eth_subscribe') && !raw.includes('eth_unsubscribe')) || nestsDeeperThan(bytes, MAX_JSON_DEPTH))
      return this.delegate(connection, bytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return this.delegate(connection, bytes);
    }
    if (isSubscriptionCall(parsed)) return this.local(connection, parsed);
    if (!Array.isArray(parsed) || !parsed.some(isSubscriptionCall)) return this.delegate(connection, bytes);
    const parts = parsed.map((item: unknown) =>
      isSubscriptionCall(item)
        ? this.local(connection, item)
        : this.delegate(connection, Buffer.from(JSON.stringify(item))),
    );
    return Promise.all(parts).then((answers) => {
      const nonEmpty = answers.filter((a) => a !== '');
      return nonEmpty.length === 0 ? '' : `[${nonEmpty.join(',')}]`;
    });
  }

  /** The handler's answer as text, for the connection's key. */
  private delegate(connection: Connection, bytes: Uint8Array): string | Promise<string> {
    const out = this.opts.handler.handle(bytes, undefined, connection.key, connection.control);
    return out instanceof Promise ? out.then(text) : text(out);
  }

  /**
   * Answers eth_subscribe or eth_unsubscribe on `connection`; a call without id is a notification and gets no answer.
   */
  private local(connection: Connection, call: Call): string {
    const params = (call.params ?? []) as unknown[];
    let body: string;
    // The head's moves before a new subscription go to the subscriptions made before it, not to it.
    if (call.method === 'eth_subscribe' && this.unlisten !== undefined) this.feed.poll();
    try {
      const result =
        call.method === 'eth_subscribe' ? connection.subs.subscribe(params) : connection.subs.unsubscribe(params);
      body = JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, result });
    } catch (error) {
      const rpc = toRpcError(error);
      if (rpc === undefined) throw error;
      body = JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: rpc.toJSON() });
    }
    this.subscriptionsChanged();
    return call.id === undefined ? '' : body;
  }

  /** Listens to the head while any socket subscribes, and only then. */
  private subscriptionsChanged(): void {
    let any = false;
    for (const ws of this.sockets) if (ws.getUserData().subs.size > 0) any = true;
    if (any && this.unlisten === undefined) this.unlisten = this.feed.listen((change) => this.publish(change));
    else if (!any && this.unlisten !== undefined) {
      this.unlisten();
      this.unlisten = undefined;
    }
  }

  /**
   * Queues every subscriber's notifications of `change` (results rendered once per distinct filter,
   * shared), and closes a subscriber still holding notifications of WS_MAX_CHANGES_BEHIND changes ago.
   */
  private publish(change: HeadChange): void {
    const rendering = new ChangeRendering(this.opts.reader, change);
    const serial = ++this.changes;
    for (const ws of [...this.sockets]) {
      const connection = ws.getUserData();
      if (connection.subs.size === 0 || connection.closed) continue;
      const oldest = connection.outbox[0];
      if (oldest !== undefined && serial - oldest.change >= WS_MAX_CHANGES_BEHIND) {
        this.opts.limitRefusals?.add('slow_subscriber');
        connection.outbox = [];
        this.sending.delete(ws);
        ws.end(
          POLICY_VIOLATION,
          `subscriber fell behind: notifications of ${WS_MAX_CHANGES_BEHIND} head changes unread`,
        );
        continue;
      }
      let outgoing: { id: string; results: readonly string[] }[];
      try {
        outgoing = connection.subs.outgoing(rendering);
      } catch (error) {
        this.opts.logger.error('ws: rendering notifications failed', error);
        continue;
      }
      for (const { id, results } of outgoing) connection.outbox.push({ id, results, next: 0, change: serial });
      if (connection.outbox.length > 0) this.sending.add(ws);
    }
    this.schedule();
  }

  /** Runs a notification slice soon (once, however often asked): after the requests waiting on the thread. */
  private schedule(): void {
    if (this.scheduled || this.sending.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.notify();
    });
  }

  /**
   * Sends queued notifications for up to NOTIFY_SLICE_MS, socket after socket, each while its client
   * reads (uWS holds at most notifyBuffer unsent; past that the socket waits for `drain`);
   * then yields, so requests are answered between slices however many notifications a change makes.
   */
  private notify(): void {
    const started = performance.now();
    let sent = 0;
    for (const ws of [...this.sending]) {
      const connection = ws.getUserData();
      let outOfTime = false;
      ws.cork(() => {
        while (!connection.closed && connection.outbox.length > 0) {
          if (ws.getBufferedAmount() > this.notifyBuffer) return;
          const item = connection.outbox[0]!;
          ws.send(notification(item.id, item.results[item.next++]!), false);
          if (item.next === item.results.length) connection.outbox.shift();
          if (++sent % NOTIFY_CLOCK_EVERY === 0 && performance.now() - started > NOTIFY_SLICE_MS) {
            outOfTime = true;
            return;
          }
        }
      });
      this.sending.delete(ws);
      // A socket with more to send goes to the back: the next slice starts with the others.
      if (!connection.closed && connection.outbox.length > 0) this.sending.add(ws);
      if (outOfTime) break;
    }
    // Sockets still sending but all waiting on their clients resume on `drain`; otherwise the next slice.
    if (sent > 0) this.schedule();
  }

  /** Closes the sockets whose key is no longer valid. */
  private recheckKeys(): void {
    const statuses = new Map<string, AuthStatus>();
    for (const ws of [...this.sockets]) {
      const { key } = ws.getUserData();
      let status = statuses.get(key);
      if (status === undefined) {
        try {
          status = this.opts.auth(key);
        } catch (error) {
          this.opts.logger.error('ws: API key check failed', error);
          return;
        }
        statuses.set(key, status);
      }
      if (status !== 'valid') ws.end(POLICY_VIOLATION, status === 'revoked' ? 'API key revoked' : 'invalid API key');
    }
  }
}
