/**
 * API keys, stored only as sha256 hashes: created, listed, revoked, and checked per request.
 */
import { randomBytes, createHash } from 'node:crypto';
import type { Store } from './schema.js';

/** What the store keeps about a key (never the key itself). */
export interface ApiKeyRecord {
  label: string;
  created: number;
  revoked: number | null;
}

/** A listed key: its hash (as an id) and record. */
export interface ApiKeyEntry extends ApiKeyRecord {
  id: string;
}

/** The result of checking a presented key. */
export type ApiKeyStatus = 'valid' | 'unknown' | 'revoked';

/** Bytes of randomness in a new key (256 bits: unguessable). */
const KEY_BYTES = 32;

/** The sha256 of a key: its id and its database key. */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Creates a key with `label`, stores its hash, and returns the key (the only time it is seen). */
export function createApiKey(store: Store, label: string): string {
  const key = randomBytes(KEY_BYTES).toString('hex');
  const record: ApiKeyRecord = { label, created: Date.now(), revoked: null };
  store.apiKeys.putSync(hashApiKey(key), record);
  return key;
}

/** Lists every key's id (its hash), label and state. */
export function listApiKeys(store: Store): ApiKeyEntry[] {
  const out: ApiKeyEntry[] = [];
  for (const { key, value } of store.apiKeys.getRange()) {
    out.push({ id: Buffer.from(key).toString('hex'), ...(value as ApiKeyRecord) });
  }
  return out;
}

/** Revokes `key`; returns false when the store does not know it. */
export function revokeApiKey(store: Store, key: string): boolean {
  const id = hashApiKey(key);
  const record = store.apiKeys.get(id) as ApiKeyRecord | undefined;
  if (!record) return false;
  if (record.revoked === null) store.apiKeys.putSync(id, { ...record, revoked: Date.now() });
  return true;
}

/**
 * Checks a presented key. The lookup is by hash, so comparing the presented key with stored ones
 * never happens byte by byte on the secret (no timing signal about stored keys).
 */
export function checkApiKey(store: Store, key: string): ApiKeyStatus {
  const record = store.apiKeys.get(hashApiKey(key)) as ApiKeyRecord | undefined;
  if (!record) return 'unknown';
  return record.revoked === null ? 'valid' : 'revoked';
}
