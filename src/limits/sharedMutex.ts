/**
 * A mutual-exclusion lock in one cell of a shared Int32Array, usable from every thread that holds
 * the buffer: the futex mutex of Drepper's "Futexes Are Tricky" (0 unlocked, 1 locked, 2 locked with
 * waiters), so an uncontended lock and unlock cost one atomic operation each and a waiter sleeps in
 * Atomics.wait instead of spinning. Node allows Atomics.wait on the main thread too.
 */

/** The cell is free. */
const UNLOCKED = 0;
/** The cell is held and nobody waits. */
const LOCKED = 1;
/** The cell is held and a thread may be waiting: the holder wakes one on unlock. */
const CONTENDED = 2;

/** A lock over `cell[index]` of a SharedArrayBuffer-backed Int32Array (which starts at 0: unlocked). */
export class SharedMutex {
  /** Binds the lock to `cell[index]`. */
  constructor(
    private readonly cell: Int32Array,
    private readonly index: number,
  ) {}

  /** Takes the lock, sleeping while another thread holds it. */
  lock(): void {
    const { cell, index } = this;
    let state = Atomics.compareExchange(cell, index, UNLOCKED, LOCKED);
    if (state === UNLOCKED) return;
    if (state !== CONTENDED) state = Atomics.exchange(cell, index, CONTENDED);
    while (state !== UNLOCKED) {
      Atomics.wait(cell, index, CONTENDED);
      state = Atomics.exchange(cell, index, CONTENDED);
    }
  }

  /** Releases the lock (held by this thread), waking one waiter if any. */
  unlock(): void {
    const { cell, index } = this;
    if (Atomics.sub(cell, index, 1) !== LOCKED) {
      Atomics.store(cell, index, UNLOCKED);
      Atomics.notify(cell, index, 1);
    }
  }
}
