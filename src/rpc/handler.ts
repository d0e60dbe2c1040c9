/**
 * The contract between a transport front (HTTP, gRPC) and the JSON-RPC layer.
 */

/** Answers raw JSON-RPC request bodies (single or batch) with response body text. */
export interface RpcHandler {
  /** Handles one request body; synchronous answers come back as a string, others as a promise. */
  handle(body: Uint8Array): string | Promise<string>;
}
