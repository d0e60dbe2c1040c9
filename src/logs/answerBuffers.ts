/**
 * The memory eth_getLogs answers are rendered into, used again and again on a thread. A large
 * answer (a mainnet block is about 350 KB of JSON, a 10,000-log range about 7 MB) rendered into
 * fresh memory costs that memory's page faults, a copy to hand it over, and, once dropped, the
 * garbage collector's time: V8 schedules full collections by the bytes of ArrayBuffers allocated,
 * so on a thread serving such answers full collections ran every few requests. Instead an answer
 * is rendered into a buffer taken from this thread's spares (the inline path here, a pool task in
 * the worker the buffer is transferred to, and back), lent with the answer, and given back by the
 * front once its bytes are written to the socket or copied.
 */

/** Spare buffers a thread keeps: a window of pool tasks and a few inline answers in flight. */
export const SPARE_BUFFERS = 16;

/** Buffers above this size are not kept (a rare huge answer's memory is returned to the system). */
export const MAX_SPARE_BYTES = 32 * 1024 * 1024;

/** Buffers handed out with answers on this thread and not given back yet. */
const lent = new WeakSet<ArrayBuffer>();
/** Buffers free for the next answer, largest last. */
const spares: ArrayBuffer[] = [];

/** A spare buffer of this thread (the largest), or undefined when there is none. */
export function takeSpare(): ArrayBuffer | undefined {
  return spares.pop();
}

/** Marks `buffer` as lent with an answer: giveBack() takes it back once the answer is spent. */
export function lend(buffer: ArrayBuffer): void {
  lent.add(buffer);
}

/** Keeps `buffer` as a spare, unless there are enough or it is too large. */
export function keepSpare(buffer: ArrayBuffer): void {
  if (buffer.byteLength > MAX_SPARE_BYTES || spares.length >= SPARE_BUFFERS) return;
  // Largest last, so takeSpare() hands out the one most likely to hold the next answer whole.
  let i = spares.length;
  while (i > 0 && spares[i - 1]!.byteLength > buffer.byteLength) i--;
  spares.splice(i, 0, buffer);
}

/**
 * Takes back the buffers lent with these answer chunks: call once nothing reads them any more
 * (written to the socket, or copied). Chunks whose memory was not lent on this thread are left alone.
 */
export function giveBack(chunks: readonly (string | Uint8Array)[]): void {
  for (const chunk of chunks) {
    if (typeof chunk === 'string' || !lent.has(chunk.buffer as ArrayBuffer)) continue;
    const buffer = chunk.buffer as ArrayBuffer;
    lent.delete(buffer);
    keepSpare(buffer);
  }
}
