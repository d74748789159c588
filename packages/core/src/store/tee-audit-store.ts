import type { AuditHook, ModelStepEvent, ToolInvocationEvent } from './audit-hook.ts';

/** Who watches a run's audit trail as the harness writes it (the command line's live view). */
export interface AuditListener {
  onModelStep?(event: ModelStepEvent): void;
  onToolInvocation?(event: ToolInvocationEvent): void;
}

/**
 * The run's store with a listener beside it: every audit event goes to the store first, then, synchronously, to the
 * listener. The listener thus sees the events in exactly the order the harness audited them (the harness awaits each
 * hook call before the next), with no read of the table: ordered by construction. NOTE: a listener that throws is a
 * broken view, never a broken run: its error is dropped and the audit continues; the store's own rejections still
 * reach the harness, which fails the run closed as before.
 */
export function teeAuditStore<S extends AuditHook>(store: S, listener: AuditListener): S {
  return {
    ...store,
    async onModelStep(event: ModelStepEvent) {
      await store.onModelStep(event);
      notify(() => listener.onModelStep?.(event));
    },
    async onToolInvocation(event: ToolInvocationEvent) {
      await store.onToolInvocation(event);
      notify(() => listener.onToolInvocation?.(event));
    },
  };
}

function notify(call: () => void): void {
  try {
    call();
  } catch {
    // NOTE: see teeAuditStore: the view's failure is not the run's.
  }
}
