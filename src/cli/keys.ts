/**
 * `ethlogd keys create|list|revoke`: API key administration (keys are stored only as hashes).
 */
import { EthLogStore } from '../api/store.js';
import { existingStore, parse, UsageError } from './args.js';

/** Usage text of `keys`. */
export const KEYS_USAGE = `Usage:
  ethlogd keys create --data DIR [--label L]   creates a key; prints it alone on the last line
  ethlogd keys list --data DIR                 lists key ids (sha256 of the key), labels, states
  ethlogd keys revoke --data DIR KEY|ID        revokes the key, given itself or its id (or the id's first 8+
                                               digits, as keys list and the request log show); effective on
                                               the next request

Options:
  --data DIR     store directory                                       required
  --label L      label for a new key                                   default "default"
  -h, --help     this text`;

/** Runs `keys`. */
export async function keysCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { data: { type: 'string' }, label: { type: 'string' } }, true);
  const [action, ...rest] = positionals;
  if (values.help || action === undefined) {
    console.log(KEYS_USAGE);
    return values.help ? 0 : 2;
  }
  if (!['create', 'list', 'revoke'].includes(action)) throw new UsageError(`unknown keys action "${action}"`);
  const store = EthLogStore.open(existingStore(values.data), { writable: true });
  try {
    if (action === 'create') {
      const label = typeof values.label === 'string' ? values.label : 'default';
      console.log(`created key "${label}"; it is shown only now:`);
      console.log(store.createApiKey(label));
      return 0;
    }
    if (action === 'list') {
      for (const k of store.listApiKeys()) {
        const state = k.revoked === null ? 'active' : `revoked ${new Date(k.revoked).toISOString()}`;
        console.log(`${k.id}  ${new Date(k.created).toISOString()}  ${state}  ${k.label}`);
      }
      return 0;
    }
    if (rest.length !== 1) throw new UsageError('keys revoke takes exactly one KEY or key id');
    const target = rest[0]!;
    if (store.revokeApiKey(target)) {
      console.log('revoked');
      return 0;
    }
    const named = store.revokeApiKeyById(target);
    if (named === 1) {
      console.log('revoked');
      return 0;
    }
    console.error(
      named > 1
        ? `${named} keys have ids starting with ${target}: give more of the id`
        : `no key is ${target}, nor has an id starting with it (ethlogd keys list shows the ids)`,
    );
    return 1;
  } finally {
    await store.close();
  }
}
