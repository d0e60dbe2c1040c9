/**
 * Chunk planning and file naming, as cryo does them: a range is cut into chunks of `chunkBlocks`
 * blocks starting at its first block (the last one shorter), and each chunk's file is named
 * `{network}__{datatype}__{start:08}_to_{end:08}.parquet`, the end inclusive, the network named
 * from the chain id by cryo's table.
 */
import type { ExportKind } from './schemas.js';

/** A chunk: blocks [from, to], inclusive. */
export interface Chunk {
  from: number;
  to: number;
}

/** Blocks per exported file by default: cryo's chunk size. */
export const DEFAULT_CHUNK_BLOCKS = 1_000;

/** Digits block numbers are zero-padded to in file names (cryo's `{:0>8}`: longer numbers keep their digits). */
const NUMBER_DIGITS = 8;

/** The file extension of an export. */
export const PARQUET_EXTENSION = '.parquet';

/** The network names cryo gives known chain ids; any other id is `network_{id}`. */
const NETWORKS: ReadonlyMap<bigint, string> = new Map([
  [1n, 'ethereum'],
  [5n, 'goerli'],
  [10n, 'optimism'],
  [56n, 'bnb'],
  [69n, 'optimism_kovan'],
  [100n, 'gnosis'],
  [137n, 'polygon'],
  [420n, 'optimism_goerli'],
  [1101n, 'polygon_zkevm'],
  [1442n, 'polygon_zkevm_testnet'],
  [8453n, 'base'],
  [10200n, 'gnosis_chidao'],
  [17000n, 'holesky'],
  [42161n, 'arbitrum'],
  [42170n, 'arbitrum_nova'],
  [43114n, 'avalanche'],
  [80001n, 'polygon_mumbai'],
  [84531n, 'base_goerli'],
  [7777777n, 'zora'],
  [11155111n, 'sepolia'],
]);

/** The network part of file names for `chainId`. */
export function networkName(chainId: bigint): string {
  return NETWORKS.get(chainId) ?? `network_${chainId}`;
}

/** Blocks [from, to] cut into chunks of `chunkBlocks`, starting at `from`; none when from > to. */
export function planChunks(from: number, to: number, chunkBlocks: number): Chunk[] {
  if (!Number.isSafeInteger(chunkBlocks) || chunkBlocks < 1)
    throw new RangeError(`chunk size ${chunkBlocks} is not a positive integer`);
  const chunks: Chunk[] = [];
  for (let start = from; start <= to; start += chunkBlocks)
    chunks.push({ from: start, to: Math.min(to, start + chunkBlocks - 1) });
  return chunks;
}

/** The start of every file name of `kind` on `network`. */
export function filePrefix(network: string, kind: ExportKind): string {
  return `${network}__${kind}__`;
}

/** The file name of `chunk` of `kind` on `network`. */
export function chunkFileName(network: string, kind: ExportKind, chunk: Chunk): string {
  const pad = (n: number) => String(n).padStart(NUMBER_DIGITS, '0');
  return `${filePrefix(network, kind)}${pad(chunk.from)}_to_${pad(chunk.to)}${PARQUET_EXTENSION}`;
}

/** The chunk a file name of `kind` on `network` names, or undefined when it names none. */
export function parseChunkFileName(name: string, network: string, kind: ExportKind): Chunk | undefined {
  const prefix = filePrefix(network, kind);
  if (!name.startsWith(prefix) || !name.endsWith(PARQUET_EXTENSION)) return undefined;
  const m = /^([0-9]+)_to_([0-9]+)$/.exec(name.slice(prefix.length, -PARQUET_EXTENSION.length));
  if (!m) return undefined;
  const chunk = { from: Number(m[1]), to: Number(m[2]) };
  return chunkFileName(network, kind, chunk) === name ? chunk : undefined;
}
