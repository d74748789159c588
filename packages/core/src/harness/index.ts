/**
 * `@diagnosis/core/harness`: the harness's internal building blocks, exported for unit tests and benchmarks only.
 * Application code uses `runDiagnosis` from the package root.
 */

export { runLedger } from '../run/run-context.ts';
export { createAuditMiddleware } from './audit-middleware.ts';
export { createBudgetMiddleware } from './budget-middleware.ts';
export {
  ESTIMATED_BYTES_PER_TOKEN,
  estimatedTokens,
  FINAL_ROUND_TOKEN_RESERVE,
  finalRoundReserveStartsAt,
  inFinalRoundReserve,
  judgeOverranTokens,
  judgePromptFits,
  judgeTimeBudgetMs,
  judgeVerdictTooLarge,
  maxRounds,
  modelRequestTimeoutMs,
  outputTokenCap,
  overRoundToolCallLimit,
  overranTokens,
  reachedRejectedCallLimit,
  refuseRound,
  saturated,
  softStopAfterToolCall,
  softStopBeforeRound,
  tooLittleTimeForARound,
} from './budget-policy.ts';
export { classifyModelFailure } from './classify-model-failure.ts';
export { createCollectionState } from './collection-state.ts';
export { createHarness, type Harness, type HarnessOptions } from './create-harness.ts';
export { createJudgeHarness, JUDGE_FAILURES, JudgeOverBudget, JudgeTimeout } from './create-judge-harness.ts';
export { AuditFailure, HarnessFault, HarnessStop, ModelCallFailure, ModelRequestTimeout } from './harness-signals.ts';
export type { JudgeBudget } from './judge-budget.ts';
export { raceAbort } from './race-abort.ts';
export { createRequestTimeoutMiddleware } from './request-timeout-middleware.ts';
export { readUsage, roundUsage } from './round-usage.ts';
export { createRunLifecycle } from './run-lifecycle.ts';
