/**
 * The upstream node's failures as domain values: rpc/errors.ts maps each to its JSON-RPC code in
 * one place (proxyd's -32011 for no usable backend, -32015 for a timeout). Their messages say what
 * went wrong without naming the node's URL, which may hold a provider key.
 */

/**
 * The node cannot answer now: refused or dropped the connection, answered garbage or too much, or
 * the breaker is open.
 */
export class UpstreamUnavailableError extends Error {
  /** Builds the failure; `reason` completes "the upstream node …" and never holds the URL. */
  constructor(readonly reason: string) {
    super(`the upstream node ${reason}`);
    this.name = 'UpstreamUnavailableError';
  }
}

/** The node did not answer within the timeout. */
export class UpstreamTimeoutError extends Error {
  /** Builds the failure of a call not answered within `timeoutMs`. */
  constructor(readonly timeoutMs: number) {
    super(`the upstream node did not answer within ${timeoutMs} ms`);
    this.name = 'UpstreamTimeoutError';
  }
}

/** A forwarded call names a block above this store's head, which did not reach it in the time allowed. */
export class BlockBeyondHeadError extends Error {
  /** Builds the refusal of a call at `block` while the store's head is `head`. */
  constructor(
    readonly block: number,
    readonly head: number,
  ) {
    super(`block ${block} is beyond the store's head ${head}`);
    this.name = 'BlockBeyondHeadError';
  }
}
