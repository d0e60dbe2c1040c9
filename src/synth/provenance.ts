/**
 * What made a generated store: the chain version, seed and density, recorded in meta with the
 * store's first blocks (docs/architecture.md §3). generateStore extends a store only when this record
 * says the same generator and options made it; otherwise it refuses, saying what the store holds and
 * what to do.
 */
import type { Store } from '../store/schema.js';
import { CHAIN_VERSION } from './generator.js';

/** Meta key of the record. */
export const PROVENANCE_KEY = 'generator';

/** The generator and options that made a store's chain. */
export interface Provenance {
  /** The generator's CHAIN_VERSION. */
  chainVersion: number;
  seed: string;
  density: number;
  /** `op` for an OP-stack-like chain (generate --chain op); absent for Ethereum's. */
  chain?: 'op';
}

/** A generate the store cannot take (another chain, version or length): exit 2, the message says what to do. */
export class GenerateRefusedError extends Error {}

/** The record of the chain this generator makes with `seed` and `density`. */
export function provenanceOf(seed: string, density: number, chain?: 'op'): Provenance {
  return chain === undefined
    ? { chainVersion: CHAIN_VERSION, seed, density }
    : { chainVersion: CHAIN_VERSION, seed, density, chain };
}

/**
 * The record stored in `store`, or undefined when it has none (an empty store, one ingested, or one an older generate
 * made).
 */
export function storedProvenance(store: Store): Provenance | undefined {
  const value = store.meta.get(PROVENANCE_KEY) as Partial<Provenance> | undefined;
  if (typeof value?.chainVersion !== 'number' || typeof value.seed !== 'string' || typeof value.density !== 'number')
    return undefined;
  const p: Provenance = { chainVersion: value.chainVersion, seed: value.seed, density: value.density };
  if (value.chain === 'op') p.chain = 'op';
  return p;
}

/** Writes the record; call it in the write transaction of the store's first blocks. */
export function recordProvenance(store: Store, provenance: Provenance): void {
  store.meta.put(PROVENANCE_KEY, provenance);
}

/** The options that name a recorded chain on the command line. */
export function provenanceOptions(p: Provenance): string {
  return `--seed ${JSON.stringify(p.seed)} --density ${p.density}${p.chain === undefined ? '' : ` --chain ${p.chain}`}`;
}

/**
 * Refuses to extend the store at `dir` (holding blocks `earliest`..`head`, recorded as `stored`) with
 * the chain `wanted`: throws GenerateRefusedError naming what the store holds and what to do.
 */
export function checkProvenance(
  dir: string,
  stored: Provenance | undefined,
  wanted: Provenance,
  earliest: number,
  head: number,
): void {
  const holds = `the store at ${dir} holds blocks ${earliest}–${head}`;
  const elsewhere = `generate into another --out, or delete ${dir} and generate it again`;
  if (!stored) {
    throw new GenerateRefusedError(
      `${holds} with no record of generating them: ethlogd ingest made it, ` +
        `or an ethlogd generate older than chain version ${CHAIN_VERSION}, ` +
        `whose blocks differ from this one's. It cannot be extended: ${elsewhere}`,
    );
  }
  if (stored.chainVersion < wanted.chainVersion) {
    throw new GenerateRefusedError(
      `${holds} of chain version ${stored.chainVersion}, made by an older ethlogd generate; ` +
        `this one makes version ${wanted.chainVersion}, ` +
        `whose blocks differ. It cannot be extended: ${elsewhere}`,
    );
  }
  if (stored.chainVersion > wanted.chainVersion) {
    throw new GenerateRefusedError(
      `${holds} of chain version ${stored.chainVersion}, made by a newer ethlogd generate ` +
        `(this one makes version ${wanted.chainVersion}): extend it with that version`,
    );
  }
  if (stored.seed !== wanted.seed || stored.density !== wanted.density || stored.chain !== wanted.chain) {
    throw new GenerateRefusedError(
      `${holds} of another chain (${provenanceOptions(stored)}, not ${provenanceOptions(wanted)}): ` +
        `to extend it, run generate with ${provenanceOptions(stored)}; for this chain, choose another --out`,
    );
  }
}
