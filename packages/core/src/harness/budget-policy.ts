import type { RunContext } from '../run/run-context.ts';
import type { RunLimits } from '../run/run-limits.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { CollectionState } from './collection-state.ts';
import type { JudgeBudget } from './judge-budget.ts';

/**
 * Every comparison of a run against its limits, as pure functions of the run (its limits, its ledger, its clock) and
 * the collection state. The middleware, the interceptor, the lifecycle and the service ask here; none of them
 * compares a limit itself, so "where is the budget enforced?" has one answer.
 */

/** Tokens kept free for the final round's reasoning and Draft when deciding whether collection may go on. */
export const FINAL_ROUND_TOKEN_RESERVE = 4_096;
/**
 * UTF-8 bytes per token wherever the harness estimates tokens: the next round's input (observations sent since the
 * last round) and a round the provider reported no usage for. NOTE: deliberately conservative (it counts too many
 * tokens, never too few): DeepSeek's tokenizer takes about 3.3 bytes of English, about 5 bytes of Chinese (3 bytes a
 * character, about 0.6 tokens each) and about 2.5–3 bytes of JSON per token, so 2 bytes over-counts by 1.25–2.5×
 * and a run whose provider reports no usage stops early, never late.
 */
export const ESTIMATED_BYTES_PER_TOKEN = 2;

/** The tokens `bytes` of UTF-8 text count as when no provider count exists ({@link ESTIMATED_BYTES_PER_TOKEN}). */
export function estimatedTokens(bytes: number): number {
  return Math.ceil(bytes / ESTIMATED_BYTES_PER_TOKEN);
}

/** Whether `remainingMs` is too little for even one model round before the final-round reserve. */
export function tooLittleTimeForARound(limits: Pick<RunLimits, 'finalRoundReserveMs'>, remainingMs: number): boolean {
  return remainingMs <= 0 || remainingMs < limits.finalRoundReserveMs;
}

/** Whether the final round's time reserve has begun: no more evidence collection. */
export function inFinalRoundReserve(run: RunContext): boolean {
  return run.deadlineAt - run.now() < run.limits.finalRoundReserveMs;
}

/** When the final round's time reserve begins (the collection signal aborts then). */
export function finalRoundReserveStartsAt(run: RunContext): number {
  return run.deadlineAt - run.limits.finalRoundReserveMs;
}

/**
 * How long the provider call of the round starting now may take before the run fails as MODEL_TIMEOUT, or null when
 * the run's deadline comes first (the deadline then stops the run as DEADLINE, as it would any work).
 */
export function modelRequestTimeoutMs(run: RunContext): number | null {
  const untilDeadline = run.deadlineAt - run.now();
  return run.limits.modelRequestTimeoutMs < untilDeadline ? run.limits.modelRequestTimeoutMs : null;
}

/** The most rounds the loop may run, the final Draft round included. */
export function maxRounds(run: RunContext): number {
  return run.limits.maxModelCalls;
}

/** Why a model round may not reach the provider now (a hard stop of the run), or null. */
export function refuseRound(run: RunContext): StopReason | null {
  const { usage } = run.ledger;
  if (run.now() >= run.deadlineAt) return 'DEADLINE';
  if (usage.modelCalls >= run.limits.maxModelCalls) return 'MODEL_CALL_BUDGET';
  if (usage.totalTokens >= run.limits.maxTotalTokens) return 'TOKEN_BUDGET';
  return null;
}

/** The output tokens a round may ask for: never more than what is left of the token budget (at least 1). */
export function outputTokenCap(run: RunContext, requested: number | undefined): number {
  const remaining = Math.max(1, run.limits.maxTotalTokens - run.ledger.usage.totalTokens);
  return Math.min(requested ?? remaining, remaining);
}

/** Whether the round just counted pushed the run over its token budget (the round is then discarded). */
export function overranTokens(run: RunContext): boolean {
  return run.ledger.usage.totalTokens > run.limits.maxTotalTokens;
}

/**
 * Why collection must end before the next round (a soft stop: one final no-tool round follows), or null: only one
 * model call is left, the next round's estimate would leave no tokens for the final one, or the reserve has begun.
 */
export function softStopBeforeRound(run: RunContext, collection: CollectionState): StopReason | null {
  const { usage } = run.ledger;
  if (usage.modelCalls >= run.limits.maxModelCalls - 1) return 'MODEL_CALL_BUDGET';
  const nextRoundEstimate =
    collection.lastRoundTokens + estimatedTokens(collection.observationBytesSinceRound) + FINAL_ROUND_TOKEN_RESERVE;
  if (usage.totalTokens + nextRoundEstimate > run.limits.maxTotalTokens) return 'TOKEN_BUDGET';
  if (inFinalRoundReserve(run)) return 'DEADLINE';
  return null;
}

/** Why collection ends after an executed tool call, or null. */
export function softStopAfterToolCall(run: RunContext): StopReason | null {
  return run.ledger.usage.toolCalls >= run.limits.maxToolCalls ? 'TOOL_CALL_BUDGET' : null;
}

/**
 * Whether a round that asked for `toolCallCount` tool calls (unknown tools included) asked for more than one round
 * may: the round is then discarded before any call runs and the run stops (`ROUND_TOOL_CALL_LIMIT`).
 */
export function overRoundToolCallLimit(run: RunContext, toolCallCount: number): boolean {
  return toolCallCount > run.limits.maxToolCallsPerRound;
}

/** Whether the boundary has refused as many calls as a run may have refused: the run stops (`REJECTED_CALL_LIMIT`). */
export function reachedRejectedCallLimit(run: RunContext, rejectedCount: number): boolean {
  return rejectedCount >= run.limits.maxRejectedToolCalls;
}

/** Whether the model's own judgements say more evidence brings nothing. */
export function saturated(run: RunContext, noGainStreak: number): boolean {
  return noGainStreak >= run.limits.noGainStopStreak;
}

/**
 * How long the SemanticGuard's one call may take: the smaller of its `maxTimeMs` and its share of what is left before
 * the run's deadline, or null when that is less than `minTimeMs` (the judge is then not called).
 */
export function judgeTimeBudgetMs(run: RunContext, limits: JudgeBudget): number | null {
  const share = Math.floor(((run.deadlineAt - run.now()) * limits.timeSharePercent) / 100);
  const budget = Math.min(limits.maxTimeMs, share);
  return budget < limits.minTimeMs ? null : budget;
}

/** Whether the judge's prompt, estimated from its bytes, leaves room for its output within its token budget. */
export function judgePromptFits(limits: JudgeBudget, promptBytes: number): boolean {
  return estimatedTokens(promptBytes) + limits.maxOutputTokens <= limits.maxTotalTokens;
}

/** Whether the judge's call, as the provider reported it, used more tokens than its budget (its answer is void). */
export function judgeOverranTokens(limits: JudgeBudget, usedTokens: number): boolean {
  return usedTokens > limits.maxTotalTokens;
}

/** Whether the judge's final text is larger than its verdicts may be (it is then refused unread). */
export function judgeVerdictTooLarge(limits: JudgeBudget, verdictBytes: number): boolean {
  return verdictBytes > limits.maxVerdictBytes;
}
