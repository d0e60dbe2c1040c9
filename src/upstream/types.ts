/**
 * What crosses between the JSON-RPC layer and the upstream client: calls in, one answer per call
 * out, as plain data (an HTTP thread's calls travel to the main thread's client over a MessagePort).
 */

/** One call to forward. */
export interface UpstreamCall {
  method: string;
  params: unknown[];
}

/** The node's own JSON-RPC error object, passed through unchanged. */
export interface NodeErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Why a call got no answer from the node: it timed out, or the node could not be used (`reason` says how). */
export interface UpstreamFailure {
  kind: 'timeout' | 'unavailable';
  reason: string;
  /** The timeout, for kind 'timeout'. */
  timeoutMs?: number;
}

/** The answer to one call: the node's result, the node's error, or a failure to reach it. */
export type UpstreamAnswer = { result: unknown } | { error: NodeErrorObject } | { failure: UpstreamFailure };

/** Something that forwards calls: the HTTP client on the main thread, its proxy on an HTTP thread. */
export interface Upstream {
  /** Sends `calls` (in chunks, in parallel) and resolves with their answers in call order; never rejects. */
  send(calls: UpstreamCall[]): Promise<UpstreamAnswer[]>;
}
