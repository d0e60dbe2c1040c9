/**
 * Compares two stores database by database, entry by entry (keys and values byte for byte; meta
 * values as decoded): the test that a store built with interruptions equals one built without.
 */
import { isDeepStrictEqual } from 'node:util';
import { CHAIN_DATABASES, type Store } from '#src/store/schema.js';

/** Databases compared; API keys are per store by design. */
const DATABASES = ['meta', ...CHAIN_DATABASES] as const;

/** Differences listed per database before the rest are only counted. */
const MAX_LISTED = 5;

const render = (v: unknown): string =>
  v instanceof Uint8Array ? Buffer.from(v).toString('hex').slice(0, 80) : JSON.stringify(v);

/** Every difference between the stores `a` and `b` (empty when they hold the same entries). */
export function diffStores(a: Store, b: Store): string[] {
  const out: string[] = [];
  for (const name of DATABASES) {
    const left = [...(a[name] as Store['headers']).getRange()];
    const right = [...(b[name] as Store['headers']).getRange()];
    let differences = 0;
    const note = (text: string) => {
      if (differences++ < MAX_LISTED) out.push(`${name}: ${text}`);
    };
    if (left.length !== right.length) note(`${left.length} entries against ${right.length}`);
    for (let i = 0; i < Math.min(left.length, right.length); i++) {
      const l = left[i]!;
      const r = right[i]!;
      if (!isDeepStrictEqual(l.key, r.key)) note(`entry ${i}: key ${render(l.key)} against ${render(r.key)}`);
      else if (!isDeepStrictEqual(l.value, r.value))
        note(`${render(l.key)}: ${render(l.value)} against ${render(r.value)}`);
    }
    if (differences > MAX_LISTED) out.push(`${name}: … ${differences - MAX_LISTED} more differences`);
  }
  return out;
}
