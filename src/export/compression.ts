/**
 * The compressions an export offers, by name (a module of its own, so the library and the command
 * line name them without loading the Parquet writer).
 */

/** The compressions `export --compression` offers; the first is the default. */
export const COMPRESSIONS = ['zstd', 'snappy', 'lz4', 'none'] as const;

/** One of COMPRESSIONS. */
export type CompressionName = (typeof COMPRESSIONS)[number];

/** Whether `name` is one of COMPRESSIONS. */
export function isCompression(name: string): name is CompressionName {
  return (COMPRESSIONS as readonly string[]).includes(name);
}
