import type { AuditHook, PseudonymBatchEvent } from './audit-hook.ts';

/**
 * Port: the writer of a run's audit trail (steps, reasoning, tool invocations, the sealed pseudonym map). It is the
 * {@link AuditHook} the harness calls, plus the `flush` its invocation awaits before it completes the run: writes
 * are write-behind (each hook call queues and returns), so a failed write surfaces at `flush` and can still make the
 * run FAILED. Every write is conditional: nothing written is ever overwritten. NOTE: one writer per run; its queue
 * and its record of failures belong to that run's invocation.
 */
export interface AuditWriter extends AuditHook {
  /** Keeps the run's pseudonyms apart from everything else, in their own partition (see {@link AuditHook}). */
  onPseudonyms(event: PseudonymBatchEvent): Promise<void>;
  /** Waits for every write started so far; rejects with `AuditWriteError` naming the items that failed. */
  flush(): Promise<void>;
}
