/**
 * The judge's own small budget, as the harness enforces it: one model call after the agent's loop, never counted
 * against the agent's limits (it is counted in the run's usage). Compared only in the harness's budget policy
 * (`judgeTimeBudgetMs`, `judgePromptFits`, `judgeOverranTokens`, `judgeVerdictTooLarge`). NOTE: declared here, in the
 * room that owns budgets, so the harness needs nothing from the release above it; the SemanticGuard's full limits
 * (`JudgeLimits`, with their defaults) extend it in release/judge/.
 */
export interface JudgeBudget {
  /** Input plus output tokens of the one judge call, as reported by the provider. */
  maxTotalTokens: number;
  /** The output tokens the judge may ask for (reasoning included, for thinking models). */
  maxOutputTokens: number;
  /** The most time the judge call may take. */
  maxTimeMs: number;
  /** The share of the time left before the run's deadline the judge may take, in percent (when less than maxTimeMs). */
  timeSharePercent: number;
  /** Below this much time the judge is not called at all (and the guard fails closed in enforce mode). */
  minTimeMs: number;
  /** UTF-8 bytes of the judge's final text that must parse as its verdicts. */
  maxVerdictBytes: number;
}
