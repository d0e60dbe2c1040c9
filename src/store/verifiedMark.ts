/**
 * The mark of a store's last check that found no problem (store/verify.ts VerifiedMark), kept by
 * `ethlogd verify` in a file beside the store's data file, so the next check covers only what was
 * written since. The file is advisory: a missing, unreadable or stale one only makes the check a
 * full one (verify tests the mark against the store before trusting it).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VerifiedMark } from './verify.js';

/** The mark's file in a store directory. */
export const VERIFIED_MARK_FILE = 'verified.json';

/** The mark as the file holds it (JSON). */
export function encodeVerifiedMark(mark: VerifiedMark): string {
  return `${JSON.stringify({ to: mark.to, hash: mark.hash, runs: mark.runs })}\n`;
}

/** The mark in `text`, or undefined when it is not one. */
export function decodeVerifiedMark(text: string): VerifiedMark | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { to, hash, runs } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(to) || (to as number) < 0) return undefined;
  if (typeof hash !== 'string' || !/^0x[0-9a-f]{64}$/.test(hash)) return undefined;
  if (!Array.isArray(runs) || !runs.every((id) => Number.isSafeInteger(id) && id >= 0)) return undefined;
  return { to: to as number, hash, runs: runs as number[] };
}

/** The mark kept in store directory `dir`, or undefined when there is none (or it is not readable as one). */
export function readVerifiedMark(dir: string): VerifiedMark | undefined {
  try {
    return decodeVerifiedMark(readFileSync(join(dir, VERIFIED_MARK_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Keeps `mark` in store directory `dir`, replacing the file whole (written beside it, then renamed). */
export function writeVerifiedMark(dir: string, mark: VerifiedMark): void {
  const path = join(dir, VERIFIED_MARK_FILE);
  writeFileSync(`${path}.tmp`, encodeVerifiedMark(mark));
  renameSync(`${path}.tmp`, path);
}
