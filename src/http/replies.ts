/**
 * The fixed HTTP error replies of the front (docs/api.md §7, §8): a status line, a JSON-RPC error
 * body with id null, and any extra headers.
 */
import {
  AuthError,
  BehindHeadError,
  INVALID_KEY_MESSAGE,
  InternalError,
  InvalidRequestError,
  missingKeyMessage,
  REVOKED_KEY_MESSAGE,
  type RpcError,
} from '../rpc/errors.js';

/** An HTTP reply decided by the transport, before or instead of the JSON-RPC layer. */
export interface Reply {
  /** Status line, e.g. `401 Unauthorized`. */
  status: string;
  /** JSON-RPC error response text. */
  body: string;
  /** Headers beyond Content-Type and CORS. */
  headers: ReadonlyArray<readonly [string, string]>;
}

/** The JSON-RPC error response text for `error`, with id null. */
export function errorBody(error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toJSON() });
}

/** Builds a reply with `status`, the body of `error` and optional extra headers. */
function reply(status: string, error: RpcError, headers: ReadonlyArray<readonly [string, string]> = []): Reply {
  return { status, body: errorBody(error), headers };
}

/** Body of a JSON-RPC answer that failed unexpectedly (sent with 200: the transport worked). */
export const INTERNAL_ERROR_BODY = errorBody(new InternalError());

/** 401: the path has no key after `/v3/`. */
export const MISSING_KEY = reply(
  '401 Unauthorized',
  new AuthError(missingKeyMessage('in the path, POST /v3/<API_KEY>')),
);

/** 401: the store does not know the key. */
export const INVALID_KEY = reply('401 Unauthorized', new AuthError(INVALID_KEY_MESSAGE));

/** 401: the key was revoked. */
export const REVOKED_KEY = reply('401 Unauthorized', new AuthError(REVOKED_KEY_MESSAGE));

/** 404: a path other than `/v3/<key>`. */
export const NOT_FOUND = reply(
  '404 Not Found',
  new InvalidRequestError('not found: JSON-RPC is served at POST /v3/<API_KEY> and WebSocket /ws/v3/<API_KEY>'),
);

/** 405: a method other than GET or HEAD on an operations path (/health, /ready, /metrics). */
export const OPS_METHOD_NOT_ALLOWED = reply(
  '405 Method Not Allowed',
  new InvalidRequestError('method not allowed, use GET'),
  [['Allow', 'GET, HEAD']],
);

/** 405: a method other than POST or OPTIONS on `/v3/...`. */
export const METHOD_NOT_ALLOWED = reply(
  '405 Method Not Allowed',
  new InvalidRequestError('method not allowed, use POST'),
  [['Allow', 'POST, OPTIONS']],
);

/** 415: the request's Content-Type is not application/json. */
export const UNSUPPORTED_MEDIA_TYPE = reply(
  '415 Unsupported Media Type',
  new InvalidRequestError('unsupported content type, use application/json'),
);

/** 500: checking the API key failed (the store could not be read); details go to the log. */
export const AUTH_FAILURE = reply('500 Internal Server Error', new InternalError());

/** 413 for a body limit of `limit` bytes. */
export function payloadTooLarge(limit: number): Reply {
  return reply('413 Payload Too Large', new InvalidRequestError(`request body too large, limit ${limit} bytes`));
}

/**
 * 503 for a request whose X-Ethlogd-Min-Head `floor` the store's `head` did not reach in time (minHead.ts); a balancer
 * retries it elsewhere.
 */
export function behindHead(floor: number, head: number | undefined): Reply {
  return reply('503 Service Unavailable', new BehindHeadError(floor, head), [['Retry-After', '1']]);
}

/**
 * 400: Content-Length given twice with different values (RFC 9112 §6.3: the framing is unknown, the
 * connection closes).
 */
export const CONFLICTING_CONTENT_LENGTH = reply(
  '400 Bad Request',
  new InvalidRequestError('conflicting Content-Length headers'),
);

/** 400: an X-Ethlogd-Min-Head that is not a decimal block number. */
export const INVALID_MIN_HEAD = reply(
  '400 Bad Request',
  new InvalidRequestError('X-Ethlogd-Min-Head must be a decimal block number'),
);
