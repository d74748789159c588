import type { RunContext } from '../run/run-context.ts';
import { finalRoundReserveStartsAt } from './budget-policy.ts';
import { HarnessStop } from './harness-signals.ts';
import { createLinkedAbort } from './linked-abort.ts';

/** setTimeout cannot wait longer; such deadlines are still checked before every round. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The run's signals and timers: `runSignal` aborts at the deadline, on outside cancellation and on an audit failure;
 * `collectionSignal` also aborts when the final round's reserve begins (`reserveSignal`), so a hanging adapter cannot
 * eat it.
 * `dispose` clears the timers and the listener; call it when the run ends.
 */
export function createRunLifecycle(run: RunContext) {
  const runController = new AbortController();
  const reserveController = new AbortController();
  const collection = createLinkedAbort(runController.signal);
  const abort = (reason: unknown) => {
    if (!runController.signal.aborted) runController.abort(reason);
  };
  const timers: ReturnType<typeof setTimeout>[] = [];
  const schedule = (at: number, action: () => void) => {
    const delay = Math.max(0, at - run.now());
    if (delay <= MAX_TIMER_MS) timers.push(setTimeout(action, delay));
  };
  schedule(run.deadlineAt, () => abort(new HarnessStop('DEADLINE')));
  schedule(finalRoundReserveStartsAt(run), () => {
    reserveController.abort();
    collection.abort(reserveController.signal.reason);
  });
  const onCancel = () => abort(new HarnessStop('CANCELLED'));
  run.signal?.addEventListener('abort', onCancel, { once: true });
  return {
    runSignal: runController.signal,
    collectionSignal: collection.signal,
    /** Aborts when the final round's reserve begins (and only then). */
    reserveSignal: reserveController.signal,
    abort,
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      run.signal?.removeEventListener('abort', onCancel);
    },
  };
}
