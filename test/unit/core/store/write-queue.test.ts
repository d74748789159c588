import { createWriteQueue } from '@diagnosis/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Lets every queued promise reaction run (the queue hands slots on through promise callbacks). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes the test finishes by hand: each records when it started, how many writes were running then, and whether the
 * write queued before it under the same key had already settled.
 */
function createScriptedWrites() {
  const running = new Set<number>();
  const settledIds = new Set<number>();
  const starts: { id: number; key: string; concurrent: number; previousOfKeySettled: boolean }[] = [];
  const finishers = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  const previousOfKey = new Map<string, number>();
  let peak = 0;

  return {
    starts,
    running,
    peak: () => peak,
    /** A write for `key`, id `id` (ids in queueing order). */
    write(id: number, key: string) {
      const previous = previousOfKey.get(key);
      previousOfKey.set(key, id);
      return () => {
        running.add(id);
        peak = Math.max(peak, running.size);
        starts.push({
          id,
          key,
          concurrent: running.size,
          previousOfKeySettled: previous === undefined || settledIds.has(previous),
        });
        return new Promise<void>((resolve, reject) => {
          finishers.set(id, { resolve, reject });
        });
      };
    },
    finish(id: number, outcome: 'ok' | 'fail' = 'ok') {
      const finisher = finishers.get(id);
      if (finisher === undefined) throw new Error(`write ${id} is not running`);
      finishers.delete(id);
      running.delete(id);
      settledIds.add(id);
      if (outcome === 'ok') finisher.resolve();
      else finisher.reject(new Error('scripted write failure'));
    },
  };
}

describe('createWriteQueue', () => {
  it('runs at most maxInFlight writes at once when 200 are queued in one go', async () => {
    const queue = createWriteQueue(16);
    const writes = createScriptedWrites();
    const done = Array.from({ length: 200 }, (_, id) => queue.enqueue(`key-${id}`, writes.write(id, `key-${id}`)));
    await settled();
    expect(writes.running.size).toBe(16);
    expect(queue.inFlight).toBe(16);
    expect(queue.waiting).toBe(184);
    while (writes.running.size > 0) {
      for (const id of [...writes.running]) writes.finish(id);
      await settled();
    }
    await Promise.all(done);
    expect(writes.starts).toHaveLength(200);
    expect(writes.peak()).toBe(16);
    // NOTE: the slot pool is FIFO: writes start in the order they were queued.
    expect(writes.starts.map((start) => start.id)).toEqual(Array.from({ length: 200 }, (_, id) => id));
  });

  it('starts a write to a key only after the one queued before it under that key settled, even when it failed', async () => {
    const queue = createWriteQueue(4);
    const writes = createScriptedWrites();
    const first = queue.enqueue('RUN#r|TOOL#call_1', writes.write(0, 'RUN#r|TOOL#call_1'));
    const other = queue.enqueue('RUN#r|STEP#0001', writes.write(1, 'RUN#r|STEP#0001'));
    const second = queue.enqueue('RUN#r|TOOL#call_1', writes.write(2, 'RUN#r|TOOL#call_1'));
    await settled();
    expect(writes.starts.map((start) => start.id)).toEqual([0, 1]);
    writes.finish(1);
    await settled();
    expect(writes.starts.map((start) => start.id)).toEqual([0, 1]);
    writes.finish(0, 'fail');
    await expect(first).rejects.toThrow('scripted write failure');
    await settled();
    expect(writes.starts.map((start) => start.id)).toEqual([0, 1, 2]);
    writes.finish(2);
    await expect(second).resolves.toBeUndefined();
    await expect(other).resolves.toBeUndefined();
  });

  it('lets a write waiting for its key hold no slot, so other keys go on', async () => {
    const queue = createWriteQueue(1);
    const writes = createScriptedWrites();
    void queue.enqueue('a', writes.write(0, 'a'));
    void queue.enqueue('a', writes.write(1, 'a'));
    void queue.enqueue('b', writes.write(2, 'b'));
    await settled();
    writes.finish(0);
    await settled();
    // 'b' was queued for a slot before the second 'a' could be (that one waited for the first 'a' to settle).
    expect(writes.starts.map((start) => start.id)).toEqual([0, 2]);
    writes.finish(2);
    await settled();
    expect(writes.starts.map((start) => start.id)).toEqual([0, 2, 1]);
    writes.finish(1);
    await settled();
    expect(queue.inFlight).toBe(0);
    expect(queue.waiting).toBe(0);
  });

  it('refuses a bound that is not a positive integer or Infinity', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => createWriteQueue(bad)).toThrow(RangeError);
    expect(() => createWriteQueue(Number.POSITIVE_INFINITY)).not.toThrow();
  });

  it('keeps both guarantees whatever the keys, the bound and the order in which writes finish or fail', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 200, maxLength: 200 }),
        async (maxInFlight, keys, schedule) => {
          const queue = createWriteQueue(maxInFlight);
          const writes = createScriptedWrites();
          const done = keys.map((key, id) => queue.enqueue(key, writes.write(id, key)).catch(() => undefined));
          await settled();
          let step = 0;
          while (writes.running.size > 0) {
            const [pick, fails] = schedule[step % schedule.length] ?? [0, false];
            step += 1;
            const runningIds = [...writes.running];
            writes.finish(runningIds[pick % runningIds.length] as number, fails ? 'fail' : 'ok');
            await settled();
          }
          await Promise.all(done);
          // Every write ran once; never more than maxInFlight at a time; each after its key's previous write settled.
          expect(writes.starts.map((start) => start.id).sort((x, y) => x - y)).toEqual(keys.map((_, id) => id));
          expect(writes.peak()).toBeLessThanOrEqual(maxInFlight);
          expect(writes.starts.every((start) => start.previousOfKeySettled)).toBe(true);
          for (const key of new Set(keys)) {
            const ofKey = writes.starts.filter((start) => start.key === key).map((start) => start.id);
            expect(ofKey).toEqual([...ofKey].sort((x, y) => x - y));
          }
          expect(queue.inFlight).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
