/**
 * The gRPC front (docs/architecture.md §1): ethlogd.v1.EthLogs on @grpc/grpc-js over HTTP/2, with
 * server reflection. Every call is authenticated by its `x-api-key` metadata, then answered by the
 * same method layer as the HTTP front (convert.ts maps the messages); GetLogs and StreamLogs answer
 * with protobuf the log engine's workers render directly (logProto.ts), sent without re-encoding.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import {
  type handleServerStreamingCall,
  type handleUnaryCall,
  logVerbosity,
  type Metadata,
  Server,
  ServerCredentials,
  type ServerErrorResponse,
  type ServerWritableStream,
  type ServiceDefinition,
  type StatusObject,
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

/** Starts the gRPC front; resolves once it listens. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const { engine, onError } = options;
  const auth = (metadata: Metadata) => authenticate(metadata, options.auth, options.rateLimit);
  // Answers come back as wire objects (convert.ts maps them), never as JSON text.
  const ctx: MethodContext = { ...options.ctx, rawJson: false };
  const events = new EventEmitter<StreamEvents>();
  const fail = (error: unknown) => toGrpcFailure(error, onError);

  /** A unary call answered by a JSON-RPC method: request to params, result to the response. */
  const unary = <Request>(
    name: string,
    toParams: (request: Request) => unknown[],
    toResponse: (result: unknown) => ProtoObject,
  ): handleUnaryCall<Request, ProtoObject> => {
    const method: RpcMethod = METHODS.get(name)!;
    return (call, callback) => {
      const answer = (result: unknown) => {
        let response: ProtoObject;
        try {
          response = toResponse(result);
        } catch (error) {
          return callback(fail(error));
        }
        callback(null, response);
      };
      try {
        const denied = auth(call.metadata);
        if (denied) return callback(fail(denied));
        const result = method(toParams(call.request), ctx);
        if (result instanceof Promise) result.then(answer, (error: unknown) => callback(fail(error)));
        else answer(result);
      } catch (error) {
        callback(fail(error));
      }
    };
  };

  const getLogs: handleUnaryCall<{ filter?: LogFilterMessage }, Buffer> = (call, callback) => {
    try {
      const denied = auth(call.metadata);
      if (denied) return callback(fail(denied));
      const spec = parseFilter(filterObject(call.request.filter), ctx.limits.maxParams);
      const abort = new AbortController();
      call.once('cancelled', () => abort.abort());
      const admit = options.gate && admitFor(options.gate, keyOf(call.metadata));
      const answer = engine.query(spec, ctx.reader, 'proto', { signal: abort.signal, admit });
      const send = (chunks: LogChunks) => callback(null, Buffer.concat(chunks as Uint8Array[]));
      if (Array.isArray(answer)) send(answer);
      else answer.then(send, (error: unknown) => callback(fail(error)));
    } catch (error) {
      callback(fail(error));
    }
  };

  const streamContext = {
    engine,
    reader: ctx.reader,
    limits: ctx.limits,
    timeoutMs: options.streamTimeoutMs ?? STREAM_TIMEOUT_MS,
    stallMs: options.streamStallMs ?? STREAM_STALL_MS,
    batchBytes: options.streamBatchBytes ?? STREAM_BATCH_BYTES,
    taskLogs: options.streamTaskLogs,
    events,
    onError,
    admission: options.gate?.admission,
  };
  /** StreamLogs calls running: the ones a shutdown cuts at its bound are ended with UNAVAILABLE. */
  const streams = new Set<ServerWritableStream<StreamLogsMessage, Buffer>>();
  const streamLogs: handleServerStreamingCall<StreamLogsMessage, Buffer> = (call) => {
    const denied = auth(call.metadata);
    if (denied) {
      call.emit('error', fail(denied));
      return;
    }
    streams.add(call);
    void serveStreamLogs(call, streamContext).finally(() => streams.delete(call));
  };

  /**
   * `handle`, reporting each answered call to the observer as `name` with its outcome (the JSON-RPC code of a failure).
   */
  const observed = <Request, Response>(
    name: string,
    handle: handleUnaryCall<Request, Response>,
  ): handleUnaryCall<Request, Response> => {
    const { observer } = options;
    if (observer === undefined) return handle;
    return (call, callback) => {
      const started = performance.now();
      handle(call, (error, value) => {
        observer.onCall(name, error ? jsonRpcCodeOf(error) : CALL_OK, (performance.now() - started) / 1000);
        callback(error, value);
      });
    };
  };

  const handlers: UntypedServiceImplementation = {
    GetStorageAt: observed('eth_getStorageAt', unary('eth_getStorageAt', storageAtParams, storageAtResponse)),
    GetLogs: observed('eth_getLogs', getLogs),
    GetTransactionByBlockNumberAndIndex: observed(
      'eth_getTransactionByBlockNumberAndIndex',
      unary('eth_getTransactionByBlockNumberAndIndex', txByBlockNumberAndIndexParams, transactionResponse),
    ),
    GetBlockByNumber: observed(
      'eth_getBlockByNumber',
      unary('eth_getBlockByNumber', blockByNumberParams, blockResponse),
    ),
    GetTransactionByHash: observed(
      'eth_getTransactionByHash',
      unary('eth_getTransactionByHash', txByHashParams, transactionResponse),
    ),
    GetTransactionReceipt: observed(
      'eth_getTransactionReceipt',
      unary('eth_getTransactionReceipt', txByHashParams, receiptResponse),
    ),
    GetBlockReceipts: observed(
      'eth_getBlockReceipts',
      unary('eth_getBlockReceipts', blockReceiptsParams, blockReceiptsResponse),
    ),
    StreamLogs: streamLogs,
  };

  // Channelz (per-call tracing for debugging tools) costs every call; nothing here serves it.
  const server = new Server({
    'grpc.enable_channelz': 0,
    'grpc.max_connection_idle_ms': options.idleTimeoutMs ?? GRPC_IDLE_TIMEOUT_MS,
  });
  const { definition, reflection } = serviceDefinition();
  server.addService(definition, handlers);
  reflection.addToServer(server);
  // grpc-js would print its own line for a failed bind ("No address added...") before ours says
  // which port and why; an operator can still ask for its logs with GRPC_VERBOSITY.
  if (process.env.GRPC_VERBOSITY === undefined) setLogVerbosity(logVerbosity.NONE);

  // The port is ours, each connection handed to grpc-js: so connections are counted and capped, and
  // a shutdown can close every one (grpc-js's forceShutdown reaches no connection while channelz is off).
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const maxConnections = options.maxConnections ?? GRPC_MAX_CONNECTIONS;
  const sockets = new Set<net.Socket>();
  let socketsClosed: (() => void) | undefined;
  const prefaceMs = options.prefaceTimeoutMs ?? GRPC_PREFACE_TIMEOUT_MS;
  // Paused: the first bytes are waited for here, then handed to HTTP/2 with the connection.
  const listener = net.createServer({ pauseOnConnect: true }, (socket) => {
    if (sockets.size >= maxConnections) {
      options.onRefusal?.('grpc_connections');
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) socketsClosed?.();
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

  /** Ends the streams still running with UNAVAILABLE (sent when their client reads), then closes every connection. */
  const cut = (): void => {
    for (const call of streams) call.emit('error', { code: status.UNAVAILABLE, details: 'server is shutting down' });
    for (const socket of sockets) socket.destroy();
  };

  return {
    host: options.host,
    port,
    events,
    close: (graceMs) =>
      new Promise<boolean>((resolve) => {
        listener.close();
        // GOAWAY on every connection: no new calls; each closes once its calls are done.
        injector.drain(graceMs + 1_000);
        const finish = (cutOff: boolean) => {
          clearTimeout(timer);
          socketsClosed = undefined;
          injector.destroy();
          server.forceShutdown();
          resolve(cutOff);
        };
        const timer = setTimeout(() => {
          cut();
          finish(true);
        }, graceMs);
        if (sockets.size === 0) finish(false);
        else socketsClosed = () => finish(false);
      }),
  };
}

/** The JSON-RPC code a gRPC failure carries in its trailers (toGrpcFailure), -32603 when it carries none. */
function jsonRpcCodeOf(error: Partial<StatusObject> | ServerErrorResponse): number {
  const code = Number(error.metadata?.get(CODE_TRAILER)[0]);
  return Number.isInteger(code) ? code : -32603;
}
