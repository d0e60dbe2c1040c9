/**
 * The JSON of recently rendered canonical blocks, so a hot block (the head an indexer polls, the
 * blocks a load test cycles through) is not rendered again from its header and every transaction
 * record. An entry holds the block hash it was rendered for: a lookup reads the header anyway and
 * serves the entry only while the stored block still has that hash, so a block replaced by a
 * reorg is rendered afresh. Oldest entries go first once the texts pass the byte bound.
 */

/**
 * Bytes of rendered JSON (UTF-16 units) a thread keeps: a 289-block chain's blocks with hashes
 * take about 0.5 MB, with full transactions about 3 MB; the bound keeps each HTTP thread's cache
 * under 64 MB however large the blocks asked for.
 */
export const RENDERED_BLOCKS_MAX_CHARS = 32 * 1024 * 1024;

/** A rendered block and the hash it was rendered for. */
interface Entry {
  hash: Buffer;
  text: string;
}

/** Rendered block JSON by block number and format, bounded in size, checked against the block hash. */
export class RenderedBlocks {
  private readonly entries = new Map<number, Entry>();
  private chars = 0;

  /** Keeps at most `maxChars` UTF-16 units of JSON. */
  constructor(private readonly maxChars = RENDERED_BLOCKS_MAX_CHARS) {}

  /** The JSON of block `number` (with full transactions when `full`) rendered for `hash`, or undefined. */
  get(number: number, full: boolean, hash: Uint8Array): string | undefined {
    const entry = this.entries.get(slot(number, full));
    return entry?.hash.equals(hash) ? entry.text : undefined;
  }

  /**
   * Keeps `text` as the JSON of block `number` (`full` or not) with hash `hash` (copied), evicting the oldest entries
   * past the bound.
   */
  set(number: number, full: boolean, hash: Uint8Array, text: string): void {
    if (text.length > this.maxChars) return;
    const key = slot(number, full);
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.chars -= old.text.length;
      this.entries.delete(key);
    }
    this.entries.set(key, { hash: Buffer.from(hash), text });
    this.chars += text.length;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.text.length;
    }
  }
}

/** The map key of block `number` in a format. */
function slot(number: number, full: boolean): number {
  return number * 2 + (full ? 1 : 0);
}
