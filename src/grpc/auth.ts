/**
 * API keys on the gRPC front: the same keys as `/v3/<API_KEY>`, sent as `x-api-key` metadata and
 * checked on every call (a revocation holds from the next call), with the HTTP front's messages;
 * and the same per-key rate limit, one call costing one token (a stream is one call).
 */
import type { Metadata } from '@grpc/grpc-js';
import type { RateLimiter } from '../limits/rateLimiter.js';
import {
  AuthError,
  INVALID_KEY_MESSAGE,
  missingKeyMessage,
  REVOKED_KEY_MESSAGE,
  type RpcError,
} from '../rpc/errors.js';
import type { ApiKeyStatus } from '../store/apiKeys.js';

/** The metadata entry that carries the API key. */
export const API_KEY_METADATA = 'x-api-key';

/** The API key a call's metadata carries ('' when none). */
export function keyOf(metadata: Metadata): string {
  const value = metadata.get(API_KEY_METADATA)[0];
  return typeof value === 'string' ? value : '';
}

/**
 * Checks the key of a call and spends its rate limit; returns the error to answer with, or undefined when the call may
 * run.
 */
export function authenticate(
  metadata: Metadata,
  check: (key: string) => ApiKeyStatus,
  limiter?: RateLimiter,
): RpcError | undefined {
  const key = keyOf(metadata);
  if (key === '') return new AuthError(missingKeyMessage(`as ${API_KEY_METADATA} metadata`));
  const status = check(key);
  if (status === 'unknown') return new AuthError(INVALID_KEY_MESSAGE);
  if (status === 'revoked') return new AuthError(REVOKED_KEY_MESSAGE);
  return limiter?.budget(key).take(1) ?? undefined;
}
