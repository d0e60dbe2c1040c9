/**
 * Argument parsing shared by the commands: node:util's parseArgs with usage errors that name the
 * command, and number options checked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { STORE_DATA_FILE } from '../store/dataFile.js';

/** A command-line mistake: printed as one line with a pointer to the command's --help, exit code 2. */
export class UsageError extends Error {}

/** Parses `argv` with `options`; unknown options and missing values become UsageErrors. */
export function parse(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  allowPositionals = false,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
    return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Reads a required string option. */
export function required(value: string | boolean | undefined, name: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/**
 * The store directory of a command that reads or administers a store: only generate and ingest
 * create one, so a missing or empty DIR (a typo, most often) is a usage error and nothing is created.
 */
export function existingStore(value: string | boolean | undefined): string {
  const dir = required(value, 'data');
  if (!existsSync(join(dir, STORE_DATA_FILE)))
    throw new UsageError(`no store at ${dir} (create one with ethlogd generate or ethlogd ingest)`);
  return dir;
}

/** Reads an integer option within [min, max], or its default. */
export function integer(
  value: string | boolean | undefined,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/** Reads a positive number option, or its default. */
export function positive(value: string | boolean | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`--${name} must be a positive number`);
  return n;
}
