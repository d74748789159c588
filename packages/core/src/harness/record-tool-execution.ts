import type { RunContext } from '../run/run-context.ts';
import type { ToolName } from '../tools/evidence-adapter.ts';
import type { ToolCallId } from '../tools/tool-call-id.ts';
import { softStopAfterToolCall } from './budget-policy.ts';
import { type CollectionState, stopCollection } from './collection-state.ts';
import type { ProgressTracker } from './progress-tracker.ts';
import { stopWhenSaturated } from './stop-when-saturated.ts';
import type { ToolOutcome } from './tool-outcome.ts';

/** An executed call as the progress protocol keeps it. */
export interface ExecutedToolCall {
  toolCallId: ToolCallId;
  toolName: ToolName;
  /** The call's business input in canonical form, so an equivalent repeat is refused. */
  canonical: string;
}

/**
 * Records an executed call in the run's canonical checks (a non-empty OK result now waits for the model's
 * evaluation), counts an empty result as no gain, and decides the soft stop a call may cause (the tool-call budget
 * reached, the time left): collection then ends right after this call.
 */
export function recordToolExecution(
  run: RunContext,
  tracker: ProgressTracker,
  collection: CollectionState,
  call: ExecutedToolCall,
  outcome: ToolOutcome,
): void {
  tracker.recordExecuted(
    {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: outcome.status === 'ERROR' ? 'ERROR' : 'READY',
      empty: outcome.empty,
      evaluation: outcome.observation.evidence_status === 'OK' ? 'PENDING' : null,
    },
    call.canonical,
  );
  if (outcome.status === 'READY' && outcome.empty) {
    tracker.countNoGain();
    stopWhenSaturated(run, tracker, collection);
  }
  const afterCall = softStopAfterToolCall(run);
  if (afterCall !== null) stopCollection(collection, afterCall);
}
