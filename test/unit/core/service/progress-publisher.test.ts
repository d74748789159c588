import type { ProgressSnapshot } from '@diagnosis/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgressPublisher } from '../../../../packages/core/src/service/progress-publisher.ts';
import { testRun } from '../../../support/run-fixtures.ts';

const snapshot = (toolCalls: number): ProgressSnapshot => ({
  modelCalls: 1,
  toolCalls,
  rejectedToolCalls: 0,
  totalTokens: 100,
  checks: [],
});

function recordingStore() {
  const written: number[] = [];
  return {
    written,
    updateProgress: async (_runId: string, update: { progress: ProgressSnapshot }) => {
      written.push(update.progress.toolCalls);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createProgressPublisher', () => {
  it('writes the newest snapshot once the interval has passed, dropping the older ones', async () => {
    vi.useFakeTimers();
    const store = recordingStore();
    const publisher = createProgressPublisher(store, testRun(), 1_000);
    publisher.publish(snapshot(1));
    await vi.advanceTimersByTimeAsync(0);
    publisher.publish(snapshot(2));
    publisher.publish(snapshot(3));
    await vi.advanceTimersByTimeAsync(999);
    expect(store.written).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.written).toEqual([1, 3]);
  });

  it('writes nothing published after drain, as from a tool call that ends after its run, and sets no timer', async () => {
    vi.useFakeTimers();
    const store = recordingStore();
    const publisher = createProgressPublisher(store, testRun(), 1_000);
    publisher.publish(snapshot(1));
    await vi.advanceTimersByTimeAsync(0);
    await publisher.drain();
    publisher.publish(snapshot(2));
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(store.written).toEqual([1]);
  });

  it('drops a snapshot still waiting for its interval when drained, and waits for the write in flight', async () => {
    vi.useFakeTimers();
    let finish: () => void = () => undefined;
    const written: number[] = [];
    const store = {
      updateProgress: (_runId: string, update: { progress: ProgressSnapshot }) =>
        new Promise<void>((done) => {
          finish = () => {
            written.push(update.progress.toolCalls);
            done();
          };
        }),
    };
    const publisher = createProgressPublisher(store, testRun(), 1_000);
    publisher.publish(snapshot(1));
    await vi.advanceTimersByTimeAsync(0);
    publisher.publish(snapshot(2));
    let drained = false;
    const draining = publisher.drain().then(() => {
      drained = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(drained).toBe(false);
    finish();
    await draining;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(written).toEqual([1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
