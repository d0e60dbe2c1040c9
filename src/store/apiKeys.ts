/**
 * API keys, stored only as sha256 hashes: created, listed, revoked, and checked per request.
 */
import { createHash, hash, randomBytes } from 'node:crypto';
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

/** Hex digits of a key's hash that identify it in logs (a prefix of the id `keys list` shows), never the key. */
const KEY_ID_CHARS = 8;

/** The short id of a key for logs: the first hex digits of its sha256. */
export function keyId(key: string): string {
  return hash('sha256', key, 'hex').slice(0, KEY_ID_CHARS);
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
  endTick();
  return true;
}

/**
 * Revokes the key whose id (the hex sha256 `keys list` shows) is `id` or starts with it, for a key
 * that was lost; at least KEY_ID_CHARS digits. Returns how many stored keys the id names: nothing is
 * revoked unless exactly one.
 */
export function revokeApiKeyById(store: Store, id: string): number {
  const prefix = id.toLowerCase();
  if (!/^[0-9a-f]+$/.test(prefix) || prefix.length < KEY_ID_CHARS || prefix.length > 64) return 0;
  const named = listApiKeys(store).filter((k) => k.id.startsWith(prefix));
  if (named.length !== 1) return named.length;
  const digest = Buffer.from(named[0]!.id, 'hex');
  const record = store.apiKeys.get(digest) as ApiKeyRecord;
  if (record.revoked === null) store.apiKeys.putSync(digest, { ...record, revoked: Date.now() });
  endTick();
  return 1;
}

/**
 * Most stored keys whose last record checkApiKey remembers; the memo is cleared when it is full.
 * Only keys found in the store are remembered, so a flood of random keys adds nothing to it.
 */
const MEMO_MAX_KEYS = 10_000;

/**
 * What checkApiKey remembers of a stored key: its digest as bytes, and its record's bytes last seen with the status
 * they gave.
 */
interface KeyMemo {
  digest: Buffer;
  record: Buffer;
  status: ApiKeyStatus;
}

/** Remembered stored keys, by apiKeyId (the digest, never the key). */
const memo = new Map<string, KeyMemo>();

/**
 * The id of a presented key: its sha256 as a 32-character binary string (one-shot crypto.hash,
 * cheaper than createHash and a Buffer). Every lookup of a presented key goes through this, so no
 * map or database ever compares the secret itself.
 */
export function apiKeyId(key: string): string {
  return hash('sha256', key, 'binary');
}

/**
 * Most keys checkApiKey remembers as checked within one timer tick; more keys in a tick are checked
 * in full. Under load one connection's requests, and a few clients', fill a tick with the same keys.
 */
const TICK_KEYS = 8;

/** A key checked in the current tick, with the store it was checked on and the status it got. */
interface TickEntry {
  store: Store;
  key: string;
  status: ApiKeyStatus;
}

/** Keys checked since the tick began; emptied by a timer of 0 ms (about a millisecond) set when the first is added. */
const tickChecked: TickEntry[] = [];

/** Forgets the keys checked in this tick. */
function endTick(): void {
  tickChecked.length = 0;
}

/**
 * Whether two strings are equal, in time that depends on their lengths only (every character is
 * compared): a presented key is compared with remembered keys this way, never with an early exit.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The status of `key` on `store` if it was checked in this tick (every entry is compared, in constant time). */
function checkedThisTick(store: Store, key: string): ApiKeyStatus | undefined {
  let found: ApiKeyStatus | undefined;
  for (const entry of tickChecked) if (constantTimeEqual(entry.key, key) && entry.store === store) found = entry.status;
  return found;
}

/**
 * Checks a presented key. Within one timer tick (LMDB's read snapshot lives as long: lmdb-js resets
 * it with a 0 ms timer too) a key checked before answers as it did, without hashing it or reading
 * the store; a revocation, from this process or another, is refused from the next tick on (about a
 * millisecond). Otherwise: checkStoredKey.
 */
export function checkApiKey(store: Store, key: string): ApiKeyStatus {
  const remembered = checkedThisTick(store, key);
  if (remembered !== undefined) return remembered;
  const status = checkStoredKey(store, key);
  if (tickChecked.length < TICK_KEYS) {
    if (tickChecked.length === 0) setTimeout(endTick, 0).unref();
    tickChecked.push({ store, key, status });
  }
  return status;
}

/**
 * Checks a presented key against the store, in time independent of the stored keys' secrets: the key is hashed
 * first, and only its digest is looked up (in the memo's Map and LMDB's B-tree, both of which
 * compare bytes with an early exit). Those comparisons can reveal at most how a digest's prefix
 * orders against stored digests, which says nothing about any key (sha256 is preimage-resistant,
 * and a key is 256 random bits), so no comparison needs crypto.timingSafeEqual. The stored record
 * is read on every call and decoded only when its bytes changed since last seen, so a revocation
 * (from any process) is seen as soon as the store's read snapshot shows it.
 */
function checkStoredKey(store: Store, key: string): ApiKeyStatus {
  const id = apiKeyId(key);
  const entry = memo.get(id);
  const digest = entry?.digest ?? Buffer.from(id, 'binary');
  const raw = store.apiKeys.getBinaryFast(digest);
  if (raw === undefined) return 'unknown';
  // lmdb's fast-path buffer reports the record's length but spans its reused backing store: view just the record.
  const bytes = raw.subarray(0, raw.length);
  if (entry?.record.equals(bytes)) return entry.status;
  const record = Buffer.from(bytes);
  const value = store.apiKeys.get(digest) as ApiKeyRecord | undefined;
  const status: ApiKeyStatus = !value ? 'unknown' : value.revoked === null ? 'valid' : 'revoked';
  if (entry !== undefined) {
    entry.record = record;
    entry.status = status;
  } else {
    if (memo.size >= MEMO_MAX_KEYS) memo.clear();
    memo.set(id, { digest, record, status });
  }
  return status;
}
