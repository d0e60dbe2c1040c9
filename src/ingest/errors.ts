/**
 * Errors of ingest from an upstream node, as classes carrying codes: a request that failed for
 * good, a JSON-RPC error the node answered, data that failed a check, and a store that this node
 * cannot continue.
 */

/** Why an upstream request failed after its retries. */
export type NodeRequestFailure = 'timeout' | 'network' | 'http' | 'malformed';

/** An upstream request that failed (after retries when the failure was transient). */
export class NodeRequestError extends Error {
  /** Builds the error; `status` is the HTTP status when there was one, `retryAfterMs` the node's Retry-After. */
  constructor(
    readonly code: NodeRequestFailure,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The node answered a call with a JSON-RPC error object. */
export class NodeRpcError extends Error {
  /** Builds the error from the node's `code` and `message` for `method`. */
  constructor(
    readonly code: number,
    message: string,
    readonly method: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

/** What was wrong with the node's data. */
export type NodeDataFailure =
  | 'malformed'
  | 'missing-block'
  | 'inconsistent'
  | 'log-position'
  | 'bloom-mismatch'
  | 'unsupported';

/**
 * The node's data failed a check: a malformed field, a log outside its block, a wrong bloom, answers from different
 * blocks.
 */
export class NodeDataError extends Error {
  /** Builds the error with its failure `code`. */
  constructor(
    readonly code: NodeDataFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Why the store cannot be continued from this node. */
export type IngestConflict =
  | 'chain-id'
  | 'chain-kind'
  | 'start'
  | 'head-mismatch'
  | 'reorg-too-deep'
  | 'genesis'
  | 'no-traces';

/**
 * The store holds something this node cannot continue (another chain id or kind, another start, a head the node does
 * not have), the genesis file cannot be used, or the node cannot give what was asked (traces).
 */
export class IngestConflictError extends Error {
  /** Builds the error with its conflict `code`. */
  constructor(
    readonly code: IngestConflict,
    message: string,
  ) {
    super(message);
  }
}
