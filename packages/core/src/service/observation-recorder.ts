import type { AuditHook } from '../store/audit-hook.ts';
import type { Observation } from '../tools/observation.ts';

/**
 * An audit hook in front of the run's store that also keeps, per tool call id, the observation the agent saw for
 * each executed READY check: the SemanticGuard's evidence comes from exactly the events the harness audited, never
 * from a second read of any source. Everything is passed on to the store unchanged. NOTE: the first record of an id
 * is the canonical one; a rejected reuse of the id never replaces it.
 */
export function createObservationRecorder(audit: AuditHook) {
  const observations = new Map<string, Observation>();
  const hook: AuditHook = {
    onModelStep: (event) => audit.onModelStep(event),
    onPseudonyms: async (event) => {
      await audit.onPseudonyms?.(event);
    },
    async onToolInvocation(event) {
      await audit.onToolInvocation(event);
      if (event.disposition === 'EXECUTED' && event.status === 'READY' && !observations.has(event.toolCallId)) {
        observations.set(event.toolCallId, event.observation);
      }
    },
  };
  return { hook, observations: observations as ReadonlyMap<string, Observation> };
}
