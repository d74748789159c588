import type { ProgressCheck, ProgressSnapshot } from '../run/progress.ts';
import type { RunUsage } from '../run/run-context.ts';
import type { ToolCallId } from '../tools/tool-call-id.ts';

/**
 * The run's canonical record of executed checks and the progress protocol's state: which non-empty result waits for
 * an evaluation, how many NO_GAIN judgements came in a row, which tool call ids and canonical inputs were seen.
 */
export function createProgressTracker() {
  const checks: ProgressCheck[] = [];
  const seenToolCallIds = new Set<ToolCallId>();
  const executedInputs = new Set<string>();
  let rejected = 0;
  let noGainStreak = 0;

  return {
    /** Marks a checked id as used; false when the run saw it before. */
    claimToolCallId(toolCallId: ToolCallId): boolean {
      if (seenToolCallIds.has(toolCallId)) return false;
      seenToolCallIds.add(toolCallId);
      return true;
    },
    pending(): ProgressCheck | undefined {
      const last = checks.at(-1);
      return last?.evaluation === 'PENDING' ? last : undefined;
    },
    /** Applies the model's evaluation to the pending check and updates the NO_GAIN streak. */
    evaluate(check: ProgressCheck, evaluation: 'GAINED' | 'NO_GAIN'): void {
      check.evaluation = evaluation;
      noGainStreak = evaluation === 'NO_GAIN' ? noGainStreak + 1 : 0;
    },
    /** An equivalent repeat or an empty result carries no information: it extends the streak like a NO_GAIN. */
    countNoGain(): void {
      noGainStreak += 1;
    },
    noGainStreak: () => noGainStreak,
    isDuplicate: (canonicalInput: string) => executedInputs.has(canonicalInput),
    recordExecuted(check: ProgressCheck, canonicalInput: string): void {
      checks.push(check);
      executedInputs.add(canonicalInput);
    },
    recordRejected(): void {
      rejected += 1;
    },
    /** Calls the boundary refused so far in the run. */
    rejectedCount: () => rejected,
    hasReadyCheck: () => checks.some((check) => check.status === 'READY'),
    snapshot(usage: RunUsage): ProgressSnapshot {
      return Object.freeze({
        modelCalls: usage.modelCalls,
        toolCalls: usage.toolCalls,
        rejectedToolCalls: rejected,
        totalTokens: usage.totalTokens,
        checks: Object.freeze(checks.map((check) => Object.freeze({ ...check }))),
      });
    },
  };
}

export type ProgressTracker = ReturnType<typeof createProgressTracker>;
