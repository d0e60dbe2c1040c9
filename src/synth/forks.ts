/**
 * The forks of the synthetic chain, by block number alone (docs/architecture.md §6). A block's fork
 * never depends on how long the chain is, so a longer chain of the same seed and density starts
 * with the shorter one's blocks and a store can be extended.
 *
 * Four short eras open every chain, then Prague from block 24 on, as on mainnet today:
 *
 *   blocks  0–7   London     (base fee; transaction types 0, 1, 2)
 *   blocks  8–15  Shanghai   (+ withdrawals)
 *   blocks 16–23  Cancun     (+ blob gas fields, parentBeaconBlockRoot; type 3)
 *   blocks 24 on  Prague     (+ requestsHash; type 4)
 *
 * So every chain of 25 blocks or more holds every fork's header fields, and the datasets the tests
 * use (25 to 600 blocks at densities 0.02 to 0.3, 5 to 80 transactions a block) hold every
 * transaction type each fork allows. At the densities most tests use (0.05 to 0.1) eight blocks
 * give an era 100 to 200 transactions, enough for its rarer kinds (blobs are about 1.5% of
 * transactions from Cancun on, set-code calls 1% from Prague on). The bulk of any larger dataset
 * (the benchmarks') is Prague, like the current mainnet.
 */

/** The forks the chain goes through, in order. */
export const enum Fork {
  London = 0,
  Shanghai = 1,
  Cancun = 2,
  Prague = 3,
}

/** First block number of each fork era. */
export interface ForkSchedule {
  london: number;
  shanghai: number;
  cancun: number;
  prague: number;
}

/**
 * Blocks in each of the three eras before Prague: enough transactions for every type an era allows (module comment).
 */
const ERA_BLOCKS = 8;

/** The fixed fork schedule of every generated chain: London at 0, Shanghai at 8, Cancun at 16, Prague from 24 on. */
export const FORK_SCHEDULE: Readonly<ForkSchedule> = Object.freeze({
  london: 0,
  shanghai: ERA_BLOCKS,
  cancun: 2 * ERA_BLOCKS,
  prague: 3 * ERA_BLOCKS,
});

/** The fork of block `number`. */
export function forkOf(number: number): Fork {
  if (number >= FORK_SCHEDULE.prague) return Fork.Prague;
  if (number >= FORK_SCHEDULE.cancun) return Fork.Cancun;
  if (number >= FORK_SCHEDULE.shanghai) return Fork.Shanghai;
  return Fork.London;
}
