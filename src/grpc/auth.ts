/**
 * API keys on the gRPC front: the same keys as `/v3/<API_KEY>`, sent as `x-api-key` metadata and
 * checked on every call (a revocation holds from the next call), with the HTTP front's messages.
 */
import type { Metadata } from '@grpc/grpc-js';
import { AuthError } from '../rpc/errors.js';
import type { ApiKeyStatus } from '../store/apiKeys.js';

/** The metadata entry that carries the API key. */
export const API_KEY_METADATA = 'x-api-key';

/** Checks the key of a call; returns the error to answer with, or undefined when the key is valid. */
export function authenticate(metadata: Metadata, check: (key: string) => ApiKeyStatus): AuthError | undefined {
  const value = metadata.get(API_KEY_METADATA)[0];
  const key = typeof value === 'string' ? value : '';
  if (key === '') return new AuthError('missing API key');
  const status = check(key);
  if (status === 'unknown') return new AuthError('invalid API key');
  if (status === 'revoked') return new AuthError('API key revoked');
  return undefined;
}
