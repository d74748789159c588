import type { JudgeBudget } from '../../harness/judge-budget.ts';

/**
 * The SemanticGuard's limits: the judge's budget (tokens, time, the size of its verdicts), which the harness enforces,
 * and the bounds of the evidence the judge is shown, which its prompt applies. NOTE: the budget's fields are declared
 * in the harness (`JudgeBudget`), the room that enforces them; this room adds only what the prompt bounds.
 */
export interface JudgeLimits extends JudgeBudget {
  /** UTF-8 bytes of one check's observation as the judge sees it (the agent saw at most 8 KiB). */
  maxObservationBytes: number;
  /** UTF-8 bytes of all observations given to the judge together. */
  maxEvidenceBytes: number;
}

export const DEFAULT_JUDGE_LIMITS: Readonly<JudgeLimits> = Object.freeze({
  // NOTE: the worst bounded prompt (instructions, a 4 KiB query, a 16 KiB Draft, 48 KiB of evidence) is about 72 KB,
  // estimated at 2 bytes a token (~36,000 tokens); with 6,000 output tokens it fits 48,000. A typical prompt is far
  // smaller (the E1001 demo's is about 5,000 tokens).
  maxTotalTokens: 48_000,
  maxOutputTokens: 6_000,
  maxTimeMs: 30_000,
  timeSharePercent: 25,
  minTimeMs: 2_000,
  maxObservationBytes: 8 * 1024,
  maxEvidenceBytes: 48 * 1024,
  maxVerdictBytes: 16 * 1024,
});
