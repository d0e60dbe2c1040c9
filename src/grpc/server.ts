/**
 * The gRPC front (docs/architecture.md §1): ethlogd.v1.EthLogs on @grpc/grpc-js over HTTP/2, with
 * server reflection. Every call is authenticated by its `x-api-key` metadata, then answered by the
 * same method layer as the HTTP front (convert.ts maps the messages); GetLogs and StreamLogs answer
 * with protobuf the log engine's workers render directly (logProto.ts), sent without re-encoding.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import {
  type handleUnaryCall,
  logVerbosity,
  type Metadata,
  Server,
  ServerCredentials,
  type ServerErrorResponse,
  type ServerWritableStream,
  type ServiceDefinition,
  type StatusObject,
  type sendUnaryData,
  setLogVerbosity,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import {
  GRPC_IDLE_TIMEOUT_MS,
  GRPC_MAX_CONNECTIONS,
  GRPC_PREFACE_TIMEOUT_MS,
  STREAM_BATCH_BYTES,
  STREAM_STALL_MS,
  STREAM_TIMEOUT_MS,
} from '../config.js';
import { admitFor, type LogGate } from '../limits/admission.js';
import type { RateLimiter } from '../limits/rateLimiter.js';
import { bindFailureCode, PortUnavailableError } from '../listenError.js';
import type { LogChunks } from '../logs/answer.js';
import type { LogEngine } from '../logs/engine.js';
import type { RefusalReason } from '../metrics/callStats.js';
import { parseFilter } from '../rpc/filterParams.js';
import type { MethodContext, RpcMethod } from '../rpc/method.js';
import { METHODS } from '../rpc/methods/index.js';
import { CALL_OK, type CallObserver } from '../rpc/observe.js';
import type { ApiKeyStatus } from '../store/apiKeys.js';
import { authenticate, keyOf } from './auth.js';
import {
  blockByNumberParams,
  blockReceiptsParams,
  blockReceiptsResponse,
  blockResponse,
  filterObject,
  type LogFilterMessage,
  type ProtoObject,
  receiptResponse,
  storageAtParams,
  storageAtResponse,
  transactionResponse,
  txByBlockNumberAndIndexParams,
  txByHashParams,
} from './convert.js';
import { LOADER_OPTIONS, loadDefinition, SERVICE_NAME } from './definition.js';
import { CODE_TRAILER, toGrpcFailure } from './errors.js';
import { type StreamEvents, type StreamLogsMessage, serveStreamLogs } from './streamLogs.js';

/** Options of the gRPC front. */
export interface GrpcServerOptions {
  /** Address to bind. */
  host: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** The method layer's context, shared with the HTTP front. */
  ctx: MethodContext;
  /** The log engine behind ctx.queryLogs, asked for protobuf answers and streams. */
  engine: LogEngine;
  /** Checks an API key. */
  auth: (key: string) => ApiKeyStatus;
  /** Per-key rate limit, one token a call (RESOURCE_EXHAUSTED past it); none by default. */
  rateLimit?: RateLimiter;
  /** Admission of GetLogs past the inline budget and of StreamLogs calls (limits/admission.ts); none: unlimited. */
  gate?: LogGate;
  /** StreamLogs deadline in milliseconds, 0 for none; STREAM_TIMEOUT_MS by default. */
  streamTimeoutMs?: number;
  /** Longest a StreamLogs waits for its client to read, 0 for the deadline alone; STREAM_STALL_MS by default. */
  streamStallMs?: number;
  /** Open connections accepted at once; GRPC_MAX_CONNECTIONS by default. */
  maxConnections?: number;
  /** A connection without a call for this long is closed; GRPC_IDLE_TIMEOUT_MS by default. */
  idleTimeoutMs?: number;
  /** A connection that sends nothing for this long is closed; GRPC_PREFACE_TIMEOUT_MS by default. */
  prefaceTimeoutMs?: number;
  /** Hears every connection refused by the cap (the metrics). */
  onRefusal?: (reason: RefusalReason) => void;
  /** Largest LogBatch in bytes; STREAM_BATCH_BYTES by default. */
  streamBatchBytes?: number;
  /** Logs per StreamLogs scan task; the engine's default when unset. */
  streamTaskLogs?: number;
  /** Where unexpected failures are reported (their details never reach the client). */
  onError: (message: string, error: unknown) => void;
  /** Hears of every answered unary call, by its JSON-RPC method (metrics); none by default. */
  observer?: CallObserver;
}

/** A listening gRPC front. */
export interface GrpcServer {
  /** The address bound. */
  host: string;
  /** The port actually bound. */
  port: number;
  /** StreamLogs progress events. */
  events: EventEmitter<StreamEvents>;
  /**
   * Stops accepting connections and calls, lets running ones finish for `graceMs`, then ends the
   * streams left with UNAVAILABLE and closes every connection; resolves true when it had to.
   */
  close(graceMs: number): Promise<boolean>;
}

/** The service definition, with GetLogs and StreamLogs sending the bytes they are given as they are. */
function serviceDefinition(): { definition: ServiceDefinition; reflection: ReflectionService } {
  const pkg = loadDefinition();
  const service = pkg[SERVICE_NAME] as unknown as ServiceDefinition;
  const asIs = (message: Buffer) => message;
  const definition: ServiceDefinition = {
    ...service,
    GetLogs: { ...service.GetLogs!, responseSerialize: asIs },
    StreamLogs: { ...service.StreamLogs!, responseSerialize: asIs },
  };
  // Reflection describes the fields by their names in the .proto (snake_case), not as camelCased for JavaScript.
  return { definition, reflection: new ReflectionService(loadDefinition({ ...LOADER_OPTIONS, keepCase: true })) };
}

/** What StreamLogs calls run with (streamLogs.ts). */
type StreamContext = Parameters<typeof serveStreamLogs>[1];

/**
 * What every call of one gRPC front reads, made once when it starts: the handlers are module-level
 * functions over it.
 */
interface GrpcFront {
  options: GrpcServerOptions;
  /** The method layer's context: answers come back as wire objects (convert.ts maps them), never as JSON text. */
  ctx: MethodContext;
  events: EventEmitter<StreamEvents>;
  streamContext: StreamContext;
  /** StreamLogs calls running: the ones a shutdown cuts at its bound are ended with UNAVAILABLE. */
  streams: Set<ServerWritableStream<StreamLogsMessage, Buffer>>;
}

/** The front of `options`, its defaults applied. */
function createGrpcFront(options: GrpcServerOptions): GrpcFront {
  const ctx: MethodContext = { ...options.ctx, rawJson: false };
  const events = new EventEmitter<StreamEvents>();
  const streamContext: StreamContext = {
    engine: options.engine,
    reader: ctx.reader,
    limits: ctx.limits,
    timeoutMs: options.streamTimeoutMs ?? STREAM_TIMEOUT_MS,
    stallMs: options.streamStallMs ?? STREAM_STALL_MS,
    batchBytes: options.streamBatchBytes ?? STREAM_BATCH_BYTES,
    taskLogs: options.streamTaskLogs,
    events,
    onError: options.onError,
    admission: options.gate?.admission,
  };
  return { options, ctx, events, streamContext, streams: new Set() };
}

/** Why a call with `metadata` is refused (its API key or its rate limit), or nothing. */
function denial(front: GrpcFront, metadata: Metadata) {
  return authenticate(metadata, front.options.auth, front.options.rateLimit);
}

/** The gRPC status of a failure. */
function fail(front: GrpcFront, error: unknown) {
  return toGrpcFailure(error, front.options.onError);
}

/** A unary call answered by a JSON-RPC method: request to params, result to the response. */
function unary<Request>(
  front: GrpcFront,
  name: string,
  toParams: (request: Request) => unknown[],
  toResponse: (result: unknown) => ProtoObject,
): handleUnaryCall<Request, ProtoObject> {
  const method: RpcMethod = METHODS.get(name)!;
  return (call, callback) => {
    const answer = (result: unknown) => {
      let response: ProtoObject;
      try {
        response = toResponse(result);
      } catch (error) {
        return callback(fail(front, error));
      }
      callback(null, response);
    };
    try {
      const denied = denial(front, call.metadata);
      if (denied) return callback(fail(front, denied));
      const result = method(toParams(call.request), front.ctx);
      if (result instanceof Promise) result.then(answer, (error: unknown) => callback(fail(front, error)));
      else answer(result);
    } catch (error) {
      callback(fail(front, error));
    }
  };
}

/** Answers GetLogs with the protobuf the workers render. */
function getLogs(
  front: GrpcFront,
  call: Parameters<handleUnaryCall<{ filter?: LogFilterMessage }, Buffer>>[0],
  callback: sendUnaryData<Buffer>,
): void {
  const { ctx, options } = front;
  try {
    const denied = denial(front, call.metadata);
    if (denied) return callback(fail(front, denied));
    const spec = parseFilter(filterObject(call.request.filter), ctx.limits.maxParams);
    const abort = new AbortController();
    call.once('cancelled', () => abort.abort());
    const admit = options.gate && admitFor(options.gate, keyOf(call.metadata));
    const answer = options.engine.query(spec, ctx.reader, 'proto', { signal: abort.signal, admit });
    const send = (chunks: LogChunks) => callback(null, Buffer.concat(chunks as Uint8Array[]));
    if (Array.isArray(answer)) send(answer);
    else answer.then(send, (error: unknown) => callback(fail(front, error)));
  } catch (error) {
    callback(fail(front, error));
  }
}

/** Serves a StreamLogs call, kept among the streams running until it ends. */
function streamLogs(front: GrpcFront, call: ServerWritableStream<StreamLogsMessage, Buffer>): void {
  const denied = denial(front, call.metadata);
  if (denied) {
    call.emit('error', fail(front, denied));
    return;
  }
  const { streams } = front;
  streams.add(call);
  void serveStreamLogs(call, front.streamContext).finally(() => streams.delete(call));
}

/**
 * `handle`, reporting each answered call to the observer as `name` with its outcome (the JSON-RPC code of a failure).
 */
function observed<Request, Response>(
  front: GrpcFront,
  name: string,
  handle: handleUnaryCall<Request, Response>,
): handleUnaryCall<Request, Response> {
  const { observer } = front.options;
  if (observer === undefined) return handle;
  return (call, callback) => {
    const started = performance.now();
    handle(call, (error, value) => {
      observer.onCall(name, error ? jsonRpcCodeOf(error) : CALL_OK, (performance.now() - started) / 1000);
      callback(error, value);
    });
  };
}

/** The handlers of the service's calls. */
function handlersOf(front: GrpcFront): UntypedServiceImplementation {
  const answered = <Request>(
    name: string,
    toParams: (request: Request) => unknown[],
    toResponse: (result: unknown) => ProtoObject,
  ) => observed(front, name, unary(front, name, toParams, toResponse));
  return {
    GetStorageAt: answered('eth_getStorageAt', storageAtParams, storageAtResponse),
    GetLogs: observed(front, 'eth_getLogs', (call, callback) => getLogs(front, call, callback)),
    GetTransactionByBlockNumberAndIndex: answered(
      'eth_getTransactionByBlockNumberAndIndex',
      txByBlockNumberAndIndexParams,
      transactionResponse,
    ),
    GetBlockByNumber: answered('eth_getBlockByNumber', blockByNumberParams, blockResponse),
    GetTransactionByHash: answered('eth_getTransactionByHash', txByHashParams, transactionResponse),
    GetTransactionReceipt: answered('eth_getTransactionReceipt', txByHashParams, receiptResponse),
    GetBlockReceipts: answered('eth_getBlockReceipts', blockReceiptsParams, blockReceiptsResponse),
    StreamLogs: (call: ServerWritableStream<StreamLogsMessage, Buffer>) => streamLogs(front, call),
  };
}

/** The grpc-js server with the service and reflection added. */
function createServer(front: GrpcFront): Server {
  // Channelz (per-call tracing for debugging tools) costs every call; nothing here serves it.
  const server = new Server({
    'grpc.enable_channelz': 0,
    'grpc.max_connection_idle_ms': front.options.idleTimeoutMs ?? GRPC_IDLE_TIMEOUT_MS,
  });
  const { definition, reflection } = serviceDefinition();
  server.addService(definition, handlersOf(front));
  reflection.addToServer(server);
  // grpc-js would print its own line for a failed bind ("No address added...") before ours says
  // which port and why; an operator can still ask for its logs with GRPC_VERBOSITY.
  if (process.env.GRPC_VERBOSITY === undefined) setLogVerbosity(logVerbosity.NONE);
  return server;
}

/** The open connections of a front, and who waits for the last to close. */
interface Connections {
  sockets: Set<net.Socket>;
  /** Called once the last connection closes, while a shutdown waits for it. */
  socketsClosed: (() => void) | undefined;
}

/** The connection injector of grpc-js. */
type Injector = ReturnType<Server['createConnectionInjector']>;

/**
 * The TCP listener handing each connection to `injector` once its first bytes come: connections
 * past the cap are refused, and one silent past the preface timeout is closed.
 */
function connectionListener(front: GrpcFront, connections: Connections, injector: Injector): net.Server {
  const { options } = front;
  const { sockets } = connections;
  const maxConnections = options.maxConnections ?? GRPC_MAX_CONNECTIONS;
  const prefaceMs = options.prefaceTimeoutMs ?? GRPC_PREFACE_TIMEOUT_MS;
  // Paused: the first bytes are waited for here, then handed to HTTP/2 with the connection.
  return net.createServer({ pauseOnConnect: true }, (socket) => {
    if (sockets.size >= maxConnections) {
      options.onRefusal?.('grpc_connections');
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) connections.socketsClosed?.();
    });
    socket.on('error', () => socket.destroy());
    const silent = setTimeout(() => {
      options.onRefusal?.('grpc_preface_timeout');
      socket.destroy();
    }, prefaceMs);
    socket.once('readable', () => {
      clearTimeout(silent);
      if (!socket.destroyed) injector.injectConnection(socket);
    });
  });
}

/** Makes `listener` listen on the options' address; resolves with the port, rejects with a PortUnavailableError. */
async function listenPort(listener: net.Server, options: GrpcServerOptions): Promise<number> {
  const port = await new Promise<number | undefined>((resolve) => {
    listener.once('error', () => resolve(undefined));
    listener.listen(options.port, options.host, () => resolve((listener.address() as net.AddressInfo).port));
  });
  if (port === undefined)
    throw new PortUnavailableError(
      'grpc',
      options.host,
      options.port,
      await bindFailureCode(options.host, options.port),
      '--grpc-port, or --grpc-port off',
    );
  return port;
}

/**
 * Closes the front: no new connections, GOAWAY on the open ones, and after `graceMs` the streams
 * still running ended with UNAVAILABLE (sent when their client reads) and every connection closed;
 * resolves true when it had to.
 */
function closeFront(
  front: GrpcFront,
  parts: { server: Server; injector: Injector; listener: net.Server; connections: Connections },
  graceMs: number,
): Promise<boolean> {
  const { server, injector, listener, connections } = parts;
  return new Promise<boolean>((resolve) => {
    listener.close();
    // GOAWAY on every connection: no new calls; each closes once its calls are done.
    injector.drain(graceMs + 1_000);
    const finish = (cutOff: boolean) => {
      clearTimeout(timer);
      connections.socketsClosed = undefined;
      injector.destroy();
      server.forceShutdown();
      resolve(cutOff);
    };
    const timer = setTimeout(() => {
      for (const call of front.streams) {
        call.emit('error', { code: status.UNAVAILABLE, details: 'server is shutting down' });
      }
      for (const socket of connections.sockets) socket.destroy();
      finish(true);
    }, graceMs);
    if (connections.sockets.size === 0) finish(false);
    else connections.socketsClosed = () => finish(false);
  });
}

/** Starts the gRPC front; resolves once it listens. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const front = createGrpcFront(options);
  const server = createServer(front);
  // The port is ours, each connection handed to grpc-js: so connections are counted and capped, and
  // a shutdown can close every one (grpc-js's forceShutdown reaches no connection while channelz is off).
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const connections: Connections = { sockets: new Set(), socketsClosed: undefined };
  const listener = connectionListener(front, connections, injector);
  const port = await listenPort(listener, options);
  const parts = { server, injector, listener, connections };
  return {
    host: options.host,
    port,
    events: front.events,
    close: (graceMs) => closeFront(front, parts, graceMs),
  };
}

/** The JSON-RPC code a gRPC failure carries in its trailers (toGrpcFailure), -32603 when it carries none. */
function jsonRpcCodeOf(error: Partial<StatusObject> | ServerErrorResponse): number {
  const code = Number(error.metadata?.get(CODE_TRAILER)[0]);
  return Number.isInteger(code) ? code : -32603;
}
