/**
 * Every limit and default of the service, named, with the reason for its value.
 */

/** eth_getLogs result cap: SPEC.md §8 (-32005 past it). */
export const MAX_LOG_RESULTS = 10_000;

/** eth_getLogs time budget in milliseconds: SPEC.md §8 (-32005 `query timeout exceeded` past it). */
export const LOG_QUERY_TIMEOUT_MS = 10_000;

/** Addresses plus topic values one eth_getLogs filter may carry: SPEC.md §8. */
export const MAX_FILTER_PARAMS = 5_000;

/** Topic positions a filter may constrain: the EVM's LOG0..LOG4 emit at most four topics. */
export const MAX_TOPIC_POSITIONS = 4;

/** Items one JSON-RPC batch may hold: DESIGN.md §5 (bounds the work one request can queue). */
export const MAX_BATCH_ITEMS = 1_000;

/** Largest request body in bytes: DESIGN.md §5 (413 past it; a 1,000-item batch fits easily). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Default HTTP port: the Ethereum JSON-RPC convention, so clients work unconfigured. */
export const DEFAULT_HTTP_PORT = 8545;

/** Default bind address: loopback, so a fresh install is not exposed to the network. */
export const DEFAULT_HOST = '127.0.0.1';

/** Client version reported by web3_clientVersion. */
export const CLIENT_VERSION = 'ethlogd/0.1.0';

/** Runtime limits of the log query path; tests shrink them, production keeps the defaults. */
export interface LogLimits {
  maxResults: number;
  timeoutMs: number;
  maxParams: number;
}

/** The SPEC.md limits. */
export const DEFAULT_LOG_LIMITS: LogLimits = {
  maxResults: MAX_LOG_RESULTS,
  timeoutMs: LOG_QUERY_TIMEOUT_MS,
  maxParams: MAX_FILTER_PARAMS,
};
