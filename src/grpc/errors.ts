/**
 * JSON-RPC errors as gRPC statuses: each error class maps to a status code, and the JSON-RPC answer
 * rides along in the trailers (`x-jsonrpc-code`, `x-jsonrpc-message`, `x-jsonrpc-data`) so a
 * client sees exactly what the HTTP front would have said.
 */
import { Metadata, status as Status } from '@grpc/grpc-js';
import {
  AuthError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  QueryTimeoutError,
  type RpcError,
  toRpcError,
} from '../rpc/errors.js';

/** Trailer holding the JSON-RPC error code, in decimal. */
export const CODE_TRAILER = 'x-jsonrpc-code';
/** Trailer holding the JSON-RPC error message. */
export const MESSAGE_TRAILER = 'x-jsonrpc-message';
/** Trailer holding the JSON-RPC error data as JSON, when there is some. */
export const DATA_TRAILER = 'x-jsonrpc-data';

/** A gRPC status to answer a call with. */
export interface GrpcFailure {
  code: Status;
  details: string;
  metadata: Metadata;
}

/**
 * geth answers a missing block with -32000 `... not found` where a value cannot be null
 * (eth_getStorageAt's `header not found`): there, and only there, gRPC says NOT_FOUND. Lookups
 * that JSON-RPC answers with null answer an unset field instead.
 */
const NOT_FOUND = /not found$/;

/** The gRPC status code of a JSON-RPC error. */
function statusOf(error: RpcError): Status {
  if (error instanceof AuthError) return Status.UNAUTHENTICATED;
  if (error instanceof InvalidParamsError || error instanceof InvalidRequestError) return Status.INVALID_ARGUMENT;
  if (error instanceof QueryTimeoutError) return Status.DEADLINE_EXCEEDED;
  if (error instanceof LimitExceededError) return Status.RESOURCE_EXHAUSTED;
  if (error instanceof InternalError) return Status.INTERNAL;
  if (error.code === -32000 && NOT_FOUND.test(error.message)) return Status.NOT_FOUND;
  return Status.UNKNOWN;
}

/** Trailer values must be printable ASCII: anything else becomes `?`. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

/**
 * The gRPC status for a failure: an RpcError mapped with its JSON-RPC code, message and data in the
 * trailers; anything else reported to `onError` and answered as -32603 `internal error`.
 */
export function toGrpcFailure(error: unknown, onError: (message: string, error: unknown) => void): GrpcFailure {
  let rpc = toRpcError(error);
  if (rpc === undefined) {
    onError('unexpected failure in a gRPC call', error);
    rpc = new InternalError();
  }
  const metadata = new Metadata();
  metadata.set(CODE_TRAILER, String(rpc.code));
  metadata.set(MESSAGE_TRAILER, printable(rpc.message));
  if (rpc.data !== undefined) metadata.set(DATA_TRAILER, printable(JSON.stringify(rpc.data)));
  return { code: statusOf(rpc), details: rpc.message, metadata };
}
