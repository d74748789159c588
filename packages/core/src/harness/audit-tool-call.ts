import type { AuditHook, ToolInvocationEvent } from '../store/audit-hook.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import { sealNewPseudonyms } from '../tools/masking/pseudonym-map.ts';
import { AuditFailure } from './harness-signals.ts';

/** The audit of the tool boundary and what it needs to store the pseudonyms an observation shows. */
export interface ToolCallAudit {
  audit: AuditHook;
  masking: MaskingSession;
  /** The run's counter of pseudonym batches (shared with the service, which stores the input's own). */
  nextPseudonymBatch: () => number;
  /** Ends the whole run; see `ToolInterceptorOptions.abortRun`. */
  abortRun: (reason: unknown) => void;
}

/**
 * Writes a call's audit record, after the pseudonym batches its observation made: a pseudonym in a stored
 * observation always has its value stored too. NOTE: a failed write ends the run (`AuditFailure`) before it throws:
 * inside a tool call a throw alone would only become a tool error the model sees, and a run must not go on unaudited.
 */
export async function auditToolCall(context: ToolCallAudit, event: ToolInvocationEvent): Promise<void> {
  const identity = { runId: event.runId, sessionId: event.sessionId };
  try {
    for (const batch of sealNewPseudonyms(context.masking, identity, context.nextPseudonymBatch)) {
      await context.audit.onPseudonyms?.(batch);
    }
    await context.audit.onToolInvocation(event);
  } catch (error) {
    const failure = new AuditFailure('tool invocation audit failed', { cause: error });
    context.abortRun(failure);
    throw failure;
  }
}
