/**
 * JSON-RPC errors as classes that carry their code (docs/api.md §7), and the one place where the
 * domain's errors (the log engine's, the lookups') become JSON-RPC errors: toRpcError gives each
 * domain class geth's code and message.
 */
import { BlockNotFoundError } from '../chain/errors.js';
import { quantityToHex } from '../chain/hex.js';
import {
  DeadlineExceededError,
  QueryCancelledError,
  RangeBeyondHeadError,
  RangeInvertedError,
  ResultCapError,
  ScanFailedError,
  TooManyParamsError,
  TooManyTopicsError,
} from '../logs/errors.js';
import { BlockBeyondHeadError, UpstreamTimeoutError, UpstreamUnavailableError } from '../upstream/errors.js';

/** A JSON-RPC error with its code, message and optional data. */
export class RpcError extends Error {
  /** Builds an error with `code`, `message` and optional `data`. */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The error object of a JSON-RPC response. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32700: the body is not valid JSON. */
export class ParseError extends RpcError {
  /** Builds the standard parse error. */
  constructor() {
    super(-32700, 'parse error');
  }
}

/** -32600: not a JSON-RPC 2.0 request object, or a bad batch. */
export class InvalidRequestError extends RpcError {
  /** Builds an invalid-request error with `message`. */
  constructor(message = 'invalid request') {
    super(-32600, message);
  }
}

/** -32601: the method is not served. */
export class MethodNotFoundError extends RpcError {
  /** Builds geth's message for an unknown `method`, followed by `hint` (what to do) when given. */
  constructor(method: string, hint?: string) {
    super(-32601, `the method ${method} does not exist/is not available${hint === undefined ? '' : `; ${hint}`}`);
  }
}

/** What a client is told of a method a node answers, when no node is given to forward it to. */
export const FORWARD_HINT = 'ethlogd answers it when started with --upstream URL (a node it forwards such calls to)';

/** What a client is told of a method not on the forwarding list of a service that forwards. */
export const NOT_FORWARDED_HINT =
  'ethlogd does not forward it to its node (serve --upstream-methods lists what is forwarded)';

/** -32011 (proxyd's "no backend"): the upstream node could not be used; never worded like a revert. */
export const UPSTREAM_UNAVAILABLE = -32011;

/** -32015 (proxyd's gateway timeout): the upstream node did not answer in time. */
export const UPSTREAM_TIMEOUT = -32015;

/** -32602: a parameter is missing, malformed or out of range. */
export class InvalidParamsError extends RpcError {
  /** Builds an invalid-params error; the message names the parameter. */
  constructor(message: string) {
    super(-32602, message);
  }
}

/** -32005: a limit was exceeded (results, parameters, time). */
export class LimitExceededError extends RpcError {
  /** Builds a limit error with `message` and optional `data`. */
  constructor(message: string, data?: unknown) {
    super(-32005, message, data);
  }
}

/** -32005 `query timeout exceeded`: a class of its own so a caller can tell the deadline from the other limits. */
export class QueryTimeoutError extends LimitExceededError {
  /** Builds the deadline error. */
  constructor() {
    super('query timeout exceeded');
  }
}

/**
 * -32003: a batch's answers passed the response size limit; the remaining items did not run (geth's code and message).
 */
export class ResponseTooLargeError extends RpcError {
  /** Builds geth's response-too-large error. */
  constructor() {
    super(-32003, 'response too large');
  }
}

/** -32603: an unexpected failure; details go to the log only. */
export class InternalError extends RpcError {
  /** Builds the generic internal error. */
  constructor() {
    super(-32603, 'internal error');
  }
}

/**
 * EIP-1193's "Unauthorized", the code a client library shows as an authorisation failure (viem's
 * UnauthorizedProviderError; -32000 would read as "Missing or invalid parameters").
 */
export const UNAUTHORIZED = 4100;

/** 4100: authentication failure (missing, unknown or revoked API key). */
export class AuthError extends RpcError {
  /** Builds an auth error with `message`. */
  constructor(message: string) {
    super(UNAUTHORIZED, message);
  }
}

/** What a client is told to do about a refused key, on every front. */
const KEY_HINT = 'create a key with `ethlogd keys create --data DIR`';

/** The message of a missing key, naming where the key goes (`where`, e.g. the path or the metadata entry). */
export function missingKeyMessage(where: string): string {
  return `missing API key: send it ${where} (${KEY_HINT})`;
}

/** The message of a key the store does not know. */
export const INVALID_KEY_MESSAGE = `invalid API key: this store has no such key (${KEY_HINT})`;

/** The message of a revoked key. */
export const REVOKED_KEY_MESSAGE = `API key revoked: use another key (${KEY_HINT})`;

/**
 * -32005 `project ID request rate exceeded` (Infura's code and message): the key's rate limit has
 * no tokens left for the request; `data` says the allowed rate and when to retry, as Infura's does.
 */
export class RateLimitedError extends LimitExceededError {
  /** Builds the refusal of a request that may be retried after `retryAfterMs`, under a limit of `perSecond`. */
  constructor(
    readonly retryAfterMs: number,
    perSecond: number,
  ) {
    super('project ID request rate exceeded', {
      allowed_rps: perSecond,
      backoff_seconds: Math.ceil(retryAfterMs) / 1000,
    });
  }
}

/** -32005: a batch that costs more calls than the rate limit's burst, so no wait would ever admit it. */
export class BatchOverBurstError extends LimitExceededError {
  /** Builds the refusal of a batch of `calls` calls under a burst of `burst`. */
  constructor(calls: number, burst: number) {
    super(`batch of ${calls} calls exceeds the rate limit burst of ${burst}`);
  }
}

/**
 * -32005 `too many concurrent requests`: the key's (or the process's) log queries or streams are
 * all running and its queue is full (limits/admission.ts); `data` says which limit, and when to retry.
 */
export class TooManyConcurrentError extends LimitExceededError {
  /** Builds the refusal of a call over `limit` (`scope`: 'key' or 'process') of `what` ('log queries', 'streams'). */
  constructor(what: string, scope: string, limit: number, retryAfterMs: number) {
    super('too many concurrent requests', {
      limit: `${what} per ${scope}`,
      max: limit,
      backoff_seconds: retryAfterMs / 1000,
    });
  }

  /** Milliseconds a client should wait before it tries again. */
  get retryAfterMs(): number {
    return ((this.data as { backoff_seconds: number }).backoff_seconds ?? 1) * 1000;
  }
}

/** -32000: the call's client went away before it was answered (what an access log shows; nobody reads it). */
export class CancelledError extends RpcError {
  /** Builds the cancellation error. */
  constructor() {
    super(-32000, 'request cancelled: the client went away');
  }
}

/** -32000: the server is shutting down and takes no new requests. */
export class ShuttingDownError extends RpcError {
  /** Builds the refusal of a request that arrived while the server drains. */
  constructor() {
    super(-32000, 'server is shutting down');
  }
}

/**
 * -32000: a replica behind the head its client has already been answered at (X-Ethlogd-Min-Head), still behind after
 * waiting.
 */
export class BehindHeadError extends RpcError {
  /**
   * Builds the refusal of a request that needs block `floor` from a store whose head is `head` (undefined: no block).
   */
  constructor(floor: number, head: number | undefined) {
    super(
      -32000,
      `this replica's head is ${head ?? 'no block'}, behind block ${floor} that this API key has been answered at; ` +
        'retry (another replica)',
    );
  }
}

/** -32000: a polling filter this server does not hold (never installed, uninstalled, or expired), in geth's words. */
export class FilterNotFoundError extends RpcError {
  /** Builds geth's message. */
  constructor() {
    super(-32000, 'filter not found');
  }
}

/** geth's -32005 for a result cap, suggesting the range [from, to] whose results fit under `limit`. */
function resultCap(error: ResultCapError): LimitExceededError {
  const from = quantityToHex(error.from);
  const to = quantityToHex(error.to);
  return new LimitExceededError(
    `query returned more than ${error.limit} results. Try with this block range [${from}, ${to}].`,
    {
      from,
      to,
      limit: error.limit,
    },
  );
}

/**
 * The JSON-RPC error `error` answers with: an RpcError as it is, a domain error by its class with
 * geth's code and message (-32602 for a bad range or too many topics, -32005 for the limits,
 * -32000 for a missing block, -32603 for a failed scan; the upstream node's failures -32011 and
 * -32015, a forwarded call above the head -32000); undefined for anything else (an
 * unexpected failure, which the caller reports and answers -32603).
 */
export function toRpcError(error: unknown): RpcError | undefined {
  if (error instanceof RpcError) return error;
  if (error instanceof RangeInvertedError) return new InvalidParamsError('invalid block range params');
  if (error instanceof RangeBeyondHeadError)
    return new InvalidParamsError(
      `block range extends beyond current head block (the head is ${quantityToHex(error.head)})`,
    );
  if (error instanceof TooManyTopicsError) return new InvalidParamsError('exceed max topics');
  if (error instanceof TooManyParamsError) return new LimitExceededError(`query exceeds ${error.max} parameters`);
  if (error instanceof ResultCapError) return resultCap(error);
  if (error instanceof DeadlineExceededError) return new QueryTimeoutError();
  if (error instanceof ScanFailedError) return new InternalError();
  if (error instanceof QueryCancelledError) return new CancelledError();
  if (error instanceof BlockNotFoundError)
    return new RpcError(-32000, error.byHash ? 'header for hash not found' : 'header not found');
  if (error instanceof UpstreamUnavailableError)
    return new RpcError(UPSTREAM_UNAVAILABLE, `no backend available: ${error.message}; retry later`);
  if (error instanceof UpstreamTimeoutError) return new RpcError(UPSTREAM_TIMEOUT, `gateway timeout: ${error.message}`);
  if (error instanceof BlockBeyondHeadError) {
    return new RpcError(
      -32000,
      `header not found: block ${quantityToHex(error.block)} is beyond this store's head ${quantityToHex(error.head)}`,
    );
  }
  return undefined;
}
