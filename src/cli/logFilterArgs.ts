/**
 * The log filter options `query logs` and `export logs` share: --filter's eth_getLogs JSON, or the
 * shorthand flags (--address, --topic0..--topic3, --from, --to, and --block-hash where the command
 * takes one), parsed into the library's LogFilter.
 */
import type { LogFilter } from '../api/types.js';
import { BLOCK_TAGS } from '../chain/tags.js';
import { UsageError } from './args.js';

/** Topic positions the shorthand flags offer (--topic0..--topic3): the EVM's LOG0..LOG4 emit at most four topics. */
const TOPIC_FLAGS = ['topic0', 'topic1', 'topic2', 'topic3'] as const;

/** The parseArgs options of the filter (--block-hash is the command's own). */
export const LOG_FILTER_OPTIONS = {
  filter: { type: 'string' },
  address: { type: 'string', multiple: true },
  topic0: { type: 'string' },
  topic1: { type: 'string' },
  topic2: { type: 'string' },
  topic3: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
} as const;

/** The usage lines of the filter options; `from` and `to` are the command's defaults. */
export function logFilterUsage(from: string, to: string): string {
  return `  --filter JSON        an eth_getLogs filter object, same rules as eth_getLogs, e.g.
                       '{"fromBlock":"0x0","toBlock":"latest","address":"0x..","topics":[["0x..","0x.."],null,"0x.."]}'
  or the filter from flags (not with --filter):
  --address A          emitting contract; repeat or comma-separate for any of several  default any
  --topic0 T .. --topic3 T
                       topic at that position; comma-separate alternatives            default any
  --from B             first block                                                     default ${from}
  --to B               last block                                                      default ${to}`;
}

/**
 * A block option: decimal (as a bigint), else 0x-hex (a quantity or a 32-byte hash, checked by the library) or a tag;
 * UsageError otherwise.
 */
export function blockArg(value: string, name: string): bigint | string {
  if (/^[0-9]+$/.test(value)) return BigInt(value);
  if (/^0x[0-9a-fA-F]+$/.test(value) || (BLOCK_TAGS as readonly string[]).includes(value)) return value;
  const hash = name === 'block' ? ' or a 0x block hash' : '';
  throw new UsageError(`--${name} must be a block number (decimal or 0x-hex), a tag (${BLOCK_TAGS.join(', ')})${hash}`);
}

/** The values of a repeatable option (parseArgs gives an array), each comma-separated list split. */
function listArg(value: unknown): string[] {
  const given = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
  return given.flatMap((v) => v.split(',')).filter((v) => v !== '');
}

/** The filter of `query logs` and `export logs`: --filter's JSON, or one built from the shorthand flags. */
export function logFilter(values: Record<string, unknown>): LogFilter {
  const shorthand = ['address', ...TOPIC_FLAGS, 'from', 'to', 'block-hash'].filter(
    (name) => values[name] !== undefined,
  );
  if (typeof values.filter === 'string') {
    if (shorthand.length > 0) throw new UsageError(`--filter cannot be combined with --${shorthand[0]}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(values.filter);
    } catch (error) {
      throw new UsageError(`--filter is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UsageError('--filter must be a JSON object');
    return parsed as LogFilter;
  }
  const filter: LogFilter = {};
  const addresses = listArg(values.address);
  if (addresses.length > 0) filter.address = addresses;
  const topics = TOPIC_FLAGS.map((name) => listArg(values[name]));
  let positions = topics.length;
  while (positions > 0 && topics[positions - 1]!.length === 0) positions--;
  if (positions > 0) {
    filter.topics = topics.slice(0, positions).map((alternatives) => {
      if (alternatives.length === 0) return null;
      return alternatives.length === 1 ? alternatives[0]! : alternatives;
    });
  }
  if (typeof values.from === 'string') filter.fromBlock = blockArg(values.from, 'from');
  if (typeof values.to === 'string') filter.toBlock = blockArg(values.to, 'to');
  if (typeof values['block-hash'] === 'string') filter.blockHash = values['block-hash'];
  return filter;
}
