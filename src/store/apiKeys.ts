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
 * Most presented keys whose digest (and last record seen) checkApiKey remembers; the memo is
 * cleared when it is full, so a flood of random keys costs memory bounded by this.
 */
const MEMO_MAX_KEYS = 10_000;

/** What checkApiKey remembers of a presented key: its digest, and the stored record's bytes last seen with the status they gave. */
interface KeyMemo {
  digest: Buffer;
  record: Buffer | undefined;
  status: ApiKeyStatus;
}

const memo = new Map<string, KeyMemo>();

/** The memo of `key`, created (digest computed once) when absent. */
function memoOf(key: string): KeyMemo {
  let entry = memo.get(key);
  if (entry === undefined) {
    if (memo.size >= MEMO_MAX_KEYS) memo.clear();
    entry = { digest: hashApiKey(key), record: undefined, status: 'unknown' };
    memo.set(key, entry);
  }
  return entry;
}

/**
 * Checks a presented key. The lookup is by hash, so comparing the presented key with stored ones
 * never happens byte by byte on the secret (no timing signal about stored keys). The digest of a
 * presented key is memoised; its record is read on every call, and decoded only when its bytes
 * differ from the last ones seen, so a revocation (from any process) is refused on the next request.
 */
export function checkApiKey(store: Store, key: string): ApiKeyStatus {
  const entry = memoOf(key);
  const raw = store.apiKeys.getBinaryFast(entry.digest);
  if (raw === undefined) return 'unknown';
  const bytes = raw.subarray(0, raw.length);
  if (entry.record !== undefined && entry.record.equals(bytes)) return entry.status;
  entry.record = Buffer.from(bytes);
  const record = store.apiKeys.get(entry.digest) as ApiKeyRecord | undefined;
  entry.status = !record ? 'unknown' : record.revoked === null ? 'valid' : 'revoked';
  return entry.status;
}
