import type { LanguageModelMiddleware } from 'ai';
import type { RunContext } from '../run/run-context.ts';
import { modelRequestTimeoutMs } from './budget-policy.ts';
import { ModelRequestTimeout } from './harness-signals.ts';
import { createLinkedAbort } from './linked-abort.ts';
import { raceAbort } from './race-abort.ts';

/**
 * The time limit of each provider call, built per run: the call gets a signal that aborts with
 * {@link ModelRequestTimeout} after the run's `modelRequestTimeoutMs` (or with the run's own reason at its deadline or
 * cancellation), and the round ends at that moment even if the provider ignores the signal; a late answer never reaches
 * the audit or the budget. Compose it innermost, directly around the provider, so the audit middleware sees only
 * rounds that answered in time.
 */
export function createRequestTimeoutMiddleware(options: {
  run: RunContext;
  runSignal: AbortSignal;
}): LanguageModelMiddleware {
  const { run, runSignal } = options;
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ model, params }) => {
      const timeoutMs = modelRequestTimeoutMs(run);
      const request = createLinkedAbort(runSignal);
      const timer =
        timeoutMs === null ? undefined : setTimeout(() => request.abort(new ModelRequestTimeout(timeoutMs)), timeoutMs);
      const { signal } = request;
      try {
        return await raceAbort(model.doGenerate({ ...params, abortSignal: signal }), signal);
      } finally {
        clearTimeout(timer);
        request.unlink();
      }
    },
  };
}
