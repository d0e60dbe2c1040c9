/**
 * The contract between a transport front (HTTP, gRPC) and the JSON-RPC layer.
 */
import type { RequestTrace } from './observe.js';

/** A response body: JSON text, or JSON already encoded as UTF-8 bytes (large log answers). */
export type RpcBody = string | Uint8Array;

/** Answers raw JSON-RPC request bodies (single or batch) with response bodies. */
export interface RpcHandler {
  /**
   * Handles one request body; synchronous answers come back directly, others as a promise. With a
   * trace, every call of the body is noted in it as it is answered (the request log); `caller` is
   * the API key the body came with.
   */
  handle(body: Uint8Array, trace?: RequestTrace, caller?: string): RpcBody | Promise<RpcBody>;
}
