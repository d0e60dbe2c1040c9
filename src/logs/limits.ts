/**
 * The -32005 answers of the log query path (DESIGN.md §5), shared by the oracle and the engine so
 * both say exactly the same thing.
 */
import { quantityToHex } from '../chain/hex.js';
import { LimitExceededError } from '../rpc/errors.js';

/** The result-cap error, suggesting [from, lastFitting]: the range whose results fit under `limit`. */
export function resultCapError(from: number, lastFitting: number, limit: number): LimitExceededError {
  const a = quantityToHex(from);
  const b = quantityToHex(Math.max(from, lastFitting));
  return new LimitExceededError(`query returned more than ${limit} results. Try with this block range [${a}, ${b}].`, {
    from: a,
    to: b,
    limit,
  });
}

/** -32005 past a query's deadline: a class of its own so a transport can tell it from the other limits (gRPC answers DEADLINE_EXCEEDED). */
export class QueryTimeoutError extends LimitExceededError {
  /** Builds the deadline error. */
  constructor() {
    super('query timeout exceeded');
  }
}

/** The deadline error. */
export function timeoutError(): QueryTimeoutError {
  return new QueryTimeoutError();
}
