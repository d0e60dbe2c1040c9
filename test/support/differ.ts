/**
 * Field-by-field comparison of two servers' JSON-RPC answers (ours and a reference node's) to the
 * same calls, with an explicit list of tolerated differences: each names the answer kind, the
 * field path and the reason.
 */
import { batchCalls, type Call } from './anvil.js';

/** A difference the comparison accepts, and why. */
export interface Tolerance {
  /** The kind of answer, e.g. "block", "transaction", "log". */
  kind: string;
  /** The field path, with `*` for any array index, e.g. "transactions.*.blockTimestamp". */
  path: string;
  reason: string;
}

/** The paths (dot-separated, array indexes as numbers) at which `a` and `b` differ. */
export function differences(a: unknown, b: unknown, path = ''): string[] {
  if (a === b) return [];
  const join = (k: string | number) => (path ? `${path}.${k}` : String(k));
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: string[] = [];
    if (a.length !== b.length) out.push(`${join('length')}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) out.push(...differences(a[i], b[i], join(i)));
    return out;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const out: string[] = [];
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys)
      out.push(...differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], join(k)));
    return out;
  }
  return [path || '(value)'];
}

function matches(pattern: string, path: string): boolean {
  const p = pattern.split('.');
  const q = path.split('.');
  return p.length === q.length && p.every((part, i) => part === q[i] || (part === '*' && /^\d+$/.test(q[i]!)));
}

/** The differences between `ours` and `theirs` that no tolerance of `kind` covers, each with both values. */
export function untolerated(kind: string, ours: unknown, theirs: unknown, tolerances: readonly Tolerance[]): string[] {
  const get = (v: unknown, path: string) =>
    path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], v);
  return differences(ours, theirs)
    .filter((path) => !tolerances.some((t) => t.kind === kind && matches(t.path, path)))
    .map(
      (path) =>
        `${path}: ours ${JSON.stringify(get(ours, path))?.slice(0, 120)}, ` +
        `theirs ${JSON.stringify(get(theirs, path))?.slice(0, 120)}`,
    );
}

type Obj = Record<string, unknown>;

/**
 * Where anvil's eth_getLogs departs from geth's (which ethlogd follows), anvil's answer is corrected
 * before comparing: geth skips a log with fewer topics than the filter has positions, even when the
 * extra positions are null wildcards (filterLogs: `len(topics) > len(log.Topics)`); anvil matches it.
 */
export function gethTopicArity(filter: Obj, logs: Obj[]): Obj[] {
  const positions = Array.isArray(filter.topics) ? filter.topics.length : 0;
  return logs.filter((log) => (log.topics as unknown[]).length >= positions);
}

/**
 * Asks both endpoints `calls` (in batches of `batchSize`) and returns every untolerated difference, naming the call.
 */
export async function compareAnswers(
  ours: string,
  theirs: string,
  kind: string,
  calls: Call[],
  tolerances: readonly Tolerance[],
  batchSize = 500,
): Promise<string[]> {
  const [mine, reference] = await Promise.all([
    batchCalls(ours, calls, batchSize),
    batchCalls(theirs, calls, batchSize),
  ]);
  const problems: string[] = [];
  calls.forEach((call, i) => {
    const a = mine[i]!;
    const b = reference[i]!;
    if (call.method === 'eth_getLogs' && Array.isArray(b.result))
      b.result = gethTopicArity(call.params[0] as Obj, b.result as Obj[]);
    const what = `${call.method}(${JSON.stringify(call.params).slice(1, -1).slice(0, 160)})`;
    if (Boolean(a.error) !== Boolean(b.error))
      problems.push(`${what}: ours ${JSON.stringify(a.error ?? 'ok')}, theirs ${JSON.stringify(b.error ?? 'ok')}`);
    else if (!a.error)
      for (const d of untolerated(kind, a.result, b.result, tolerances)) problems.push(`${what}: ${d}`);
  });
  return problems;
}

/** Differences every comparison with anvil accepts (what anvil adds that geth does not return), with the reason. */
export const ANVIL_EXTRAS: readonly Tolerance[] = [
  ...['blobs', 'commitments', 'proofs'].flatMap((field) => {
    const reason =
      "anvil adds a blob transaction's sidecar to the transaction object; " +
      'geth does not (the sidecar is not part of the block) and the store keeps none';
    return [
      { kind: 'block', path: `transactions.*.${field}`, reason },
      { kind: 'transaction', path: field, reason },
    ];
  }),
  ...['', '*.'].flatMap((prefix) => [
    {
      kind: 'receipt',
      path: `${prefix}blobGasPrice`,
      reason:
        "anvil puts the blob base fee on every receipt after Cancun; geth's MarshalReceipt only " +
        "on a blob transaction's (type 3), which the test checks against anvil's apart",
    },
    {
      kind: 'receipt',
      path: `${prefix}blockTimestamp`,
      reason:
        "anvil adds the block's timestamp to a receipt, as a JSON number; " +
        "geth's receipt has none (its logs carry blockTimestamp, and those match)",
    },
  ]),
];
