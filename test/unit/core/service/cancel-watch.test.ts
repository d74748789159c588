import { describe, expect, it } from 'vitest';
import { watchCancellation } from '../../../../packages/core/src/service/cancel-watch.ts';

/** A store whose cancel flag is `requested`, counting its reads. */
function flagStore(requested: boolean) {
  let reads = 0;
  return {
    store: {
      isCancelRequested: async () => {
        reads += 1;
        return requested;
      },
    },
    reads: () => reads,
  };
}

describe('watchCancellation', () => {
  it('reads the flag for every round, and aborts when a cancel was asked for', async () => {
    const { store, reads } = flagStore(true);
    const watch = watchCancellation(store, 'run-1', 60_000);
    await watch.checkNow();
    expect(reads()).toBe(1);
    expect(watch.signal.aborted).toBe(true);
    watch.stop();
  });

  it('after a claim (whose condition read the flag) skips only the first round’s read', async () => {
    const { store, reads } = flagStore(true);
    const watch = watchCancellation(store, 'run-2', 60_000, { justClaimed: true });
    await watch.checkNow();
    expect(reads()).toBe(0);
    expect(watch.signal.aborted).toBe(false);
    await watch.checkNow();
    expect(reads()).toBe(1);
    expect(watch.signal.aborted).toBe(true);
    watch.stop();
  });

  it('ignores a failed read: the next one may succeed', async () => {
    let reads = 0;
    const watch = watchCancellation(
      {
        isCancelRequested: async () => {
          reads += 1;
          if (reads === 1) throw new Error('throttled');
          return true;
        },
      },
      'run-3',
      60_000,
    );
    await watch.checkNow();
    expect(watch.signal.aborted).toBe(false);
    await watch.checkNow();
    expect(watch.signal.aborted).toBe(true);
    watch.stop();
  });

  it('goes on when the read before a round is not answered in time, and still cancels on its late answer', async () => {
    let answer: (requested: boolean) => void = () => undefined;
    const store = {
      isCancelRequested: () =>
        new Promise<boolean>((resolve) => {
          answer = resolve;
        }),
    };
    const watch = watchCancellation(store, 'run-stalled', 60_000, { checkWaitMs: 5 });
    await watch.checkNow();
    expect(watch.signal.aborted).toBe(false);
    answer(true);
    await Promise.resolve();
    expect(watch.signal.aborted).toBe(true);
    watch.stop();
  });
});
