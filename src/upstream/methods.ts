/**
 * Which methods go to the upstream node, and where each carries its block parameter. A block tag
 * there (latest, safe, finalized) is replaced by the number this store's markers give, so a
 * forwarded call reads the same chain state as the store's own answers to the same client; a
 * number above the head is reported (the caller waits for the head or refuses); `pending`,
 * `earliest`, block hashes and anything that is not a tag or a number go to the node as they are.
 */
import { tagNumber } from '../chain/tags.js';
import type { BlockTag, ChainMeta } from '../chain/types.js';

/**
 * The methods forwarded by default: state reads, fee figures, gas estimates and traces, none of
 * which the store holds.
 */
export const DEFAULT_UPSTREAM_METHODS: readonly string[] = [
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_getBalance',
  'eth_getCode',
  'eth_getTransactionCount',
  'eth_getProof',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'debug_traceBlockByNumber',
  'debug_traceBlockByHash',
  'debug_traceTransaction',
  'debug_traceCall',
  'trace_block',
  'trace_transaction',
  'trace_filter',
  'trace_replayBlockTransactions',
];

/** The one writing method, forwarded only when asked for (serve --upstream-send). */
export const SEND_METHOD = 'eth_sendRawTransaction';

/**
 * Methods never forwarded whatever the list says: they administer the node, use its keys (its
 * unlocked accounts sign eth_sendTransaction), mine, or change its tracing or test state.
 */
const NEVER_PREFIXES: readonly string[] = [
  'admin_',
  'personal_',
  'miner_',
  'debug_set',
  'engine_',
  'anvil_',
  'hardhat_',
  'evm_',
  'clique_',
  'eth_sign',
];

/** The wallet methods of a node, by exact name. */
const NEVER_METHODS: ReadonlySet<string> = new Set([
  'eth_sendTransaction',
  'eth_accounts',
  'eth_coinbase',
  'eth_submitWork',
  'eth_submitHashrate',
]);

/** Why `method` is never forwarded, or undefined when it may be. */
export function neverForwarded(method: string): string | undefined {
  if (NEVER_METHODS.has(method) || NEVER_PREFIXES.some((prefix) => method.startsWith(prefix)))
    return `${method} is never forwarded (it administers the node or uses its keys)`;
  return undefined;
}

/** Raised for a forwarding list that names a method that may not be forwarded. */
export class ForwardListError extends Error {}

/**
 * The methods to forward: `listed` (the default list when undefined), plus eth_sendRawTransaction
 * with `send`; `served` are the methods the store answers itself, never forwarded. Throws a
 * ForwardListError naming a method that may not be in the list.
 */
export function forwardedMethods(
  listed: readonly string[] | undefined,
  send: boolean,
  served: ReadonlySet<string>,
): ReadonlySet<string> {
  const methods = new Set<string>();
  for (const method of listed ?? DEFAULT_UPSTREAM_METHODS) {
    if (!/^[a-zA-Z][a-zA-Z0-9_]*$/.test(method)) throw new ForwardListError(`"${method}" is not a method name`);
    const never = neverForwarded(method);
    if (never !== undefined) throw new ForwardListError(never);
    if (served.has(method)) throw new ForwardListError(`${method} is answered by the store, not forwarded`);
    if (method === SEND_METHOD && !send)
      throw new ForwardListError(`${SEND_METHOD} is forwarded only with --upstream-send`);
    methods.add(method);
  }
  if (send) methods.add(SEND_METHOD);
  return methods;
}

/** Where a method's block parameter sits: a position, or a member of the filter object at position 0 (trace_filter). */
type BlockSlot = { index: number; fill: boolean } | { filterFields: readonly string[] };

/**
 * The block parameter of each method that has one. `fill`: the parameter is optional and means
 * latest when absent, so an absent one is written as the store's head (the call's last parameter).
 */
const BLOCK_SLOTS: ReadonlyMap<string, BlockSlot> = new Map<string, BlockSlot>([
  ['eth_call', { index: 1, fill: true }],
  ['eth_estimateGas', { index: 1, fill: true }],
  ['eth_createAccessList', { index: 1, fill: true }],
  ['eth_getBalance', { index: 1, fill: true }],
  ['eth_getCode', { index: 1, fill: true }],
  ['eth_getTransactionCount', { index: 1, fill: true }],
  ['eth_getProof', { index: 2, fill: true }],
  ['eth_feeHistory', { index: 1, fill: false }],
  ['debug_traceBlockByNumber', { index: 0, fill: false }],
  ['debug_traceCall', { index: 1, fill: true }],
  ['trace_block', { index: 0, fill: false }],
  ['trace_replayBlockTransactions', { index: 0, fill: false }],
  ['trace_filter', { filterFields: ['fromBlock', 'toBlock'] }],
]);

/** Whether calls of `method` carry a block parameter that is pinned. */
export function hasBlockParam(method: string): boolean {
  return BLOCK_SLOTS.has(method);
}

/** The tags pinned to the store's markers. */
const PINNED_TAGS: ReadonlySet<string> = new Set<BlockTag>(['latest', 'safe', 'finalized']);

/** A forwarded call's params with its block pinned, and the highest block number it names (undefined: none). */
export interface PinnedParams {
  params: unknown[];
  highest: number | undefined;
}

/** A block parameter as it goes to the node, and the number it names when it names one. */
function pinValue(value: unknown, meta: ChainMeta): { value: unknown; number?: number } {
  if (typeof value === 'string') {
    if (PINNED_TAGS.has(value)) {
      const number = tagNumber(value as BlockTag, meta);
      return { value: '0x' + number.toString(16), number };
    }
    if (/^0x[0-9a-fA-F]{1,13}$/.test(value)) return { value, number: Number.parseInt(value.slice(2), 16) };
    return { value };
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return { value, number: value };
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'blockNumber' in value) {
    const inner = pinValue((value as { blockNumber: unknown }).blockNumber, meta);
    return { value: { ...value, blockNumber: inner.value }, number: inner.number };
  }
  return { value };
}

/**
 * `params` of `method` with a latest, safe or finalized block parameter replaced by the number
 * `meta` gives (an absent optional one by the head), and the highest block number they then name;
 * a method without a block parameter, and a parameter of another shape, is left as it is.
 */
export function pinBlockParams(method: string, params: unknown[], meta: ChainMeta): PinnedParams {
  const slot = BLOCK_SLOTS.get(method);
  if (slot === undefined) return { params, highest: undefined };
  if ('filterFields' in slot) {
    const filter = params[0];
    if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return { params, highest: undefined };
    const pinned: Record<string, unknown> = { ...(filter as Record<string, unknown>) };
    let highest: number | undefined;
    for (const field of slot.filterFields) {
      // An open end means latest: it is written as the head.
      const at = pinValue(pinned[field] ?? (field === 'toBlock' ? 'latest' : undefined), meta);
      if (at.value !== undefined) pinned[field] = at.value;
      if (at.number !== undefined) highest = Math.max(highest ?? 0, at.number);
    }
    return { params: [pinned, ...params.slice(1)], highest };
  }
  const { index } = slot;
  const given = params[index];
  if (given === undefined || given === null) {
    // Only the call's last parameter may be filled: a later one given means the node reads this one as it is.
    if (!slot.fill || params.length > index + 1 || params.length < index) return { params, highest: undefined };
    const at = pinValue('latest', meta);
    return { params: [...params.slice(0, index), at.value], highest: at.number };
  }
  const at = pinValue(given, meta);
  if (at.value === given) return { params, highest: at.number };
  const out = params.slice();
  out[index] = at.value;
  return { params: out, highest: at.number };
}
