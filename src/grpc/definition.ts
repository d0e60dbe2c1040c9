/**
 * The gRPC front's contract: src/grpc/ethlogd.proto, loaded with @grpc/proto-loader. The .proto is
 * read from the source tree at runtime (the build does not copy it), found relative to this module
 * so it works from dist/ and from a clean clone alike.
 */
import { fileURLToPath } from 'node:url';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

/** Absolute path of ethlogd.proto (dist/src/grpc/ → src/grpc/). */
const PROTO_FILE = fileURLToPath(new URL('../../../src/grpc/ethlogd.proto', import.meta.url));

/** The fully qualified name of the service (package ethlogd.v1). */
export const SERVICE_NAME = 'ethlogd.v1.EthLogs';

/**
 * How messages map to JavaScript (server and clients alike): camelCase fields, uint64 as decimal
 * strings (exact past 2^53), enums by name, bytes as Buffers, the member of each oneof named, and
 * unset fields left out (so an unset optional field is `undefined`, JSON-RPC's null).
 */
export const LOADER_OPTIONS: Options = { longs: String, enums: String, oneofs: true, defaults: false };

/** Loads the package definition of ethlogd.proto, with LOADER_OPTIONS unless told otherwise. */
export function loadDefinition(options: Options = LOADER_OPTIONS): PackageDefinition {
  return loadSync(PROTO_FILE, options);
}
