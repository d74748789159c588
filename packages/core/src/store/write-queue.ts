import pLimit from 'p-limit';

export interface WriteQueue {
  /**
   * Queues `write` under `key` and returns its promise (settled exactly as the write settles). It starts once every
   * earlier write queued under the same key has settled (in success or failure) and fewer than `maxInFlight` writes
   * of the queue are running.
   */
  enqueue(key: string, write: () => Promise<void>): Promise<void>;
  /** Writes running now. */
  readonly inFlight: number;
  /** Writes waiting for a slot (writes still waiting for an earlier one of their key are not counted). */
  readonly waiting: number;
}

/**
 * A write-behind queue with two guarantees: at most `maxInFlight` writes run at once (a FIFO slot pool, `p-limit`),
 * and writes to the same key apply in the order they were queued (each waits for the one before it, outside the pool,
 * so a waiting write never holds a slot). Writes to different keys keep no order among themselves.
 * `maxInFlight` may be `Infinity` (no bound: what the store did before, kept for the benchmark's baseline).
 */
export function createWriteQueue(maxInFlight: number): WriteQueue {
  if (maxInFlight !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(maxInFlight) && maxInFlight >= 1)) {
    throw new RangeError('maxInFlight must be a positive integer or Infinity');
  }
  const limit = pLimit(maxInFlight);
  // NOTE: one settled-or-not tail per key with a write still queued or running; removed when it settles, so the map
  // never holds more keys than there are writes outstanding.
  const tails = new Map<string, Promise<void>>();
  const settle = () => undefined;

  return {
    enqueue(key, write) {
      const previous = tails.get(key);
      const queued = previous === undefined ? limit(write) : previous.then(() => limit(write));
      const tail = queued.then(settle, settle);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return queued;
    },
    get inFlight() {
      return limit.activeCount;
    },
    get waiting() {
      return limit.pendingCount;
    },
  };
}
