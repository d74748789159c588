import { buildProcessScorecard, type ScoredRun } from '../report/process-scorecard.ts';
import type { ProcessScorecard } from '../run/process-scores.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import { stepItems } from '../store/items/model-step-items.ts';
import { recordOf } from '../store/items/run-record.ts';
import { toolItem } from '../store/items/tool-item.ts';
import type { StoredStep, StoredToolInvocation } from '../store/run-store.ts';

/**
 * An audit hook in front of the run's store that keeps each audited event as the record the store reads back (built
 * by the store's own item modules, with their caps), so that the process scorecard computed when the run completes is
 * the one anyone recomputes later from the stored records. Everything is passed on to the store unchanged. NOTE: a tool
 * event's adapter data is dropped from the kept record (the scorecard never reads it), so the run holds no second
 * copy of large results.
 */
export function createProcessRecorder(audit: AuditHook) {
  const steps: StoredStep[] = [];
  const tools: StoredToolInvocation[] = [];
  const hook: AuditHook = {
    async onModelStep(event) {
      await audit.onModelStep(event);
      const [step] = stepItems(event, event.endedAt, 1);
      steps.push(recordOf(step) as StoredStep);
    },
    async onToolInvocation(event) {
      await audit.onToolInvocation(event);
      tools.push(recordOf(toolItem({ ...event, result: null }, event.endedAt, 1)) as StoredToolInvocation);
    },
    // NOTE: the run's pseudonym batches go to the store as they are: they are not process events, and the reveal
    // route and a follow-up's re-keying read them back.
    ...(audit.onPseudonyms === undefined
      ? {}
      : {
          onPseudonyms: (event: Parameters<NonNullable<AuditHook['onPseudonyms']>>[0]) =>
            audit.onPseudonyms?.(event) ?? Promise.resolve(),
        }),
  };
  return {
    hook,
    /** The scorecard of the run as it ends with `run` (its outcome, limits and deadline), from what was audited. */
    scorecard: (run: ScoredRun): ProcessScorecard => buildProcessScorecard(run, steps, tools),
  };
}
