/**
 * Declared command options resolved from three sources in order of precedence: command-line flags,
 * then ETHLOGD_* environment variables, then a JSON config file (`--config FILE` or ETHLOGD_CONFIG),
 * then the option's default. One table per command gives the flag, its environment variable, its
 * type and default, and the help text (so `--help` lists every option from the same table).
 */
import { readFileSync } from 'node:fs';
import { parse, UsageError } from './args.js';

/**
 * An option's value type: integers are checked against [min, max] (and take the word `off`, meaning unset, when `off`);
 * choices against their list; patterns against their expression (`expected` says what it takes).
 */
export type OptionType =
  | { kind: 'string' }
  | { kind: 'integer'; min: number; max: number; off?: boolean }
  | { kind: 'choice'; choices: readonly string[] }
  | { kind: 'pattern'; pattern: RegExp; expected: string }
  | { kind: 'boolean' };

/** One declared option. */
export interface OptionSpec {
  /** The flag without dashes, also the config file's key. */
  name: string;
  type: OptionType;
  /** Used when no source sets the option; undefined: unset (or required). */
  default?: string | number | boolean;
  /** Shown instead of the default in help (e.g. "the cores", "off"). */
  defaultText?: string;
  required?: boolean;
  /** Placeholder in help, e.g. DIR, PORT. */
  placeholder?: string;
  description: string;
}

/** Resolved values by option name, and where each came from. */
export interface ResolvedOptions {
  values: Record<string, string | number | boolean | undefined>;
  sources: Record<string, 'flag' | 'env' | 'config' | 'default'>;
  help: boolean;
}

/** The flag that names a config file, handled by resolveOptions itself. */
export const CONFIG_OPTION = 'config';

/** The environment variable prefix of every option. */
const ENV_PREFIX = 'ETHLOGD_';

/** The environment variable of option `name`: ETHLOGD_ and the name in upper case with underscores. */
export function envName(name: string): string {
  return ENV_PREFIX + name.toUpperCase().replaceAll('-', '_');
}

/** Checks a value against the option's type; `where` names its source in errors; `off` (where allowed) is undefined. */
function coerce(spec: OptionSpec, raw: unknown, where: string): string | number | boolean | undefined {
  const t = spec.type;
  if (t.kind === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new UsageError(`${where} must be true or false`);
  }
  if (t.kind === 'integer') {
    if (t.off === true && raw === 'off') return undefined;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < t.min || n > t.max)
      throw new UsageError(`${where} must be an integer from ${t.min} to ${t.max}${t.off === true ? ', or off' : ''}`);
    return n;
  }
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`${where} must be a non-empty string`);
  if (t.kind === 'choice' && !t.choices.includes(raw))
    throw new UsageError(`${where} must be one of ${t.choices.join(', ')}`);
  if (t.kind === 'pattern' && !t.pattern.test(raw)) throw new UsageError(`${where} must be ${t.expected}`);
  return raw;
}

/** Reads a JSON config file: an object whose keys are option names. */
function readConfigFile(path: string, specs: readonly OptionSpec[]): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`config file ${path} must hold a JSON object`);
  const known = new Set(specs.map((s) => s.name));
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) throw new UsageError(`config file ${path}: unknown option "${key}"`);
  }
  return parsed as Record<string, unknown>;
}

/** Resolves `specs` from `argv`, `env` and the config file they name, in that order of precedence. */
export function resolveOptions(
  argv: string[],
  specs: readonly OptionSpec[],
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOptions {
  const flagConfig: Record<string, { type: 'string' | 'boolean' }> = { [CONFIG_OPTION]: { type: 'string' } };
  for (const s of specs) flagConfig[s.name] = { type: s.type.kind === 'boolean' ? 'boolean' : 'string' };
  const { values: flags } = parse(argv, flagConfig);
  const help = flags.help === true;
  const configPath = (flags[CONFIG_OPTION] as string | undefined) ?? env[envName(CONFIG_OPTION)];
  const file = configPath !== undefined && !help ? readConfigFile(configPath, specs) : {};
  const values: ResolvedOptions['values'] = {};
  const sources: ResolvedOptions['sources'] = {};
  for (const s of specs) {
    const fromEnv = env[envName(s.name)];
    if (flags[s.name] !== undefined) {
      values[s.name] = coerce(s, flags[s.name], `--${s.name}`);
      sources[s.name] = 'flag';
    } else if (fromEnv !== undefined) {
      values[s.name] = coerce(s, fromEnv, envName(s.name));
      sources[s.name] = 'env';
    } else if (file[s.name] !== undefined) {
      values[s.name] = coerce(s, file[s.name], `"${s.name}" in ${configPath}`);
      sources[s.name] = 'config';
    } else {
      values[s.name] = s.default;
      sources[s.name] = 'default';
      if (s.required && !help)
        throw new UsageError(`--${s.name} is required (or ${envName(s.name)}, or "${s.name}" in the config file)`);
    }
  }
  return { values, sources, help };
}

/** The options part of a command's help: every option with its environment variable and default. */
export function optionsHelp(specs: readonly OptionSpec[]): string {
  const rows = specs.map((s) => {
    const placeholder = s.placeholder ?? (s.type.kind === 'integer' ? 'N' : 'VALUE');
    const flag = `--${s.name}${s.type.kind === 'boolean' ? '' : ` ${placeholder}`}`;
    const def = s.required
      ? 'required'
      : `default ${s.defaultText ?? (s.default === undefined ? 'unset' : String(s.default))}`;
    const choices =
      s.type.kind === 'choice'
        ? ` (${s.type.choices.join('|')})`
        : s.type.kind === 'pattern'
          ? ` (${s.type.expected})`
          : '';
    return { flag, text: `${s.description}${choices}; ${def}`, env: envName(s.name) };
  });
  rows.push({
    flag: `--${CONFIG_OPTION} FILE`,
    text: 'JSON config file: {"option-name": value, ...}; default none',
    env: envName(CONFIG_OPTION),
  });
  rows.push({ flag: '-h, --help', text: 'this text', env: '' });
  const width = Math.max(...rows.map((r) => r.flag.length)) + 2;
  return rows
    .map((r) => `  ${r.flag.padEnd(width)}${r.text}${r.env ? `\n  ${''.padEnd(width)}env ${r.env}` : ''}`)
    .join('\n');
}
