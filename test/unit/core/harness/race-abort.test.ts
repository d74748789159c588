import { raceAbort } from '@diagnosis/core/harness';
import { describe, expect, it } from 'vitest';

/** A signal that counts its abort listeners, to show the race leaves none behind. */
function countingSignal() {
  const controller = new AbortController();
  const { signal } = controller;
  let listeners = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    listeners += 1;
    add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    listeners -= 1;
    remove(...args);
  }) as typeof signal.removeEventListener;
  return { controller, signal, listeners: () => listeners };
}

describe('raceAbort', () => {
  it('settles with the work and removes its listener when the work settles first', async () => {
    const { signal, listeners } = countingSignal();
    await expect(raceAbort(Promise.resolve('done'), signal)).resolves.toBe('done');
    await Promise.resolve();
    expect(listeners()).toBe(0);
  });

  it('rejects with the signal’s reason when the signal aborts first, and ignores a late rejection', async () => {
    const { controller, signal } = countingSignal();
    let fail: (error: Error) => void = () => undefined;
    const work = new Promise<string>((_, reject) => {
      fail = reject;
    });
    const raced = raceAbort(work, signal);
    const reason = new Error('deadline');
    controller.abort(reason);
    await expect(raced).rejects.toBe(reason);
    fail(new Error('late'));
  });

  it('resolves with the onAbort answer when the signal aborts first', async () => {
    const { controller, signal } = countingSignal();
    const raced = raceAbort(new Promise<string>(() => undefined), signal, () => 'timed out' as const);
    controller.abort(new Error('deadline'));
    await expect(raced).resolves.toBe('timed out');
  });

  it('answers at once when the signal is already aborted: the reason, or the onAbort answer', async () => {
    const reason = new Error('gone');
    const signal = AbortSignal.abort(reason);
    await expect(raceAbort(new Promise<string>(() => undefined), signal)).rejects.toBe(reason);
    await expect(raceAbort(new Promise<string>(() => undefined), signal, () => 'closed')).resolves.toBe('closed');
  });

  it('passes a rejection of the work through when the signal has not aborted, even with onAbort', async () => {
    const { signal } = countingSignal();
    const error = new Error('adapter failed');
    await expect(raceAbort(Promise.reject(error), signal, () => 'timed out')).rejects.toBe(error);
  });
});
