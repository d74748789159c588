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
  /**
   * Waits for every write started so far; rejects with `AuditWriteError` naming the items that failed, else resolves
   * with the writes that landed only after more than one attempt (a loaded machine's or a busy table's trace, which
   * would otherwise leave none).
   */
  flush(): Promise<AuditFlushReport>;
}

/**
 * What a run hands the store it writes with. NOTE: `writeBudget` aborts when the run's audit writes must be over (the
 * invocation's end less the completion's share of the flush reserve): a write is not tried again after it, and one on
 * the wire is abandoned, so retries against a stalled or refusing table never eat the time the run's completion needs.
 * Until then a transient failure is tried again, however often.
 */
export interface RunWriteBudget {
  writeBudget: AbortSignal;
  /**
   * Aborts at the invocation's end (less a quarter of the flush reserve, for its answer): every request of the run's
   * store still on the wire then is abandoned, so the completion of a run whose table does not answer fails in time
   * (the workflow's failure path closes the run) instead of being cut off with the function.
   */
  callBudget: AbortSignal;
}

/** What a successful `flush` tells: the writes that needed more than one attempt to land. */
export interface AuditFlushReport {
  retriedWrites: RetriedAuditWrite[];
}

/**
 * A write that landed after more than one attempt. NOTE: `key` is the item's key (`pk|sk`), which may hold a tool call
 * id the model chose: a log names only its item kind (`auditWriteFields`), never the key.
 */
export interface RetriedAuditWrite {
  key: string;
  /** Every attempt it took: the SDK's own retries and the writer's tries together. */
  attempts: number;
  /** The AWS error codes (error classes) of the tries that failed before it landed, in order. */
  errorCodes: string[];
}
